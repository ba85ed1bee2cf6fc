// Package mmc is the built-in M/M/c queue that `simulate run mmc` runs on the sim kernel: Poisson
// arrivals at rate λ, c identical servers with exponential service at rate μ each, one FIFO queue
// of unbounded length. It exists to validate the kernel against Erlang C and to measure it.
//
// Units: rates per second, times in virtual nanoseconds (sim.Time); reported waits in seconds.
// Statistics cover customers that arrive at or after the warm-up time.
package mmc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"overloadsim/sim"
)

// Config describes one M/M/c run.
type Config struct {
	Lambda  float64       // arrival rate, customers/s; > 0
	Mu      float64       // service rate of one server, customers/s; > 0
	C       int           // servers; ≥ 1
	Horizon time.Duration // virtual run length; > 0
	Warmup  time.Duration // statistics ignore arrivals before this; 0 ≤ Warmup < Horizon
	Seed    uint64
}

// Validate reports every invalid field at once, each naming the field, its value and the rule.
func (c Config) Validate() error {
	var errs []error
	bad := func(field string, v any, rule string) {
		errs = append(errs, fmt.Errorf("mmc: %s: %v: %s", field, v, rule))
	}
	if !(c.Lambda > 0) || math.IsInf(c.Lambda, 0) {
		bad("lambda", c.Lambda, "must be a finite number > 0")
	}
	if !(c.Mu > 0) || math.IsInf(c.Mu, 0) {
		bad("mu", c.Mu, "must be a finite number > 0")
	}
	if c.C < 1 {
		bad("c", c.C, "must be ≥ 1")
	}
	if c.Horizon <= 0 {
		bad("horizon", c.Horizon, "must be > 0")
	}
	if c.Warmup < 0 || c.Warmup >= c.Horizon {
		bad("warmup", c.Warmup, "must be ≥ 0 and < horizon")
	}
	return errors.Join(errs...)
}

// Result is what one run measured.
type Result struct {
	Arrivals    uint64  // customers that arrived after warm-up
	Served      uint64  // of those, customers that started service before the horizon
	Waited      uint64  // of Arrivals, customers that found every server busy
	MeanWait    float64 // mean time in queue Wq of Served customers, seconds
	Utilisation float64 // time-average busy servers ÷ c, over [warm-up, horizon]
	MeanInQueue float64 // time-average queue length Lq over [warm-up, horizon]
	ArrivalRate float64 // observed arrival rate over [warm-up, horizon], /s
	Events      uint64  // events the loop handled
}

// event kinds
const (
	evArrival = iota
	evDeparture
)

type model struct {
	cfg    Config
	loop   *sim.Loop
	arrive *rand.Rand // inter-arrival stream
	serve  *rand.Rand // service-time stream
	warmup sim.Time

	busy  int
	queue []sim.Time // arrival times of waiting customers, FIFO ring
	head  int
	n     int

	// time integrals over [warmup, now], in nanoseconds × count
	lastT          sim.Time
	busyArea, qLen float64

	arrivals, served, waited uint64
	waitSum                  float64
}

// Run simulates cfg and returns its measurements, or the validation error.
func Run(cfg Config) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	m := &model{
		cfg:    cfg,
		loop:   sim.NewLoop(),
		arrive: sim.NewStream(cfg.Seed, "mmc/arrivals"),
		serve:  sim.NewStream(cfg.Seed, "mmc/service"),
		warmup: sim.Time(cfg.Warmup),
		queue:  make([]sim.Time, 64),
	}
	m.loop.At(m.nextArrival(0), m, evArrival, nil)
	horizon := sim.Time(cfg.Horizon)
	m.loop.RunUntil(horizon)
	m.integrate(horizon)
	span := float64(horizon - m.warmup)
	r := Result{
		Arrivals:    m.arrivals,
		Served:      m.served,
		Waited:      m.waited,
		Utilisation: m.busyArea / span / float64(cfg.C),
		MeanInQueue: m.qLen / span,
		ArrivalRate: float64(m.arrivals) / (span / 1e9),
		Events:      m.loop.Fired(),
	}
	if m.served > 0 {
		r.MeanWait = m.waitSum / float64(m.served)
	}
	return r, nil
}

func (m *model) nextArrival(now sim.Time) sim.Time {
	return now + sim.Time(m.arrive.ExpFloat64()/m.cfg.Lambda*1e9)
}

func (m *model) serviceTime() time.Duration {
	return time.Duration(m.serve.ExpFloat64() / m.cfg.Mu * 1e9)
}

// integrate accumulates the busy-server and queue-length areas up to now.
func (m *model) integrate(now sim.Time) {
	from := max(m.lastT, m.warmup)
	if now > from {
		dt := float64(now - from)
		m.busyArea += dt * float64(m.busy)
		m.qLen += dt * float64(m.n)
	}
	m.lastT = now
}

// HandleEvent implements sim.Handler.
func (m *model) HandleEvent(now sim.Time, kind int, _ any) {
	m.integrate(now)
	switch kind {
	case evArrival:
		m.loop.At(m.nextArrival(now), m, evArrival, nil)
		if now >= m.warmup {
			m.arrivals++
		}
		if m.busy < m.cfg.C {
			m.busy++
			m.startService(now, now)
			return
		}
		if now >= m.warmup {
			m.waited++
		}
		m.push(now)
	case evDeparture:
		if m.n == 0 {
			m.busy--
			return
		}
		m.startService(now, m.pop())
	}
}

func (m *model) startService(now, arrived sim.Time) {
	if arrived >= m.warmup {
		m.served++
		m.waitSum += now.Sub(arrived).Seconds()
	}
	m.loop.After(m.serviceTime(), m, evDeparture, nil)
}

func (m *model) push(t sim.Time) {
	if m.n == len(m.queue) { // grow the ring, unrolling it
		q := make([]sim.Time, 2*len(m.queue))
		for i := 0; i < m.n; i++ {
			q[i] = m.queue[(m.head+i)%len(m.queue)]
		}
		m.queue, m.head = q, 0
	}
	m.queue[(m.head+m.n)%len(m.queue)] = t
	m.n++
}

func (m *model) pop() sim.Time {
	t := m.queue[m.head]
	m.head = (m.head + 1) % len(m.queue)
	m.n--
	return t
}

// Package mmc is the built-in M/M/c queue that `simulate mmc` runs on the sim kernel: Poisson
// arrivals at rate λ, c identical servers with exponential service at rate μ each, one FIFO queue
// of unbounded length. It exists to validate the kernel against Erlang C and to measure it.
//
// Units: rates per second, times in virtual nanoseconds (sim.Time); reported waits in seconds.
// Statistics cover customers that arrive at or after the warm-up time.
//
// One run also gives a confidence interval for its mean wait, by the method of batch means
// (Law, Simulation Modeling and Analysis, ch. 9): the measured span [warm-up, horizon] is cut
// into Batches batches of equal length, each customer counted in the batch its arrival falls
// in, and the spread of the batches' mean waits gives the interval (Result.WaitCI).
package mmc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/overloadsim/overloadsim/internal/stats"
	"github.com/overloadsim/overloadsim/sim"
)

// Batches is the number of batches of the batch-means confidence interval for the mean wait.
// Twenty batches of a long enough run are nearly independent and give the Student-t interval
// 19 degrees of freedom; Schmeiser (Operations Research 30(3), 1982) found 10 to 30 batches a
// good choice.
const Batches = 20

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

	// The batches of the batch-means interval (WaitCI): batch b holds the Served customers
	// that arrived in [warm-up + b·L, warm-up + (b+1)·L), L = (horizon − warm-up)/Batches.
	BatchServed  [Batches]uint64  // Served customers per batch
	BatchWaitSum [Batches]float64 // the sum of their waits in queue, seconds
}

// WaitCI returns MeanWait and the half-width of its confidence interval at level (0.95 for
// 95 %) by batch means: Student's t with Batches−1 degrees of freedom on the batches' mean
// waits. As the batches hold different numbers of customers, MeanWait is the ratio of the
// batches' total wait to their total count, and the batches enter as the pseudo-values
// W + (S_b − W·N_b)/N̄ (S_b the batch's total wait, N_b its count, N̄ their mean), whose mean
// is W and whose spread is the ratio estimator's (the delta method); with equal counts they
// are the batch means themselves. The half-width is NaN when no customer was served; it is
// only as good as the batches are independent, which takes batches much longer than the
// wait's autocorrelation time (which grows as 1/(1−ρ)²).
func (r Result) WaitCI(level float64) (mean, half float64) {
	if r.Served == 0 {
		return math.NaN(), math.NaN()
	}
	w := r.MeanWait
	nbar := float64(r.Served) / Batches
	pseudo := make([]float64, Batches)
	for b := range pseudo {
		pseudo[b] = w + (r.BatchWaitSum[b]-float64(w*float64(r.BatchServed[b])))/nbar
	}
	_, half = stats.MeanCI(pseudo, level)
	return w, half
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
	batchLen                 float64 // length of a batch, nanoseconds
	batchServed              [Batches]uint64
	batchWaitSum             [Batches]float64
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
	m.batchLen = float64(cfg.Horizon-cfg.Warmup) / Batches
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

		BatchServed:  m.batchServed,
		BatchWaitSum: m.batchWaitSum,
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
		m.busyArea += float64(dt * float64(m.busy))
		m.qLen += float64(dt * float64(m.n))
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
		wait := now.Sub(arrived).Seconds()
		m.served++
		m.waitSum += wait
		b := min(int(float64(arrived-m.warmup)/m.batchLen), Batches-1)
		m.batchServed[b]++
		m.batchWaitSum[b] += wait
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

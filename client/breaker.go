package client

import (
	"errors"
	"time"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/sim"
)

// CircuitBreaker configures a Couchbase SDK endpoint's circuit breaker (the JVM core's
// CircuitBreakerConfig). The SDK ships it disabled for every service (IoConfig); its own
// defaults, which apply once enabled, are volume threshold 20, error threshold 50 %, sleep
// window 5 s and rolling window 1 min. Only a request that timed out counts as a failure (the
// default completion callback: any response, error or not, is a success).
type CircuitBreaker struct {
	Enabled                  bool
	VolumeThreshold          int           // requests in the window before the ratio counts; ≥ 1
	ErrorThresholdPercentage int           // failed share that opens the circuit, in [1, 100]
	SleepWindow              time.Duration // open for this long before a canary; > 0
	RollingWindow            time.Duration // counts reset after this long; > 0
}

// DefaultCircuitBreaker returns the breaker's own defaults, enabled.
func DefaultCircuitBreaker() CircuitBreaker {
	return CircuitBreaker{Enabled: true, VolumeThreshold: 20, ErrorThresholdPercentage: 50,
		SleepWindow: 5 * time.Second, RollingWindow: time.Minute}
}

// Validate reports every invalid field of an enabled breaker, each as a *field.Error named as
// the SDK spells it under circuitBreaker (circuitBreaker.volumeThreshold), joined with
// errors.Join.
func (c CircuitBreaker) Validate() error {
	if !c.Enabled {
		return nil
	}
	var errs []error
	bad := func(name string, v any, rule string) {
		errs = append(errs, field.New("circuitBreaker."+name, v, rule))
	}
	if c.VolumeThreshold < 1 {
		bad("volumeThreshold", c.VolumeThreshold, "must be ≥ 1")
	}
	if c.ErrorThresholdPercentage < 1 || c.ErrorThresholdPercentage > 100 {
		bad("errorThresholdPercentage", c.ErrorThresholdPercentage, "must be in [1, 100]")
	}
	if c.SleepWindow <= 0 {
		bad("sleepWindow", c.SleepWindow, "must be > 0")
	}
	if c.RollingWindow <= 0 {
		bad("rollingWindow", c.RollingWindow, "must be > 0")
	}
	return errors.Join(errs...)
}

type breakerState uint8

const (
	breakerClosed breakerState = iota
	breakerOpen
	breakerHalfOpen
)

// breaker is the JVM core's LazyCircuitBreaker on virtual time: CLOSED counts requests and
// failures in a rolling window and opens when at least VolumeThreshold requests saw
// ErrorThresholdPercentage failures; OPEN refuses requests until SleepWindow has passed, then
// lets one through as a canary (HALF_OPEN, which refuses the rest); the canary's success closes
// the circuit, its failure opens it again.
type breaker struct {
	cfg           CircuitBreaker
	state         breakerState
	windowStart   sim.Time
	opened        sim.Time
	total, failed int
}

func newBreaker(cfg CircuitBreaker, now sim.Time) *breaker {
	b := &breaker{cfg: cfg}
	b.reset(now)
	return b
}

func (b *breaker) reset(now sim.Time) {
	b.state, b.total, b.failed = breakerClosed, 0, 0
	b.opened = now.Add(-b.cfg.SleepWindow)
	b.windowStart = now.Add(-b.cfg.RollingWindow)
}

// allows reports whether a request may go through now (allowsRequest).
func (b *breaker) allows(now sim.Time) bool {
	return b.state == breakerClosed || b.state == breakerOpen && now.Sub(b.opened) > b.cfg.SleepWindow
}

// track marks a request as sent: an open circuit becomes half-open, this request its canary.
func (b *breaker) track() {
	if b.state == breakerOpen {
		b.state = breakerHalfOpen
	}
}

func (b *breaker) roll(now sim.Time) {
	if now.Sub(b.windowStart) > b.cfg.RollingWindow {
		b.windowStart, b.total, b.failed = now, 0, 0
	}
}

// markSuccess records a tracked request that got a response.
func (b *breaker) markSuccess(now sim.Time) {
	if b.state == breakerHalfOpen {
		b.reset(now)
		return
	}
	b.roll(now)
	b.total++
}

// markFailure records a tracked request that timed out.
func (b *breaker) markFailure(now sim.Time) {
	if b.state == breakerHalfOpen {
		b.state, b.opened = breakerOpen, now
		return
	}
	b.roll(now)
	b.total++
	b.failed++
	if b.total >= b.cfg.VolumeThreshold && int(float32(b.failed)/float32(b.total)*100) >= b.cfg.ErrorThresholdPercentage {
		b.state, b.opened = breakerOpen, now
	}
}

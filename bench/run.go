package bench

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/overloadsim/overloadsim/record"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/scenarios"
	"github.com/overloadsim/overloadsim/sim"
)

// ReplicationSeed returns the run seed of replication r of a scenario run with seed:
//
//	r = 0:  seed itself
//	r ≥ 1:  s1 of sim.StreamSeeds(seed, "replication/<r>")
//
// that is, splitmix64(seed ^ FNV-1a("replication/<r>")). Replication 0 is the plain run, so
// `simulate run --seed S` reproduces it, and every replication's seed (in its run header)
// replays it the same way. The derivation depends only on (seed, r), so a sweep's runs are
// reproducible whatever order or parallelism runs them in.
func ReplicationSeed(seed uint64, r int) uint64 {
	if r == 0 {
		return seed
	}
	s1, _ := sim.StreamSeeds(seed, "replication/"+strconv.Itoa(r))
	return s1
}

// Run runs replication replication of sc with base seed seed (normally sc.Seed): it builds
// the world with the run seed ReplicationSeed(seed, replication), records it every
// sc.Interval, runs the loop to sc.Duration and summarises the measured window (after the fixed
// warm-up, or MSER-5's for warmup: auto). The header names the tool, the scenario and its
// canonical text, the run seed and every random stream the run used.
func Run(sc *scenarios.Scenario, seed uint64, replication int) (*results.Run, error) {
	return RunWith(sc, seed, replication, RunOptions{})
}

// Label names the simulator in a run's header: the tool and its version.
type Label struct {
	Tool, Version string
}

// DefaultLabel is the label of a run made without one (tests, libraries): overloadsim, dev.
func DefaultLabel() Label { return Label{Tool: "overloadsim", Version: "dev"} }

// RunOptions are how a run is made, beyond its scenario and seed. The zero value is a plain run
// labelled DefaultLabel.
type RunOptions struct {
	// Label names the simulator in the header; the command-line tool passes its build's version.
	// Zero: DefaultLabel.
	Label Label
	// Attach, when not nil, sees the built world before the loop runs (to attach a tracer, say).
	// It must not change the model.
	Attach func(*World)
	// Progress, when not nil, is told the virtual time reached, at every hundredth of the
	// horizon: the loop runs up to each in turn, which handles the same events in the same order
	// as one run to the horizon, so the results do not change.
	Progress func(now, horizon time.Duration)
	// Stop, when not nil, is asked between slices of the run (the loop runs to the horizon in
	// slices of virtual time sized to some stopSliceEvents events each, which handles the same
	// events in the same order as one run to the horizon): true stops the run where it stands,
	// and RunWith returns the run so far, summarised up to the virtual time reached and marked
	// Partial, with ErrStopped. It is how a command stops a run that crosses its memory or time
	// limit; it must not change the model.
	Stop func() bool
	// ServerStatus, when not nil, is filled with the run's serverStatus documents and
	// getParameter settings, per MongoDB node (record.StatusLog, Recorder.CollectStatus): a
	// document at time 0, before the load, and one at the end of every interval of the
	// scenario. It changes nothing else: the run's results are the same bytes without it. A
	// stopped run's log ends where the run stopped.
	ServerStatus *record.StatusLog
}

// ErrStopped is returned, with the run so far, by a run that RunOptions.Stop stopped.
var ErrStopped = errors.New("bench: run stopped before its horizon")

// stopSliceEvents is about how many loop events a run with RunOptions.Stop handles between two
// questions: the slices of virtual time double while they hold fewer than half of it and halve
// while they hold more than twice it, so a run whose event rate soars (a queue bomb, a retry
// storm) is still asked every few milliseconds of wall time.
const stopSliceEvents = 1 << 15

// firstSlice is the virtual time of a stoppable run's first slice: short, so even a run of a
// billion operations a second is asked before it has handled many events.
const firstSlice = time.Microsecond

// label returns the options' label, DefaultLabel when unset.
func (o RunOptions) label() Label {
	if o.Label == (Label{}) {
		return DefaultLabel()
	}
	return o.Label
}

// progressSteps is how many times a run with RunOptions.Progress reports.
const progressSteps = 100

// RunWith is Run with options.
func RunWith(sc *scenarios.Scenario, seed uint64, replication int, opts RunOptions) (*results.Run, error) {
	runSeed := ReplicationSeed(seed, replication)
	loop := sim.NewLoop()
	rec := record.New(loop, sc.Interval)
	w, err := Build(sc, runSeed, loop, rec)
	if err != nil {
		return nil, err
	}
	if opts.ServerStatus != nil {
		if err := rec.CollectStatus(w.Cluster, opts.ServerStatus); err != nil {
			return nil, fmt.Errorf("bench: %s: %w", sc.Name, err)
		}
	}
	if opts.Attach != nil {
		opts.Attach(w)
	}
	rec.Start()
	horizon := sim.Time(sc.Duration)
	s := slicer{loop: loop, stop: opts.Stop, span: firstSlice}
	stopped := false
	if opts.Progress != nil {
		for i := 1; i < progressSteps && !stopped; i++ {
			at := sim.Time(int64(sc.Duration) / progressSteps * int64(i))
			stopped = s.runUntil(at)
			opts.Progress(time.Duration(loop.Now()), sc.Duration)
		}
	}
	if !stopped {
		stopped = s.runUntil(horizon)
	}
	if opts.Progress != nil && !stopped {
		opts.Progress(sc.Duration, sc.Duration)
	}
	if stopped {
		horizon = loop.Now()
	}
	series := rec.Finish(horizon)
	series.Recovery = sc.RecoveryRule()
	hdr := results.Header{
		Tool: opts.label().Tool, Version: opts.label().Version,
		Scenario: sc.Name, Description: sc.Description, Claim: sc.Claim,
		Canonical:   sc.String(),
		Seed:        runSeed,
		Replication: replication,
		Streams:     headerStreams(loop),
		StreamRule:  results.StreamRule,
		Duration:    sc.Duration,
		Interval:    sc.Interval,
		Warmup:      sc.Warmup.Fixed,
		WarmupAuto:  sc.Warmup.Auto,
	}
	run := results.NewRun(hdr, series)
	lc := sc.LoadContext(0)
	run.Summary.Capacity = results.Capacity{Today: lc.Today, Ceiling: lc.Ceiling, Source: lc.CeilingSource}
	if exps := sc.Expectations(); len(exps) > 0 {
		run.Summary.Expected = results.Measure(exps, &run.Summary, series)
	}
	if stopped {
		run.Partial = fmt.Sprintf("stopped at %s of %s", time.Duration(horizon), sc.Duration)
		return run, ErrStopped
	}
	return run, nil
}

// slicer runs a loop to a horizon, in slices when stop is set, asking stop before each.
type slicer struct {
	loop *sim.Loop
	stop func() bool
	span time.Duration // the next slice's virtual time
}

// runUntil runs the loop to until, and reports whether stop stopped it first (the clock then
// stands at the end of the last slice run).
func (s *slicer) runUntil(until sim.Time) bool {
	if s.stop == nil {
		s.loop.RunUntil(until)
		return false
	}
	for {
		if s.stop() {
			return true
		}
		next := until
		if now := s.loop.Now(); until.Sub(now) > s.span {
			next = now.Add(s.span)
		}
		n := s.loop.RunUntil(next)
		switch {
		case n > 2*stopSliceEvents && s.span > 1:
			s.span /= 2
		case n < stopSliceEvents/2 && s.span < time.Duration(math.MaxInt64/4):
			s.span *= 2
		}
		if next == until {
			return false
		}
	}
}

// headerStreams lists the streams the loop handed out, as a run's header records them: the
// names and seeds of what ran, taken from the loop rather than spelled a second time, with
// numbered families (a stream per client) collapsed.
func headerStreams(loop *sim.Loop) []results.Stream {
	var out []results.Stream
	for _, s := range loop.Streams() {
		out = append(out, results.Stream{Name: s.Name, S1: s.S1, S2: s.S2})
	}
	return results.CompactStreams(out)
}

package experiment

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/scenarios"
)

// EventsPerCPUSecond is what one core handles of the model, end to end (the reference model's
// benchmark, rounded down), for estimates of how long work would take before refusing it.
const EventsPerCPUSecond = 2e6

// Default limits on the work one command may start: beyond them it is refused before any of it
// runs, with the estimate and the flag that raises the limit.
const (
	DefaultMaxRuns   = 20_000 // runs a map, a search or an estimate starts at most
	DefaultMaxTime   = 4 * time.Hour
	DefaultMaxMemory = 8 << 30
)

// summaryBytes is about what one finished replication's summary holds while a study runs.
const summaryBytes = 16 << 10

// ErrRefused is matched (errors.Is) by every refusal of work up front: the work was never
// started, and a larger limit would let it run.
var ErrRefused = errors.New("experiment: work refused")

// refusal is a refusal of work, worded for the user; it matches ErrRefused.
type refusal struct{ msg string }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

func refuse(format string, a ...any) error { return &refusal{fmt.Sprintf(format, a...)} }

// Limits are the wall time and memory a study may be estimated to need. The refusals name them
// by the command's flags, --max-time and --max-memory, which set them.
type Limits struct {
	MaxTime   time.Duration
	MaxMemory ByteSize
}

// Check refuses, up front, work of runs runs of sc on workers at once, when its estimated time
// or memory exceeds the limits; what says how the runs add up ("12 points × 5 replications").
// The estimate is scenarios.Scenario.Cost per run, at EventsPerCPUSecond per worker.
func (l Limits) Check(sc *scenarios.Scenario, runs float64, workers int, what string) error {
	return l.CheckCost(sc, bench.Estimate(sc), runs, workers, what)
}

// CheckCost is Check with the cost of one run given (a rare-event trajectory's, say, recorded
// at its --step).
func (l Limits) CheckCost(sc *scenarios.Scenario, c bench.Cost, runs float64, workers int, what string) error {
	events := runs * c.Events
	secs := events / EventsPerCPUSecond / float64(max(1, min(float64(workers), runs)))
	mem := float64(c.Bytes*math.Min(float64(workers), runs)) + float64(runs*summaryBytes)
	if runs <= 1 {
		what = "one run"
	}
	s := "s"
	if workers == 1 {
		s = ""
	}
	est := fmt.Sprintf("%s of %s: about %.2g events, %s on %d worker%s and %s of memory",
		what, sc.Name, events, HumanDuration(secs), workers, s, ByteSize(mem))
	switch {
	case secs > l.MaxTime.Seconds():
		return refuse("%s: more than --max-time %s; raise it to run this anyway", est, l.MaxTime)
	case mem > float64(l.MaxMemory):
		return refuse("%s: more than --max-memory %s; raise it to run this anyway", est, l.MaxMemory)
	}
	return nil
}

// RefuseRuns refuses work of more than maxRuns runs of sc, up front, with what it would cost;
// what says how the runs add up ("12 cells × 5 replications"). The refusal names maxRuns by
// the command's flag, --max-runs.
func RefuseRuns(sc *scenarios.Scenario, runs float64, what string, workers, maxRuns int) error {
	if runs <= float64(maxRuns) {
		return nil
	}
	secs := runs * bench.EstimatedEvents(sc) / EventsPerCPUSecond / float64(workers)
	return refuse("%s = %.0f runs, about %s on %d workers: more than --max-runs %d",
		what, runs, HumanDuration(secs), workers, maxRuns)
}

// HumanDuration writes secs as a duration a reader takes in at a glance, however large.
func HumanDuration(secs float64) string {
	switch {
	case math.IsInf(secs, 0) || math.IsNaN(secs) || secs > 1e12:
		return "forever"
	case secs >= 2*86400*365:
		return fmt.Sprintf("%.3g years", secs/(86400*365))
	case secs >= 2*86400:
		return fmt.Sprintf("%.3g days", secs/86400)
	}
	return time.Duration(secs * float64(time.Second)).Round(time.Second).String()
}

// ByteSize is a number of bytes, written and parsed with binary units (KiB, MiB, GiB, TiB); it
// is a pflag.Value.
type ByteSize float64

var byteUnits = []struct {
	name string
	n    float64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// String writes b with three significant figures in the largest unit it reaches: "8 GiB".
func (b ByteSize) String() string {
	v := float64(b)
	if math.IsInf(v, 0) || v > 1<<60 {
		return "more than an exbibyte"
	}
	for _, u := range byteUnits {
		if v >= u.n {
			return strconv.FormatFloat(v/u.n, 'g', 3, 64) + " " + u.name
		}
	}
	return "0 B"
}

// Set parses a size such as 8GiB, 512MiB or 1e9 (bytes).
func (b *ByteSize) Set(s string) error {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range byteUnits {
		if rest, ok := strings.CutSuffix(t, u.name); ok {
			t, mult = strings.TrimSpace(rest), u.n
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return fmt.Errorf("%q: want a size > 0 such as 8GiB, 512MiB or 1e9", s)
	}
	*b = ByteSize(v * mult)
	return nil
}

// Type is the value's name in the flag help.
func (b *ByteSize) Type() string { return "size" }

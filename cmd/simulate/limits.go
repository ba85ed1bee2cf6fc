package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/scenarios"
)

// Default limits on the work one command may start: beyond them it is refused before any of it
// runs, with the estimate and the flag that raises the limit; work that crosses them while it
// runs anyway is stopped (limits.enforce, watchdog.go).
const (
	defaultMaxTime   = 4 * time.Hour
	defaultMaxMemory = 8 << 30
)

// summaryBytes is about what one finished replication's summary holds while a sweep runs.
const summaryBytes = 16 << 10

// limits are a command's --max-time and --max-memory.
type limits struct {
	maxTime   time.Duration
	maxMemory byteSize
}

// addLimitFlags adds --max-time and --max-memory to fs.
func addLimitFlags(fs *pflag.FlagSet) *limits {
	l := &limits{maxTime: defaultMaxTime, maxMemory: defaultMaxMemory}
	fs.DurationVar(&l.maxTime, "max-time", defaultMaxTime, "refuse work estimated to take longer than this (wall time on the workers), and stop work still running after it (exit 1, what finished kept, marked partial)")
	fs.Var(&l.maxMemory, "max-memory", "refuse work estimated to need more memory than this (e.g. 8GiB, 512MiB), and stop work whose memory in use crosses it while running")
	return l
}

// check refuses, up front, work of runs runs of sc on workers at once, when its estimated time
// or memory exceeds the limits; what says how the runs add up ("12 points × 5 replications").
// The estimate is bench.Estimate per run, at eventsPerCPUSecond per worker.
func (l *limits) check(sc *scenarios.Scenario, runs float64, workers int, what string) error {
	return l.checkCost(sc, bench.Estimate(sc), runs, workers, what)
}

// checkCost is check with the cost of one run given (a rare-event trajectory's, say, recorded
// at its --step).
func (l *limits) checkCost(sc *scenarios.Scenario, c bench.Cost, runs float64, workers int, what string) error {
	events := runs * c.Events
	secs := events / eventsPerCPUSecond / float64(max(1, min(float64(workers), runs)))
	mem := c.Bytes*math.Min(float64(workers), runs) + runs*summaryBytes
	if runs <= 1 {
		what = "one run"
	}
	est := fmt.Sprintf("%s of %s: about %.2g events, %s on %d worker%s and %s of memory",
		what, sc.Name, events, humanDuration(secs), workers, plural(workers), byteSize(mem))
	switch {
	case secs > l.maxTime.Seconds():
		return usageErrorf("%s: more than --max-time %s; raise it to run this anyway", est, l.maxTime)
	case mem > float64(l.maxMemory):
		return usageErrorf("%s: more than --max-memory %s; raise it to run this anyway", est, l.maxMemory)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// humanDuration writes secs as a duration a reader takes in at a glance, however large.
func humanDuration(secs float64) string {
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

// byteSize is a number of bytes, written and parsed with binary units (KiB, MiB, GiB, TiB).
type byteSize float64

var byteUnits = []struct {
	name string
	n    float64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

func (b byteSize) String() string {
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
func (b *byteSize) Set(s string) error {
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
	*b = byteSize(v * mult)
	return nil
}

// Type is the value's name in the flag help.
func (b *byteSize) Type() string { return "size" }

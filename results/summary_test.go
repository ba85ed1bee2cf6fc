package results

import (
	"math"
	"testing"
	"time"

	"overloadsim/sim"
)

// goodputSeries returns a series of one group "app" with one-second intervals whose goodput is
// goodput[i] operations/s in interval i (issued = succeeded), and the given triggers.
func goodputSeries(goodput []uint64, faults ...FaultWindow) *Series {
	s := &Series{Interval: time.Second, Faults: faults}
	for i, g := range goodput {
		start := sim.Time(time.Duration(i) * time.Second)
		s.Groups = append(s.Groups, GroupInterval{Start: start, End: start.Add(time.Second), Name: "app",
			Issued: g, Succeeded: g, Attempts: g, TokensMin: math.NaN()})
	}
	return s
}

// repeat returns n copies of v.
func repeat(v uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func seq(parts ...[]uint64) []uint64 {
	var out []uint64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func at(secs float64) sim.Time { return sim.FromSeconds(secs) }

// TestRecoveries: recovery time on synthetic series with known answers (DESIGN §6). Timeline:
// t0 = 0, goodput 100/s; trigger [t1 = 30 s, t2 = 40 s) drops it to 10/s; after t2 it climbs.
func TestRecoveries(t *testing.T) {
	base, down := repeat(100, 30), repeat(10, 10)
	tests := []struct {
		name    string
		goodput []uint64
		faults  []FaultWindow
		outcome RecoveryOutcome
		seconds float64
		pre     float64
	}{
		{"recovers three intervals after the trigger: 97 is within 5 %",
			seq(base, down, []uint64{50, 80, 90, 97, 100}, repeat(100, 15)),
			[]FaultWindow{{"spike", at(30), at(40)}}, Recovered, 3, 100},
		{"a dip after recovery moves recovery to after the dip",
			seq(base, down, []uint64{50, 100, 100, 100, 100, 100, 100, 100, 100, 100, 90}, repeat(100, 9)),
			[]FaultWindow{{"spike", at(30), at(40)}}, Recovered, 11, 100},
		{"never within 5 % by the horizon: did not recover",
			seq(base, down, repeat(50, 20)),
			[]FaultWindow{{"spike", at(30), at(40)}}, NotRecovered, math.NaN(), 100},
		{"unaffected: recovery time 0",
			repeat(100, 60),
			[]FaultWindow{{"blip", at(30), at(40)}}, Recovered, 0, 100},
		{"trigger ending mid-interval: time runs from its end to the next interval start",
			seq(base, down, []uint64{60, 100}, repeat(100, 18)),
			[]FaultWindow{{"spike", at(30), at(39.5)}}, Recovered, 1.5, 100},
		{"instantaneous trigger (stepdown)",
			seq(base, []uint64{0, 0, 0}, repeat(100, 27)),
			[]FaultWindow{{"stepdown", at(30), at(30)}}, Recovered, 3, 100},
		{"pre-trigger level is the mean of the last 10 intervals before the trigger",
			seq(repeat(1000, 20), repeat(100, 10), down, repeat(100, 20)),
			[]FaultWindow{{"spike", at(30), at(40)}}, Recovered, 0, 100},
		{"a trigger at time 0 has no pre-trigger level",
			repeat(100, 20),
			[]FaultWindow{{"boot", 0, at(5)}}, NoBaseline, math.NaN(), math.NaN()},
	}
	for _, tc := range tests {
		s := goodputSeries(tc.goodput, tc.faults...)
		got := Recoveries(s)
		if len(got) != 1 {
			t.Fatalf("%s: %d recoveries, want 1", tc.name, len(got))
		}
		r := got[0]
		if r.Outcome != tc.outcome || !sameFloat(r.Seconds, tc.seconds) || !sameFloat(r.PreGoodput, tc.pre) {
			t.Errorf("%s: Recoveries = %s after %v s (pre %v), want %s after %v s (pre %v)",
				tc.name, r.Outcome, r.Seconds, r.PreGoodput, tc.outcome, tc.seconds, tc.pre)
		}
	}
}

// TestRecoveryStopsAtNextTrigger: a second trigger ends the window in which the first one may
// recover, and the second takes the last intervals before it, still depressed, as its
// pre-trigger level.
func TestRecoveryStopsAtNextTrigger(t *testing.T) {
	s := goodputSeries(seq(repeat(100, 30), repeat(10, 5), repeat(60, 5), repeat(10, 5), repeat(60, 15)),
		FaultWindow{"first", at(30), at(35)}, FaultWindow{"second", at(40), at(45)})
	got := Recoveries(s)
	if got[0].Outcome != NotRecovered {
		t.Errorf("first: %s, want %s (goodput never came back before the second trigger)", got[0].Outcome, NotRecovered)
	}
	if got[1].Outcome != NotRecovered || got[1].PreGoodput != 35 {
		t.Errorf("second: %s, pre %v; want %s, pre 35 (mean of 5×10 and 5×60)", got[1].Outcome, got[1].PreGoodput, NotRecovered)
	}
	s.Groups = goodputSeries(seq(repeat(100, 30), repeat(10, 5), repeat(60, 5), repeat(10, 5), repeat(35, 15))).Groups
	if got := Recoveries(s); got[1].Outcome != Recovered || got[1].Seconds != 0 {
		t.Errorf("second, back to 35/s: %s after %v s, want recovered after 0 s", got[1].Outcome, got[1].Seconds)
	}
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// TestMSER5KnownTransient: a linear ramp over the first 20 observations, then a steady level with
// ±1 alternating noise. MSER-5 removes exactly the four ramp batches: keeping any ramp batch
// adds a squared deviation of at least 15², and removing steady batches only shrinks k − d.
func TestMSER5KnownTransient(t *testing.T) {
	var xs []float64
	for i := 0; i < 20; i++ {
		xs = append(xs, float64(5*i))
	}
	for i := 0; i < 180; i++ {
		xs = append(xs, 100+float64(1-2*(i%2)))
	}
	if got := MSER5(xs); got != 20 {
		t.Errorf("MSER5(ramp then steady) = %d, want 20", got)
	}
	steady := xs[20:]
	if got := MSER5(steady); got != 0 {
		t.Errorf("MSER5(steady) = %d, want 0", got)
	}
	if got := MSER5(xs[:9]); got != 0 {
		t.Errorf("MSER5(9 observations) = %d, want 0 (fewer than two batches)", got)
	}
	// A transient longer than half the series cannot be removed: d stops at k/2.
	long := append(append([]float64{}, make([]float64, 150)...), steady[:50]...)
	for i := range 150 {
		long[i] = float64(i)
	}
	if got := MSER5(long); got > len(long)/2 {
		t.Errorf("MSER5 truncated %d of %d, beyond the first half", got, len(long))
	}
}

// TestAutoWarmup: AutoWarmup applies MSER-5 to the total goodput of all groups and returns the
// start of the first kept interval; Summarize then drops the intervals before it.
func TestAutoWarmup(t *testing.T) {
	var g []uint64
	for i := 0; i < 20; i++ {
		g = append(g, uint64(5*i))
	}
	for i := 0; i < 180; i++ {
		g = append(g, uint64(100+1-2*(i%2)))
	}
	s := goodputSeries(g)
	if got := AutoWarmup(s); got != 20*time.Second {
		t.Errorf("AutoWarmup = %v, want 20s", got)
	}
	sum := Summarize(s, 20*time.Second)
	if sum.Measured != 180*time.Second || sum.Total.Goodput != 100 {
		t.Errorf("Summarize(warmup 20s): measured %v, goodput %v; want 180s, 100", sum.Measured, sum.Total.Goodput)
	}
	// A warm-up inside an interval drops that whole interval.
	if got := Summarize(s, 19500*time.Millisecond).Measured; got != 180*time.Second {
		t.Errorf("Summarize(warmup 19.5s).Measured = %v, want 180s", got)
	}
}

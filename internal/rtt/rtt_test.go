package rtt

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

const ms = time.Millisecond

// TestRTT steps an average through symbolic samples x1, x2, … and checks each value against
// the formula of server-selection.md, Calculation of Average Round Trip Times: the first
// sample is taken as is, then new = 0.2·x + 0.8·old; a server that becomes unavailable has no
// average.
func TestRTT(t *testing.T) {
	type step struct {
		gloss  string
		add    time.Duration // the sample added; -1: Reset instead
		want   time.Duration
		wantOK bool
	}
	steps := []step{
		{gloss: "x1 = 10ms is taken as is", add: 10 * ms, want: 10 * ms, wantOK: true},
		{gloss: "x2 = 20ms: 0.2·20 + 0.8·10 = 12ms", add: 20 * ms, want: 12 * ms, wantOK: true},
		{gloss: "x3 = 2ms: 0.2·2 + 0.8·12 = 10ms", add: 2 * ms, want: 10 * ms, wantOK: true},
		{gloss: "x4 = 10ms: the average stays", add: 10 * ms, want: 10 * ms, wantOK: true},
		{gloss: "Reset: the server became unavailable, no average", add: -1, want: 0, wantOK: false},
		{gloss: "x5 = 7ms after Reset is taken as is", add: 7 * ms, want: 7 * ms, wantOK: true},
		{gloss: "x6 = 0: 0.8·7ms = 5.6ms", add: 0, want: 5600 * time.Microsecond, wantOK: true},
		{gloss: "Reset", add: -1, want: 0, wantOK: false},
		{gloss: "x7 = 0 is a valid first sample", add: 0, want: 0, wantOK: true},
		{gloss: "x8 = 3ns: 0.6ns rounds up to 1ns", add: 3, want: 1, wantOK: true},
		{gloss: "x9 = 0: 0.8ns rounds to 1ns", add: 0, want: 1, wantOK: true},
		{gloss: "x10 = 9ns: 0.2·9 + 0.8·1 = 2.6ns rounds to 3ns", add: 9, want: 3, wantOK: true},
		{gloss: "x11 = 0: 0.8·3 = 2.4ns rounds to 2ns", add: 0, want: 2, wantOK: true},
	}
	var avg Average
	if v, ok := avg.Value(); v != 0 || ok {
		t.Fatalf("zero RTT: Value() = %v, %v, want 0, false", v, ok)
	}
	for i, s := range steps {
		if s.add < 0 {
			avg.Reset()
		} else {
			avg.Add(s.add)
		}
		if v, ok := avg.Value(); v != s.want || ok != s.wantOK {
			t.Errorf("step %d (%s): Value() = %v, %v, want %v, %v", i, s.gloss, v, ok, s.want, s.wantOK)
		}
	}
}

// TestRTTMatchesRealEWMA checks the integer average against the real-valued formula on random
// sample streams. Each step rounds by at most 0.4 ns and scales older errors by 0.8, so the
// error e obeys |e| ≤ 0.8·|e| + 0.4, i.e. |e| ≤ 2 ns at all times.
func TestRTTMatchesRealEWMA(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for seq := range 1000 {
		var avg Average
		var exact float64
		for n := range 200 {
			x := time.Duration(r.Int64N(int64(time.Second)))
			if seq%2 == 0 {
				x = time.Duration(r.Int64N(20)) // tiny samples, where rounding matters most
			}
			avg.Add(x)
			if n == 0 {
				exact = float64(x)
			} else {
				exact = float64(0.2*float64(x)) + float64(0.8*exact)
			}
			if v, _ := avg.Value(); math.Abs(float64(v)-exact) >= 2 {
				t.Fatalf("sequence %d, sample %d: average %d ns, exact-valued %.3f ns: off by ≥ 2 ns", seq, n, v, exact)
			}
		}
	}
}

// TestRTTExtremes checks that samples at the ends of the Duration range neither overflow nor
// leave the range of the samples.
func TestRTTExtremes(t *testing.T) {
	var avg Average
	for i := range 100 {
		x := time.Duration(0)
		if i%2 == 0 {
			x = math.MaxInt64
		}
		avg.Add(x)
		if v, _ := avg.Value(); v < 0 {
			t.Fatalf("sample %d: average %d < 0", i, v)
		}
	}
}

func TestRTTNegativeSamplePanics(t *testing.T) {
	defer func() {
		if got := recover(); got != panicNegativeRTT {
			t.Errorf("Add(-1ns) panicked with %v, want %q", got, panicNegativeRTT)
		}
	}()
	var avg Average
	avg.Add(-1)
}

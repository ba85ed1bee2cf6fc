package results

import (
	"math"
	"slices"
	"testing"
	"time"
)

// These tests pin single clauses of the recovery verdict (Recoveries, documented on Recoveries
// and in docs/metrics.md §13) that the broader tests in recovery_test.go would let change
// unnoticed. Each builds a small series by hand on the timeline of recovery_test.go: goodput
// 100/s in one-second intervals before the trigger, so the band is 100 ± 30 = [70, 130].

// recSpanSeries returns the usual 30 s baseline at 100/s, the trigger [30 s, 40 s) at 10/s, and
// after it the given goodput.
func recSpanSeries(after []uint64) *Series {
	return goodputSeries(seq(base, down, after), trigger)
}

// recAddServer adds one server "db" with a worker capacity of 8 to s, its interval i set by
// set (intervals are one second long, so QueueArea is interval i's mean worker backlog).
func recAddServer(s *Series, set func(i int, v *ServerInterval)) {
	for i, g := range s.Groups {
		v := ServerInterval{Start: g.Start, End: g.End, Name: "db", CapacityArea: 8}
		if set != nil {
			set(i, &v)
		}
		s.Servers = append(s.Servers, v)
	}
}

// recWiggle is a zero-mean pattern over a 10-interval window that is orthogonal to time: added
// to a straight line it leaves the least-squares line unchanged and adds 8·r² to the squared
// residuals of a wiggle of amplitude r. Over t = 0…9 s, Σ(t − 4.5)² = 82.5, so the slope b has
// standard error √(8r²/8/82.5) = r/√82.5 and lies b·√82.5/r standard errors from zero.
var recWiggle = [10]float64{1, -1, -1, 1, 0, 0, 1, -1, -1, 1}

// recSlopeT is the least-squares slope of ys (one second apart) and its distance from zero in
// standard errors, computed here independently of trend to check each case's premise.
func recSlopeT(ys []float64) (slope, tStat float64) {
	n := float64(len(ys))
	var tm, ym float64
	for i, y := range ys {
		tm += float64(i) / n
		ym += y / n
	}
	var sxx, sxy float64
	for i, y := range ys {
		sxx += (float64(i) - tm) * (float64(i) - tm)
		sxy += (float64(i) - tm) * (y - ym)
	}
	slope = sxy / sxx
	var sse float64
	for i, y := range ys {
		r := y - ym - slope*(float64(i)-tm)
		sse += r * r
	}
	return slope, slope / math.Sqrt(sse/(n-2)/sxx)
}

// recWiggleExact is another such pattern, with Σ r² = 660 = 8 · 82.5: added at amplitude a to a
// line it gives the slope a standard error of exactly a, in floating point too.
var recWiggleExact = [10]float64{8, -9, 6, -11, 12, -8, 2, -1, -8, 9}

// recScaled returns a·pattern.
func recScaled(a float64, pattern [10]float64) [10]float64 {
	for i := range pattern {
		pattern[i] *= a
	}
	return pattern
}

// TestRecoveryDrainingNeedsThreeStandardErrors pins the third stuck clause (Recoveries doc,
// "Stuck"; docs/metrics.md §13.6 item 3; DrainT): the worker backlog counts as draining only
// when its least-squares slope over the stuck window is below zero by 3 standard errors. A
// backlog that falls steadily but wanders about its line is stuck; only a fall that stands out
// of its wandering by more than three standard errors makes the run undecided, with the time to
// drain to the pre-trigger level plus a hold. A slope exactly 3 standard errors below zero is
// not draining (decided here: the documents say "below zero by 3 standard errors", which does
// not settle the edge; the code compares strictly).
//
// Goodput is 0 after the trigger, so the slow-recovery clause never applies. The backlog is 10
// before the trigger and 1000 + slope·t + wiggle(t) over the window t = 0…9 s (40…49 s). At
// −10/s the line ends at 910, 90 s of draining from 10, so draining is undecided with 90 + 5 s
// more. A wiggle r·recWiggle puts the slope −10·√82.5/r standard errors from zero.
func TestRecoveryDrainingNeedsThreeStandardErrors(t *testing.T) {
	tests := []struct {
		name    string
		slope   float64     // the backlog's line, per second
		wiggle  [10]float64 // the backlog's wandering about its line
		tStat   float64     // the slope in standard errors, to 2 decimals (the case's premise)
		outcome RecoveryOutcome
		more    float64
	}{
		{"a straight fall, no wiggle, drains", -10, [10]float64{}, math.Inf(-1), Undecided, 90 + 5},
		{"a fall 4.5 standard errors below zero drains", -10, recScaled(20, recWiggle), -4.54, Undecided, 90 + 5},
		{"a fall 3.1 standard errors below zero drains", -10, recScaled(29, recWiggle), -3.13, Undecided, 90 + 5},
		{"a fall exactly 3 standard errors below zero is not draining: stuck", -30, recScaled(10, recWiggleExact), -3, Stuck, math.NaN()},
		{"a fall 2.9 standard errors below zero only wanders: stuck", -10, recScaled(31, recWiggle), -2.93, Stuck, math.NaN()},
		{"a fall 2 standard errors below zero only wanders: stuck", -10, recScaled(45, recWiggle), -2.02, Stuck, math.NaN()},
		{"a fall 1.1 standard errors below zero only wanders: stuck", -10, recScaled(80, recWiggle), -1.14, Stuck, math.NaN()},
	}
	for _, tc := range tests {
		s := recSpanSeries(repeat(0, 10))
		var window []float64
		recAddServer(s, func(i int, v *ServerInterval) {
			v.QueueArea = 10
			if i >= 40 {
				v.QueueArea = 1000 + tc.slope*float64(i-40) + tc.wiggle[i-40]
				window = append(window, v.QueueArea)
			}
		})
		if slope, ts := recSlopeT(window); !near(slope, tc.slope) || math.Abs(ts-tc.tStat) > 0.005 && !math.IsInf(tc.tStat, -1) {
			t.Fatalf("%s: premise: backlog slope %v at %.3f standard errors, want %v at %.2f", tc.name, slope, ts, tc.slope, tc.tStat)
		}
		r := Recoveries(s)[0]
		if r.Outcome != tc.outcome || !near(r.MoreSeconds, tc.more) {
			t.Errorf("%s: Recoveries(backlog slope %v/s at %.2f SE) = %s, %v s more, want %s, %v s more (draining needs the slope more than %d standard errors below zero)",
				tc.name, tc.slope, tc.tStat, r.Outcome, r.MoreSeconds, tc.outcome, tc.more, DrainT)
		}
	}
}

// TestRecoverySlowRecoveryHorizonIsTheWindow pins the second stuck clause (package doc,
// Recovery; Recoveries doc, "Stuck"; docs/metrics.md §13.6 item 2): goodput below the band is a slow recovery, not a stuck
// state, when a least-squares line through the stuck window reaches the band within another
// Window — the stuck window, whatever the hold. Reaching the band exactly one Window on counts as
// within it (decided here: the documents say "within"). A slow recovery is undecided with the
// time to reach the band, rounded up to whole intervals, plus a hold.
//
// Each case climbs linearly over the 10 intervals after the trigger, so the line ends at its
// last value and reaches the band's lower edge 70 after (70 − last) ÷ step seconds.
func TestRecoverySlowRecoveryHorizonIsTheWindow(t *testing.T) {
	tests := []struct {
		name       string
		from, step uint64
		rule       RecoveryRule
		outcome    RecoveryOutcome
		more       float64
	}{
		{"reaches 70 in 6 s: past a 5 s hold, within a 10 s window", 10, 4, RecoveryRule{}, Undecided, 6 + 5},
		{"reaches 70 in exactly 10 s, one window: within it", 13, 3, RecoveryRule{}, Undecided, 10 + 5},
		{"reaches 70 in 11 s, past a 10 s window: stuck", 10, 3, RecoveryRule{}, Stuck, math.NaN()},
		{"reaches 70 in 11 s: a 20 s hold does not stretch a 10 s window", 10, 3, RecoveryRule{Hold: 20 * time.Second}, Stuck, math.NaN()},
		{"reaches 70 in 6 s: a 1 s hold does not shorten a 10 s window", 10, 4, RecoveryRule{Hold: time.Second}, Undecided, 6 + 1},
	}
	for _, tc := range tests {
		s := recSpanSeries(ramp(tc.from, tc.step, 10))
		s.Recovery = tc.rule
		r := Recoveries(s)[0]
		if r.Outcome != tc.outcome || !near(r.MoreSeconds, tc.more) {
			t.Errorf("%s: Recoveries(goodput %d + %d/s per s, %+v) = %s, %v s more, want %s, %v s more (the horizon is the stuck window)",
				tc.name, tc.from, tc.step, tc.rule, r.Outcome, r.MoreSeconds, tc.outcome, tc.more)
		}
	}
}

// TestRecoveryOverlappingTriggerDoesNotCutSpan pins the examined span (Recoveries doc, "Examined
// span"; docs/metrics.md §13.4): it ends where the next trigger starts, counting as next only a
// trigger that starts at or after this one's end and after its start. A trigger that starts
// while this one lasts, or at the same instant as an instantaneous one, does not cut it; the
// earliest later trigger does, whatever others follow.
func TestRecoveryOverlappingTriggerDoesNotCutSpan(t *testing.T) {
	type want struct {
		outcome RecoveryOutcome
		seconds float64 // recovery time, or MoreSeconds when undecided
	}
	tests := []struct {
		name    string
		goodput []uint64
		faults  []FaultWindow
		want    want // for the first trigger
	}{
		{"a trigger inside this one: recovered at once after it",
			seq(base, down, repeat(100, 20)),
			[]FaultWindow{trigger, {"inside", at(33), at(36)}}, want{Recovered, 0}},
		{"a trigger starting during this one and outlasting it: recovered 5 s after this one's end",
			seq(base, down, repeat(10, 5), repeat(100, 15)),
			[]FaultWindow{trigger, {"overlap", at(35), at(45)}}, want{Recovered, 5}},
		{"two instantaneous triggers at one instant: recovered 3 s after",
			seq(base, repeat(0, 3), repeat(100, 27)),
			[]FaultWindow{{"limiter", at(30), at(30)}, {"stepdown", at(30), at(30)}}, want{Recovered, 3}},
		// Controls: a trigger at or after this one's end does cut the span.
		{"a trigger at this one's end: nothing examined, a hold's worth more",
			seq(base, down, repeat(100, 20)),
			[]FaultWindow{trigger, {"next", at(40), at(41)}}, want{Undecided, 5}},
		{"the earliest of two later triggers ends the span: stuck below the band before it",
			seq(base, down, repeat(10, 10), repeat(100, 20)),
			[]FaultWindow{trigger, {"second", at(50), at(51)}, {"third", at(60), at(61)}}, want{Stuck, math.NaN()}},
	}
	for _, tc := range tests {
		got := Recoveries(goodputSeries(tc.goodput, tc.faults...))
		if len(got) != len(tc.faults) {
			t.Fatalf("%s: %d recoveries, want %d", tc.name, len(got), len(tc.faults))
		}
		// Instantaneous triggers at one instant are each other's case: check both.
		n := 1
		if tc.faults[1].Start == tc.faults[0].Start {
			n = 2
		}
		for _, r := range got[:n] {
			secs := r.Seconds
			if r.Outcome == Undecided {
				secs = r.MoreSeconds
			}
			if r.Outcome != tc.want.outcome || !near(secs, tc.want.seconds) {
				t.Errorf("%s: Recoveries(%v)[%s] = %s, %v s, want %s, %v s (only a trigger from this one's end on cuts its span)",
					tc.name, tc.faults, r.Fault, r.Outcome, secs, tc.want.outcome, tc.want.seconds)
			}
		}
	}
}

// recStuckSeries returns a run stuck at 10/s after the trigger, with the group's counters and
// one server's in each interval of the stuck window (40…49 s) set by group and server.
func recStuckSeries(group func(g *GroupInterval), server func(v *ServerInterval)) *Series {
	s := recSpanSeries(repeat(10, 10))
	for i := range s.Groups {
		if g := &s.Groups[i]; g.Start >= at(40) && group != nil {
			group(g)
		}
	}
	recAddServer(s, func(i int, v *ServerInterval) {
		if v.Start >= at(40) && server != nil {
			server(v)
		}
	})
	return s
}

// TestRecoveryStuckRejectShareCountsEveryRefusal pins the stuck state's reject share
// (docs/metrics.md §13.8 and §9.2): limiter rejections ÷ attempts, where limiter rejections are
// request-limiter rejections, worker-queue overflows and connections closed by the establishment
// limiter, all three. 60 refusals per 100 attempts name "rejections" as sustaining the state,
// whichever limiter refuses.
func TestRecoveryStuckRejectShareCountsEveryRefusal(t *testing.T) {
	tests := []struct {
		name   string
		refuse func(v *ServerInterval)
	}{
		{"request limiter", func(v *ServerInterval) { v.RejectedAdmissions = 60 }},
		{"queue overflows", func(v *ServerInterval) { v.QueueOverflows = 60 }},
		{"connection limiter", func(v *ServerInterval) { v.ConnRejected = 60 }},
		{"all three", func(v *ServerInterval) { v.RejectedAdmissions, v.QueueOverflows, v.ConnRejected = 20, 20, 20 }},
	}
	for _, tc := range tests {
		s := recStuckSeries(func(g *GroupInterval) { g.Issued, g.Attempts = 100, 100 }, tc.refuse)
		r := Recoveries(s)[0]
		if r.Outcome != Stuck {
			t.Fatalf("%s: outcome %s, want stuck", tc.name, r.Outcome)
		}
		if st := r.Stuck; !near(st.RejectShare, 0.6) || !slices.Equal(st.SustainedBy, []string{"rejections"}) {
			t.Errorf("%s: Recoveries(60 refusals per 100 attempts).Stuck = reject share %v, sustained by %v, want 0.6, [rejections] (every limiter's refusals count)",
				tc.name, st.RejectShare, st.SustainedBy)
		}
	}
}

// TestRecoveryDrainEstimateFromMeanPreTriggerBacklog pins the undecided estimate for a draining
// backlog (Recoveries doc, "Undecided"; docs/metrics.md §13.7): the time the backlog needs to
// drain to its pre-trigger level, plus a hold. The pre-trigger level is the mean backlog of the
// baseline intervals — the last PreTriggerIntervals whole intervals before the trigger, fewer
// when it comes earlier (decided here: the documents say only "pre-trigger level"; these are the
// intervals that define the pre-trigger goodput).
//
// The trigger lasts 10 s from the end of the baseline; after it goodput is 0 and the backlog
// falls in a straight line 1000 − 10t over the 10-interval window, ending at 910.
func TestRecoveryDrainEstimateFromMeanPreTriggerBacklog(t *testing.T) {
	tests := []struct {
		name     string
		baseline int                 // intervals before the trigger
		pre      func(i int) float64 // backlog in baseline interval i
		more     float64
	}{
		{"10 throughout: 90 s from 910", 30, func(int) float64 { return 10 }, 90 + 5},
		{"0 and 20 by turns: the mean 10, not the last value", 30, func(i int) float64 { return float64(20 * (i % 2)) }, 90 + 5},
		{"500, then 10 over the last 10 intervals: only the last 10 count", 30, func(i int) float64 {
			if i < 20 {
				return 500
			}
			return 10
		}, 90 + 5},
		{"a trigger after 5 intervals: the mean of those 5", 5, func(int) float64 { return 10 }, 90 + 5},
		{"a trigger after 5 intervals of 0 and 50 by turns: mean 20", 5, func(i int) float64 { return float64(50 * (i % 2)) }, 89 + 5},
		{"1000 before: already at the pre-trigger level, a hold more", 30, func(int) float64 { return 1000 }, 0 + 5},
	}
	for _, tc := range tests {
		n := tc.baseline
		s := goodputSeries(seq(repeat(100, n), repeat(10, 10), repeat(0, 10)), FaultWindow{"cut", at(float64(n)), at(float64(n + 10))})
		recAddServer(s, func(i int, v *ServerInterval) {
			switch {
			case i < n:
				v.QueueArea = tc.pre(i)
			case i >= n+10:
				v.QueueArea = 1000 - 10*float64(i-n-10)
			default:
				v.QueueArea = 1000
			}
		})
		r := Recoveries(s)[0]
		if r.Outcome != Undecided || !near(r.MoreSeconds, tc.more) {
			t.Errorf("%s: Recoveries(backlog 910 falling 10/s) = %s, %v s more, want undecided, %v s more (drain to the mean pre-trigger backlog, plus a hold)",
				tc.name, r.Outcome, r.MoreSeconds, tc.more)
		}
	}
}

// TestRecoverySustainersAtTheirThresholds pins the thresholds that name what sustains a stuck
// state (docs/metrics.md §13.8 table; the Sustain… constants), each on both sides of its edge:
// "retries" at amplification ≥ 1.5, "abandonedWork" at wasted share ≥ 0.25, "rejections" at
// ≥ 0.5 of attempts refused, "emptyRetryBuckets" below 1 token (1 exactly is not empty). Each
// case sets the counters in every interval of the stuck window; 100 operations issued each.
func TestRecoverySustainersAtTheirThresholds(t *testing.T) {
	tests := []struct {
		name   string
		group  func(g *GroupInterval)
		server func(v *ServerInterval)
		want   []string
	}{
		{"amplification 1.5: retries", func(g *GroupInterval) { g.Attempts = 150 }, nil, []string{"retries"}},
		{"amplification 1.49: none", func(g *GroupInterval) { g.Attempts = 149 }, nil, nil},
		{"wasted share 0.25: abandoned work", nil, func(v *ServerInterval) { v.WastedBusy = 2 * time.Second }, []string{"abandonedWork"}},
		{"wasted share 0.24: none", nil, func(v *ServerInterval) { v.WastedBusy = 1920 * time.Millisecond }, nil},
		{"half the attempts refused: rejections", nil, func(v *ServerInterval) { v.RejectedAdmissions = 50 }, []string{"rejections"}},
		{"49 % refused: none", nil, func(v *ServerInterval) { v.RejectedAdmissions = 49 }, nil},
		{"0.99 tokens: empty retry buckets", func(g *GroupInterval) { g.TokensN, g.TokensSum = 100, 99 }, nil, []string{"emptyRetryBuckets"}},
		{"1 token: none", func(g *GroupInterval) { g.TokensN, g.TokensSum = 100, 100 }, nil, nil},
	}
	for _, tc := range tests {
		s := recStuckSeries(func(g *GroupInterval) {
			g.Issued, g.Attempts = 100, 100
			if tc.group != nil {
				tc.group(g)
			}
		}, tc.server)
		r := Recoveries(s)[0]
		if r.Outcome != Stuck {
			t.Fatalf("%s: outcome %s, want stuck", tc.name, r.Outcome)
		}
		if st := r.Stuck; !slices.Equal(st.SustainedBy, tc.want) {
			t.Errorf("%s: Recoveries(…).Stuck.SustainedBy = %v, want %v (amplification %v, wasted %v, rejected %v, tokens %v)",
				tc.name, st.SustainedBy, tc.want, st.Amplification, st.WastedShare, st.RejectShare, st.RetryTokens)
		}
	}
}

// TestRecoveryRelapse pins the rule that a verdict holds to the end of the examined span
// (Recoveries doc, "Recovered" and "Relapsed"; docs/metrics.md §13.5 and §13.9): after a hold,
// a span that ends in a stuck state by the stuck rule is a relapse — stuck, not recovered —
// with when it recovered and when it fell; a span that ends below the band too soon after a
// hold to tell is undecided, with both times; a dip that goodput comes back from, or a span that
// ends above the band, is still a recovery. The timeline: the band is [70, 130], the trigger
// ends at 40 s, and goodput is back in the band from 40 s.
func TestRecoveryRelapse(t *testing.T) {
	tests := []struct {
		name           string
		after          []uint64
		outcome        RecoveryOutcome
		seconds        float64 // Seconds when recovered, MoreSeconds when undecided
		recovered, fel float64 // RecoveredSeconds, RelapseSeconds
		share          float64 // the stuck state's goodput share; NaN unless stuck
	}{
		{"held 5 s, then 10 s at 10/s to the end: relapsed at 5 s", seq(repeat(100, 5), repeat(10, 10)), Relapsed, math.NaN(), 0, 5, 0.1},
		{"held 8 s, then 12 s at 0/s: relapsed at 8 s, the window is the last 10", seq(repeat(100, 8), repeat(0, 12)), Relapsed, math.NaN(), 0, 8, 0},
		{"a dip of 3 s that comes back: recovered", seq(repeat(100, 5), repeat(10, 3), repeat(100, 12)), Recovered, 0, math.NaN(), math.NaN(), math.NaN()},
		{"a dip of 12 s that comes back for one interval: recovered", seq(repeat(100, 5), repeat(10, 12), repeat(100, 1)), Recovered, 0, math.NaN(), math.NaN(), math.NaN()},
		{"ends 4 s below the band: undecided, 6 s more to fill a stuck window", seq(repeat(100, 10), repeat(10, 4)), Undecided, 6, 0, 10, math.NaN()},
		{"ends 10 s below the band, climbing back fast: undecided, 3 + 5 s more", seq(repeat(100, 5), ramp(10, 5, 10)), Undecided, 3 + 5, 0, 5, math.NaN()},
		{"ends above the band: recovered", seq(repeat(100, 5), repeat(200, 15)), Recovered, 0, math.NaN(), math.NaN(), math.NaN()},
		{"no hold, 15 s below: stuck, not relapsed", repeat(10, 15), Stuck, math.NaN(), math.NaN(), math.NaN(), 0.1},
		{"held after 3 s below, then relapsed at 9 s", seq(repeat(10, 3), repeat(100, 6), repeat(20, 10)), Relapsed, math.NaN(), 3, 9, 0.2},
	}
	for _, tc := range tests {
		r := Recoveries(recSpanSeries(tc.after))[0]
		secs := r.Seconds
		if tc.outcome == Undecided {
			secs = r.MoreSeconds
		}
		if r.Outcome != tc.outcome || !sameFloat(secs, tc.seconds) || !sameFloat(r.RecoveredSeconds, tc.recovered) ||
			!sameFloat(r.RelapseSeconds, tc.fel) || !sameFloat(r.Stuck.GoodputShare, tc.share) {
			t.Errorf("%s: %s, %v s, recovered at %v s, fell at %v s, stuck share %v; want %s, %v s, %v s, %v s, %v",
				tc.name, r.Outcome, secs, r.RecoveredSeconds, r.RelapseSeconds, r.Stuck.GoodputShare,
				tc.outcome, tc.seconds, tc.recovered, tc.fel, tc.share)
		}
	}
}

// TestRecoveryOutcomeStuck pins which outcomes count as stuck (RecoveryOutcome.Stuck;
// docs/metrics.md §13.9, §15): Stuck and Relapsed, no other — and so the catalogue's `stuck`
// indicator, which sweeps, maps and tipping points count.
func TestRecoveryOutcomeStuck(t *testing.T) {
	stuck, _ := LookupMetric("fault.x.stuck")
	relapsed, _ := LookupMetric("fault.x.relapsed")
	tests := []struct {
		o                  RecoveryOutcome
		want               bool
		stuckInd, relapInd float64
	}{
		{Recovered, false, 0, 0},
		{Stuck, true, 1, 0},
		{Relapsed, true, 1, 1},
		{Undecided, false, 0, 0},
		{NoBaseline, false, math.NaN(), math.NaN()},
	}
	for _, tc := range tests {
		r := &Recovery{Outcome: tc.o}
		if got := tc.o.Stuck(); got != tc.want {
			t.Errorf("%s.Stuck() = %v, want %v", tc.o, got, tc.want)
		}
		if got := stuck.fault(r); !sameFloat(got, tc.stuckInd) {
			t.Errorf("stuck indicator of %s = %v, want %v", tc.o, got, tc.stuckInd)
		}
		if got := relapsed.fault(r); !sameFloat(got, tc.relapInd) {
			t.Errorf("relapsed indicator of %s = %v, want %v", tc.o, got, tc.relapInd)
		}
	}
}

// recDriverSeries is goodput 100/s for 30 s, a trigger [30 s, 40 s) at 10/s, then 0/s for 20 s,
// with one server whose worker backlog is server(i) and a driver queue of driver(i) in
// interval i.
func recDriverSeries(server, driver func(i int) float64) *Series {
	s := recSpanSeries(repeat(0, 20))
	for i := range s.Groups {
		s.Groups[i].DriverQueue = int(driver(i))
	}
	recAddServer(s, func(i int, v *ServerInterval) { v.QueueArea = server(i) })
	return s
}

// TestRecoveryDriverBacklogDrains pins that the drain test looks at the total backlog, the
// servers' worker queues plus the operations waiting in the drivers (Recoveries doc, "Stuck";
// docs/metrics.md §13.6 item 3, §7 driver_queue): a server queue that holds steady at the
// pool's size while the drivers' wait queues drain steadily is a long outage, undecided with
// the time the total needs to drain to its pre-trigger level, not a stuck state; the same
// server queue with a driver queue that holds or grows is stuck, and the stuck state reports
// the driver backlog.
func TestRecoveryDriverBacklogDrains(t *testing.T) {
	// The server holds 100 − 8 workers = 92 requests, wiggling ±5, before and after; the
	// driver queue is 0 before the trigger.
	server := func(i int) float64 {
		if i < 30 {
			return 0
		}
		return 92 + 5*recWiggle[i%10]
	}
	tests := []struct {
		name    string
		driver  func(i int) float64 // from the trigger's end (i ≥ 40); 0 before
		outcome RecoveryOutcome
		more    float64
		backlog float64 // the stuck state's driver backlog, NaN unless stuck
	}{
		// From 2000 at 40 s falling 50/s: 1050 at the window's last interval (59 s), and the
		// total 92 + 1050 = 1142 (the wiggle leaves the line alone) drains to the pre-trigger
		// 0 in 22.84 s → 23 s, plus a hold of 5. The server queue alone would say stuck.
		{"draining 50/s in the drivers", func(i int) float64 { return 2000 - 50*float64(i-40) }, Undecided, 23 + 5, math.NaN()},
		{"holding at 2000 in the drivers", func(i int) float64 { return 2000 + 10*recWiggle[i%10] }, Stuck, math.NaN(), 2000},
		{"growing in the drivers", func(i int) float64 { return 100 * float64(i) }, Stuck, math.NaN(), 100 * 54.5},
	}
	for _, tc := range tests {
		s := recDriverSeries(server, func(i int) float64 {
			if i < 40 {
				return 0
			}
			return tc.driver(i)
		})
		r := Recoveries(s)[0]
		if r.Outcome != tc.outcome || !sameFloat(r.MoreSeconds, tc.more) || !sameFloat(r.Stuck.DriverBacklog, tc.backlog) {
			t.Errorf("%s: %s, %v s more, driver backlog %v; want %s, %v s more, %v",
				tc.name, r.Outcome, r.MoreSeconds, r.Stuck.DriverBacklog, tc.outcome, tc.more, tc.backlog)
		}
	}
}

// TestRecoveryDescribeRelapse: the words for a recovery that did not last say when it recovered
// and when it fell (docs/metrics.md §13.9), and a stuck state held partly in the drivers says
// how much waits there.
func TestRecoveryDescribeRelapse(t *testing.T) {
	relapsed := Recoveries(recSpanSeries(seq(repeat(100, 5), repeat(10, 10))))[0]
	fell := Recoveries(recSpanSeries(seq(repeat(100, 10), repeat(10, 4))))[0]
	inDrivers := Recoveries(recDriverSeries(func(int) float64 { return 0 }, func(i int) float64 {
		if i < 40 {
			return 0
		}
		return 2000
	}))[0]
	tests := []struct {
		r    Recovery
		want string
	}{
		{relapsed, "recovered 0 s after it ended, then relapsed 5 s after it: stuck at 10 % of pre-trigger goodput, amplification 1.00, backlog 0"},
		{fell, "recovered 0 s after it ended, then fell below the band 10 s after it; undecided: run about 6 s longer to tell"},
		{inDrivers, "stuck at 0 % of pre-trigger goodput, amplification NaN, backlog 0 (and 2000 waiting in the drivers)"},
	}
	for _, tc := range tests {
		if got := tc.r.Describe(); got != tc.want {
			t.Errorf("%s: Describe() = %q, want %q", tc.r.Outcome, got, tc.want)
		}
	}
}

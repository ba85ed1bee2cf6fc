package results

import (
	"fmt"
	"math"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// RecoveryOutcome says how the run came out after a trigger. Each outcome is a result, not an
// error.
type RecoveryOutcome string

// Recovery outcomes.
const (
	// Recovered: goodput came back within the band, held there for the hold time, and the
	// examined span does not end below the band after it.
	Recovered RecoveryOutcome = "recovered"
	// Stuck: a sustained degraded state — goodput below the band for the whole stuck window at
	// the end of the examined span, and not climbing back fast enough to reach the band within
	// another window (a metastable failure, or a permanent loss of capacity).
	Stuck RecoveryOutcome = "stuck"
	// Relapsed: goodput recovered (held in the band for the hold time), then fell below the
	// band again and the examined span ends in a stuck state by the stuck rule. It counts as
	// stuck wherever stuck runs are counted (RecoveryOutcome.Stuck): a recovery that does not
	// last to the end of the span is not one.
	Relapsed RecoveryOutcome = "relapsed"
	// Undecided: the examined span ended too soon to tell; Recovery.MoreSeconds says how much
	// longer to run.
	Undecided RecoveryOutcome = "undecided"
	// NoBaseline: no whole interval before the trigger to compare with.
	NoBaseline RecoveryOutcome = "noBaseline"
)

// Stuck reports whether the outcome is a sustained degraded state at the end of the examined
// span: Stuck, or Relapsed (stuck after a recovery). Maps, tipping points and every P(stuck)
// count these, not only Stuck.
func (o RecoveryOutcome) Stuck() bool { return o == Stuck || o == Relapsed }

// RecoveryRule is the rule that decides recovery after a trigger (see Recoveries). The zero
// value means DefaultRecoveryRule; zero fields take their default.
type RecoveryRule struct {
	// K is the band's half-width in standard deviations of one interval's goodput.
	K float64
	// Floor is the band's smallest half-width, relative to the pre-trigger level.
	Floor float64
	// Hold is how long goodput must stay within the band to count as recovered (rounded up to
	// whole intervals).
	Hold time.Duration
	// Window is how long goodput must stay below the band, at the end of the examined span, to
	// count as stuck (rounded up to whole intervals).
	Window time.Duration
}

// Defaults of RecoveryRule. K = 3 puts a healthy interval outside the band with probability
// about 0.3 % (normal approximation), so a hold of 5 intervals is broken by noise alone in about
// 1 % of recoveries; the 5 % floor keeps the band from vanishing when arrivals are fixed-rate
// and the baseline has almost no spread.
const (
	DefaultRecoveryK     = 3
	DefaultRecoveryFloor = 0.05
	// DefaultHoldIntervals and DefaultWindowIntervals are the hold time and the stuck window in
	// intervals, when the rule does not set them.
	DefaultHoldIntervals   = 5
	DefaultWindowIntervals = 10
	// PreTriggerIntervals is how many whole intervals before a trigger define its pre-trigger
	// goodput level (fewer when the trigger comes earlier).
	PreTriggerIntervals = 10
)

// DrainT is how many standard errors below zero the least-squares slope of the total backlog
// (the servers' worker queues and the drivers' wait queues, backlogOf) over the stuck window
// must lie for the backlog to count as draining (a long outage that ends by itself, not a stuck
// state). Three keeps a backlog that only wanders from passing for one that drains.
const DrainT = 3

// Thresholds that name what sustains a stuck state (StuckState.SustainedBy), each over the
// stuck window.
const (
	// SustainRetries: attempts per operation at least this high — retries feed the overload.
	SustainRetries = 1.5
	// SustainWasted: at least this share of server capacity goes to rejections and to work
	// whose client has already given up — a backlog of abandoned work.
	SustainWasted = 0.25
	// SustainRejections: limiters refuse at least this share of attempts.
	SustainRejections = 0.5
	// SustainEmptyTokens: the mean retry-token level of the clients with a retry bucket is
	// below one token — retries are refused for want of tokens.
	SustainEmptyTokens = 1.0
)

// withDefaults returns r with every zero field at its default, for intervals of length step.
func (r RecoveryRule) withDefaults(step time.Duration) RecoveryRule {
	if r.K == 0 {
		r.K = DefaultRecoveryK
	}
	if r.Floor == 0 {
		r.Floor = DefaultRecoveryFloor
	}
	if r.Hold == 0 {
		r.Hold = DefaultHoldIntervals * step
	}
	if r.Window == 0 {
		r.Window = DefaultWindowIntervals * step
	}
	return r
}

// intervals returns d in whole intervals of length step, rounded up, at least 1.
func intervals(d, step time.Duration) int {
	if step <= 0 {
		return 1
	}
	return max(1, int((d+step-1)/step))
}

// StuckState describes a stuck run (Stuck or Relapsed) over the stuck window: its level and
// what sustains it. For other outcomes every number is NaN and SustainedBy is empty.
type StuckState struct {
	GoodputShare  float64 `json:"goodputShare"`  // goodput ÷ the pre-trigger level
	Amplification float64 `json:"amplification"` // attempts ÷ operations issued
	Backlog       float64 `json:"backlog"`       // time-average worker-queue length, all servers
	// DriverBacklog is the mean over the window's interval ends of the operations waiting in
	// the drivers' queues (GroupInterval.DriverQueue), all groups.
	DriverBacklog float64 `json:"driverBacklog"`
	WastedShare   float64 `json:"wastedShare"` // share of server capacity wasted
	RejectShare   float64 `json:"rejectShare"` // limiter rejections ÷ attempts
	RetryTokens   float64 `json:"retryTokens"` // mean retry-token level; NaN without buckets
	// SustainedBy names the mechanisms the counters show holding the state: "retries",
	// "abandonedWork", "rejections", "emptyRetryBuckets" (see the Sustain… thresholds).
	SustainedBy []string `json:"sustainedBy,omitempty"`
}

// noStuck is the StuckState of a run that is not stuck.
func noStuck() StuckState {
	n := math.NaN()
	return StuckState{GoodputShare: n, Amplification: n, Backlog: n, DriverBacklog: n, WastedShare: n, RejectShare: n, RetryTokens: n}
}

// Recovery is the outcome after one trigger.
type Recovery struct {
	Fault      string          `json:"fault"`
	Start      sim.Time        `json:"start"`
	End        sim.Time        `json:"end"`
	PreGoodput float64         `json:"preGoodput"` // total goodput before the trigger, operations/s
	Band       float64         `json:"band"`       // the band's half-width, operations/s
	Outcome    RecoveryOutcome `json:"outcome"`
	// Seconds from the end of the trigger to the start of the hold; NaN unless Recovered.
	Seconds float64 `json:"seconds"`
	// RecoveredSeconds and RelapseSeconds say when a recovery that did not last began and
	// ended, in seconds from the end of the trigger: the start of its hold, and the start of
	// the run of intervals below the band that ends the examined span. Both are NaN unless the
	// outcome is Relapsed, or Undecided after a recovery (the span ends below the band too
	// soon after it to tell).
	RecoveredSeconds float64 `json:"recoveredSeconds"`
	RelapseSeconds   float64 `json:"relapseSeconds"`
	// MoreSeconds estimates how much longer the run (or the gap before the next trigger) would
	// have to be for the rule to decide; NaN unless Undecided, and NaN then too when the trigger
	// lasts to the end of the run. For a draining backlog it is the time to drain to the
	// pre-trigger level, more than goodput usually needs (it returns once the backlog falls
	// below a timeout's worth of work). After a recovery that the span ends below the band it
	// is the time the stuck rule needs to call the relapse (or to see goodput return).
	MoreSeconds float64    `json:"moreSeconds"`
	Stuck       StuckState `json:"stuck"`
}

// intervalTotals is every group and server together over one whole interval.
type intervalTotals struct {
	start, end                 sim.Time
	goodput                    float64 // successes/s
	issued, attempts           uint64
	tokensSum                  float64
	tokensN                    int
	queueArea, capArea, wasted float64 // job·s, worker·s, worker·s
	driverQueue                float64 // operations waiting in the drivers' queues at end
	rejections                 uint64
}

// totals returns the whole intervals of s (the last, partial interval is left out), all groups
// and servers summed, in time order.
func totals(s *Series) []intervalTotals {
	var out []intervalTotals
	index := map[sim.Time]int{}
	at := func(start, end sim.Time) *intervalTotals {
		if end.Sub(start) != s.Interval {
			return nil
		}
		i, ok := index[end]
		if !ok {
			i = len(out)
			index[end] = i
			out = append(out, intervalTotals{start: start, end: end})
		}
		return &out[i]
	}
	var succeeded []uint64
	for i := range s.Groups {
		g := &s.Groups[i]
		t := at(g.Start, g.End)
		if t == nil {
			continue
		}
		for len(succeeded) < len(out) {
			succeeded = append(succeeded, 0)
		}
		succeeded[index[g.End]] += g.Succeeded
		t.issued += g.Issued
		t.attempts += g.Attempts
		t.tokensSum += g.TokensSum
		t.tokensN += g.TokensN
		t.driverQueue += float64(g.DriverQueue)
	}
	for i := range s.Servers {
		v := &s.Servers[i]
		t := at(v.Start, v.End)
		if t == nil {
			continue
		}
		t.queueArea += v.QueueArea
		t.capArea += v.CapacityArea
		t.wasted += v.WastedBusy.Seconds()
		t.rejections += v.RejectedAdmissions + v.QueueOverflows + v.ConnRejected
	}
	for i := range out {
		var n uint64
		if i < len(succeeded) {
			n = succeeded[i]
		}
		out[i].goodput = rate(n, s.Interval.Seconds())
	}
	return out
}

// Recoveries decides, for each trigger in s.Faults, whether total goodput recovered, stuck, or
// whether the run was too short to tell, by s.Recovery (defaults where unset):
//
//   - Baseline. The pre-trigger level μ is the mean total goodput of the last
//     PreTriggerIntervals whole intervals that end at or before the trigger starts (NoBaseline
//     if there is none). A trigger that comes while goodput is still depressed by an earlier one
//     takes that depressed level.
//   - Band. One interval's goodput has standard deviation σ = max(s_B, √(μ/Δt)): s_B is the
//     sample standard deviation of the baseline intervals, √(μ/Δt) that of a Poisson count of
//     rate μ over an interval of Δt seconds (a floor, so a short or fixed-rate baseline does not
//     give a band narrower than arrival noise). The band is μ ± max(K·σ, Floor·μ), two-sided:
//     goodput well above μ (a backlog draining) has not settled either.
//   - Examined span: the whole intervals that end after the trigger ends and no later than the
//     next trigger starts (one that starts at or after this one's end, and after its start), or
//     the end of the series.
//   - Recovered: the first interval from which Hold worth of consecutive intervals lie in the
//     band, provided the span does not end below the band after it; the recovery time runs
//     from the trigger's end to that interval's start (0 if the interval containing the end
//     already starts the hold). A dip below the band that goodput comes back from is still a
//     recovery, and so is a span that ends above the band.
//   - Relapsed: a hold, then a span that ends in a run of intervals below the band that is a
//     stuck state by the stuck rule below. RecoveredSeconds is when the hold began,
//     RelapseSeconds when that last run below the band began; the StuckState is measured as for
//     Stuck. Relapsed counts as stuck (RecoveryOutcome.Stuck).
//   - Stuck: no hold, and the last Window worth of intervals of the span all lie below the
//     band, a least-squares line through their goodput would not reach the band within another
//     Window (a slow but steady recovery is not a stuck state), and the total backlog is not
//     draining: its least-squares slope over the window is not below zero by DrainT standard
//     errors. The total backlog is the servers' worker backlog plus the operations waiting in
//     the drivers' queues (connection pools, server selection, client-side admission): a
//     backlog held in the drivers drains as surely as one in the servers. (A backlog that
//     drains is a long outage that ends by itself, even while every request it holds waits
//     past its timeout and goodput shows nothing.) The StuckState gives the level over that
//     window and what sustains it.
//   - Undecided: otherwise — and after a hold when the span ends below the band but not (yet)
//     in a stuck state, with RecoveredSeconds and RelapseSeconds set. MoreSeconds estimates the
//     extra span the rule needs: the rest of a hold that has begun, the rest of a stuck window
//     that has begun, the time the goodput trend needs to reach the band, or the total backlog
//     to drain to its pre-trigger level, plus a hold; a whole Window when the span ends above
//     the band without a hold.
func Recoveries(s *Series) []Recovery {
	pts := totals(s)
	step := s.Interval
	rule := s.Recovery.withDefaults(step)
	hold, window := intervals(rule.Hold, step), intervals(rule.Window, step)
	dt := step.Seconds()
	var out []Recovery
	for fi, f := range s.Faults {
		rec := Recovery{Fault: f.Name, Start: f.Start, End: f.End, PreGoodput: math.NaN(), Band: math.NaN(),
			Seconds: math.NaN(), RecoveredSeconds: math.NaN(), RelapseSeconds: math.NaN(), MoreSeconds: math.NaN(), Stuck: noStuck()}
		next := sim.Never
		for j, o := range s.Faults {
			if j != fi && o.Start >= f.End && o.Start > f.Start && o.Start < next {
				next = o.Start
			}
		}
		var pre []float64
		var preBacklog float64 // the mean total backlog (backlogOf) of the same intervals
		var span []intervalTotals
		for _, p := range pts {
			if p.end <= f.Start {
				pre = append(pre, p.goodput)
			}
			if p.end > f.End && p.end <= next {
				span = append(span, p)
			}
		}
		if len(pre) == 0 {
			rec.Outcome = NoBaseline
			out = append(out, rec)
			continue
		}
		first := max(0, len(pre)-PreTriggerIntervals)
		pre = pre[first:]
		for _, p := range pts[first : first+len(pre)] {
			preBacklog += backlogOf(p) / float64(len(pre))
		}
		level, sd := meanSD(pre)
		sigma := math.Max(sd, math.Sqrt(level/dt))
		band := math.Max(rule.K*sigma, rule.Floor*level)
		rec.PreGoodput, rec.Band = level, band
		lo, hi := level-band, level+band
		inBand := func(p intervalTotals) bool { return p.goodput >= lo && p.goodput <= hi }

		// Recovered: the first run of `hold` consecutive intervals in the band.
		held, run := -1, 0 // held: the index in span of the hold's first interval
		for i, p := range span {
			if !inBand(p) {
				run = 0
				continue
			}
			if run++; run == hold {
				held = i - hold + 1
				break
			}
		}
		if held < 0 && f.End >= s.End() {
			rec.Outcome = Undecided
			out = append(out, rec) // a trigger to the end of the run leaves nothing to examine
			continue
		}
		// The trailing run of intervals on one side of the band decides the rest.
		tail, side := 0, 0
		for i := len(span) - 1; i >= 0; i-- {
			si := sideOf(span[i].goodput, lo, hi)
			if tail > 0 && si != side {
				break
			}
			tail, side = tail+1, si
		}
		if held >= 0 {
			since := max(0, span[held].start.Sub(f.End)).Seconds()
			// A verdict holds to the end of the span: a recovery that the span ends below the
			// band is judged again by the stuck rule, from the start of that last fall.
			if side >= 0 {
				rec.Outcome, rec.Seconds = Recovered, since
				out = append(out, rec)
				continue
			}
			rec.RecoveredSeconds = since
			rec.RelapseSeconds = max(0, span[len(span)-tail].start.Sub(f.End)).Seconds()
		}
		rec.Outcome = Undecided
		switch {
		case len(span) == 0:
			rec.MoreSeconds = float64(hold) * dt
		case side == 0: // a hold has begun
			rec.MoreSeconds = float64(hold-tail) * dt
		case side < 0 && tail < window: // a stuck window has begun
			rec.MoreSeconds = float64(window-tail) * dt
		case side < 0:
			last := span[len(span)-window:]
			slope, end, _ := trend(last, dt, goodputOf)
			reach := math.Inf(1)
			if slope > 0 {
				reach = (lo - end) / slope
			}
			if reach <= float64(window)*dt { // climbing back: a slow recovery
				rec.MoreSeconds = float64(math.Ceil(reach/dt)*dt) + float64(float64(hold)*dt)
				break
			}
			// A backlog that drains steadily is a long outage, not a sustained state: while it
			// lasts every request may wait past its timeout, so goodput shows nothing of it.
			// The backlog is the total, wherever it waits: in the servers' worker queues or in
			// the drivers' (a driver whose connection pool is full holds the rest of it).
			if qSlope, qEnd, qSE := trend(last, dt, backlogOf); qSlope < 0 && qSlope < -DrainT*qSE {
				drain := math.Max(0, qEnd-preBacklog) / -qSlope
				rec.MoreSeconds = float64(math.Ceil(drain/dt)*dt) + float64(float64(hold)*dt)
				break
			}
			rec.Outcome = Stuck
			if held >= 0 {
				rec.Outcome = Relapsed
			}
			rec.Stuck = stuckState(last, level)
		default: // above the band: a backlog still draining
			rec.MoreSeconds = float64(window) * dt
		}
		out = append(out, rec)
	}
	return out
}

// sideOf returns −1 below the band [lo, hi], 0 within it, +1 above.
func sideOf(x, lo, hi float64) int {
	switch {
	case x < lo:
		return -1
	case x > hi:
		return 1
	}
	return 0
}

// meanSD returns the mean and the sample standard deviation (0 for fewer than two values).
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += float64((x - mean) * (x - mean)) // explicit rounding: no fused multiply-add
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// goodputOf and backlogOf read an interval's total goodput (operations/s) and its total
// backlog: the servers' time-average worker backlog (requests) plus the operations waiting in
// the drivers' queues at its end — every place the work the run owes can wait.
func goodputOf(p intervalTotals) float64 { return p.goodput }
func backlogOf(p intervalTotals) float64 {
	return fratio(p.queueArea, p.end.Sub(p.start).Seconds()) + p.driverQueue
}

// trend fits y = a + slope·t by least squares over pts (y read by y, t in seconds, one interval
// apart) and returns the slope (per second), the fitted value at the last interval, and the
// slope's standard error (+Inf for fewer than three intervals).
func trend(pts []intervalTotals, dt float64, y func(intervalTotals) float64) (slope, end, se float64) {
	n := float64(len(pts))
	var st, sy float64
	for i, p := range pts {
		st += float64(float64(i) * dt)
		sy += y(p)
	}
	tm, ym := st/n, sy/n
	var sxx, sxy float64
	for i, p := range pts {
		dx := float64(float64(i)*dt) - tm
		sxx += float64(dx * dx) // explicit rounding: no fused multiply-add on any platform
		sxy += float64(dx * (y(p) - ym))
	}
	if sxx == 0 {
		return 0, ym, math.Inf(1)
	}
	slope = sxy / sxx
	end = ym + float64(slope*(float64(float64(len(pts)-1)*dt)-tm))
	if len(pts) < 3 {
		return slope, end, math.Inf(1)
	}
	var sse float64
	for i, p := range pts {
		r := y(p) - (ym + float64(slope*(float64(float64(i)*dt)-tm)))
		sse += float64(r * r)
	}
	return slope, end, math.Sqrt(sse / (n - 2) / sxx)
}

// stuckState measures the stuck window pts against the pre-trigger level.
func stuckState(pts []intervalTotals, level float64) StuckState {
	var good, queue, driverQueue, capArea, wasted, tokens float64
	var issued, attempts, rejections uint64
	tokensN := 0
	for _, p := range pts {
		good += p.goodput
		queue += p.queueArea
		driverQueue += p.driverQueue
		capArea += p.capArea
		wasted += p.wasted
		issued += p.issued
		attempts += p.attempts
		rejections += p.rejections
		tokens += p.tokensSum
		tokensN += p.tokensN
	}
	n := float64(len(pts))
	secs := n * pts[0].end.Sub(pts[0].start).Seconds()
	st := StuckState{
		GoodputShare:  good / n / level,
		Amplification: ratio(attempts, issued),
		Backlog:       fratio(queue, secs),
		DriverBacklog: driverQueue / n,
		WastedShare:   fratio(wasted, capArea),
		RejectShare:   ratio(rejections, attempts),
		RetryTokens:   math.NaN(),
	}
	if tokensN > 0 {
		st.RetryTokens = tokens / float64(tokensN)
	}
	if st.Amplification >= SustainRetries {
		st.SustainedBy = append(st.SustainedBy, "retries")
	}
	if st.WastedShare >= SustainWasted {
		st.SustainedBy = append(st.SustainedBy, "abandonedWork")
	}
	if st.RejectShare >= SustainRejections {
		st.SustainedBy = append(st.SustainedBy, "rejections")
	}
	if tokensN > 0 && st.RetryTokens < SustainEmptyTokens {
		st.SustainedBy = append(st.SustainedBy, "emptyRetryBuckets")
	}
	return st
}

// Describe says in words how the run came out after the trigger, for summaries and reports.
func (r *Recovery) Describe() string {
	switch r.Outcome {
	case Recovered:
		return fmt.Sprintf("recovered %s after it ended (band %.1f ± %.1f/s)", secondsText(r.Seconds), r.PreGoodput, r.Band)
	case Stuck, Relapsed:
		st := &r.Stuck
		text := ""
		if r.Outcome == Relapsed {
			text = fmt.Sprintf("recovered %s after it ended, then relapsed %s after it: ", secondsText(r.RecoveredSeconds), secondsText(r.RelapseSeconds))
		}
		text += fmt.Sprintf("stuck at %.2g %% of pre-trigger goodput, amplification %.2f, backlog %.0f", 100*st.GoodputShare, st.Amplification, st.Backlog)
		if st.DriverBacklog > 0 {
			text += fmt.Sprintf(" (and %.0f waiting in the drivers)", st.DriverBacklog)
		}
		if len(st.SustainedBy) > 0 {
			text += "; sustained by"
			for i, s := range st.SustainedBy {
				if i > 0 {
					text += ","
				}
				text += " " + sustainWords[s]
			}
		}
		return text
	case Undecided:
		if math.IsNaN(r.MoreSeconds) {
			return "undecided: the trigger lasts to the end of the run"
		}
		text := ""
		if !math.IsNaN(r.RelapseSeconds) {
			text = fmt.Sprintf("recovered %s after it ended, then fell below the band %s after it; ", secondsText(r.RecoveredSeconds), secondsText(r.RelapseSeconds))
		}
		return text + fmt.Sprintf("undecided: run about %s longer to tell", secondsText(r.MoreSeconds))
	}
	return "no pre-trigger baseline to compare with"
}

var sustainWords = map[string]string{
	"retries": "retries", "abandonedWork": "abandoned work", "rejections": "limiter rejections",
	"emptyRetryBuckets": "empty retry buckets",
}

func secondsText(s float64) string { return formatFloat(s) + " s" }

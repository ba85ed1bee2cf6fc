package tipping

import "fmt"

// EndsError reports that the ends of the search interval do not bracket a flip from recovered
// to stuck in the direction the Config says: both ends came out on the same side, the flip
// runs the other way, or an end is a tie (P(stuck) indistinguishable from 1/2 there).
type EndsError struct {
	Lo, Hi     ProbeResult // the probes at Config.Lo and Config.Hi
	Increasing bool        // Config.Increasing
}

func (e *EndsError) Error() string {
	lo, hi := e.Lo, e.Hi
	between := fmt.Sprintf("between %s and %s", num(lo.X), num(hi.X))
	switch {
	case lo.Verdict == Tie && hi.Verdict == Tie:
		return fmt.Sprintf("tipping: no verdict at either end %s: P(stuck) is indistinguishable from 1/2 at both (%s and %s); the boundary may lie outside the interval or the transition be wider than it — widen the interval or raise MaxReps",
			between, tally(lo), tally(hi))
	case lo.Verdict == Tie || hi.Verdict == Tie:
		tie, other := lo, hi
		if hi.Verdict == Tie {
			tie, other = hi, lo
		}
		return fmt.Sprintf("tipping: no verdict at the end %s of [%s, %s]: P(stuck) is indistinguishable from 1/2 there (%s) while %s is on the %s (%s); the boundary is at or beyond %s within the noise — widen the interval or raise MaxReps",
			num(tie.X), num(lo.X), num(hi.X), tally(tie), num(other.X), other.Verdict, tally(other), num(tie.X))
	case lo.Verdict == hi.Verdict:
		side, a, b := "recovered", lo.Recovered, hi.Recovered
		if lo.Verdict == StuckSide {
			side, a, b = "stuck", lo.Stuck, hi.Stuck
		}
		msg := fmt.Sprintf("tipping: no flip %s: both %s (%d/%d and %d/%d replications", between, side,
			a, lo.Stuck+lo.Recovered, b, hi.Stuck+hi.Recovered)
		if lo.Undecided+hi.Undecided > 0 {
			msg += fmt.Sprintf("; %d and %d more undecided", lo.Undecided, hi.Undecided)
		}
		return msg + ")"
	}
	want := "increasing"
	if !e.Increasing {
		want = "decreasing"
	}
	return fmt.Sprintf("tipping: the flip runs the other way %s: %s at %s (%s) but %s at %s (%s), while Config.Increasing says %s",
		between, side(lo.Verdict), num(lo.X), tally(lo), side(hi.Verdict), num(hi.X), tally(hi), want)
}

// side names a side verdict by the outcome that dominates there.
func side(v Verdict) string {
	if v == StuckSide {
		return "stuck"
	}
	return "recovered"
}

// tally is a probe's counts in words: "12/20 stuck" and the undecided runs if any.
func tally(p ProbeResult) string {
	s := fmt.Sprintf("%d/%d stuck", p.Stuck, p.Stuck+p.Recovered)
	if p.Undecided > 0 {
		s += fmt.Sprintf(", %d undecided", p.Undecided)
	}
	return s
}

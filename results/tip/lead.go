package tip

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// Bound is the conservative reading of a search's probes, the one a planner can quote without
// a model: how far the parameter went with every run recovering, and where runs first stuck.
type Bound struct {
	// Safe is the probe furthest toward the sticking side such that it and every probe before
	// it (from the recovering end) recovered in every run: none stuck, none undecided. Nil when
	// the probe at the recovering end already had a run that did not recover.
	Safe *Probe
	// Stuck is the probe nearest the recovering end at which a run stuck; nil when none did.
	Stuck *Probe
}

// Bound reads the probes in the order runs meet them (ascending values when runs stick above,
// descending when below): the last value up to which every run recovered, and the first value
// at which any run stuck.
func (t *Result) Bound() Bound {
	ps := make([]*Probe, len(t.Probes))
	for i := range t.Probes {
		ps[i] = &t.Probes[i]
	}
	slices.SortStableFunc(ps, func(a, b *Probe) int {
		if t.Sticks == "below" {
			a, b = b, a
		}
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		}
		return 0
	})
	var b Bound
	safe := true
	for _, p := range ps {
		safe = safe && p.allRecovered()
		if safe {
			b.Safe = p
		}
		if p.Stuck > 0 && b.Stuck == nil {
			b.Stuck = p
		}
	}
	return b
}

// name is how the sentences name the parameter: its words, or its path.
func (t *Result) name() string {
	if t.Name != "" {
		return t.Name
	}
	return t.Param
}

// value writes x in the result's unit: durations in seconds, rates per second, to three
// significant figures (an estimate).
func (t *Result) value(x float64) string { return results.FormatValue(x, t.Unit) }

// Tested writes a value a search tested as it was run, every digit kept: a duration as a
// duration in its own unit ("6.375 s", "20 ms", "1m30s"), a rate per second ("1000/s"), a
// number as itself — the value a planner quotes, not a rounding of it.
func (t *Result) Tested(x float64) string {
	switch t.Unit {
	case "s":
		d := time.Duration(math.Round(x * 1e9)).String()
		if m := simpleDuration.FindStringSubmatch(d); m != nil {
			return m[1] + " " + m[2]
		}
		return d
	case "/s":
		return strconv.FormatFloat(x, 'f', -1, 64) + "/s"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// simpleDuration is a duration of one unit as time.Duration writes it ("462.5ms"), which
// Tested writes with a space before the unit.
var simpleDuration = regexp.MustCompile(`^(-?[0-9.]+)(ns|µs|ms|s)$`)

// Lead is the sentence a search's result leads with, conservative first: the value up to which
// every run recovered, with its runs and the upper 95 % bound on P(stuck) there, then the first
// value at which runs stuck with how many of how many ("after cpu-cut, cut length up to 5.5 s:
// recovered in every run (12 of 12, P(stuck) ≤ 27 % at 95 %); at 7.25 s, 26 of 32 runs
// stuck"). A range without a flip leads with its Describe, which says as much.
func (t *Result) Lead() string {
	if t.NoFlip != nil {
		return t.Describe()
	}
	b := t.Bound()
	toward := map[string]string{"above": "up to", "below": "down to"}[t.Sticks]
	var parts []string
	if s := b.Safe; s != nil {
		parts = append(parts, fmt.Sprintf("%s %s %s: recovered in every run (%d of %d, P(stuck) ≤ %s at 95 %%)",
			t.name(), toward, t.Tested(s.X), s.Recovered, s.Replications, percent(s.Hi95, true)))
	} else {
		parts = append(parts, fmt.Sprintf("%s: no value tested recovered in every run", t.name()))
	}
	if s := b.Stuck; s != nil {
		text := fmt.Sprintf("at %s, %d of %d runs stuck", t.Tested(s.X), s.Stuck, s.Replications)
		if s.Undecided > 0 {
			text += fmt.Sprintf(" (%d undecided)", s.Undecided)
		}
		if b.Safe == nil {
			text = "even " + text
		}
		parts = append(parts, text)
	} else {
		parts = append(parts, "no run stuck at any value tested")
	}
	return "after " + t.Trigger + ", " + strings.Join(parts, "; ")
}

// Estimate is the tipping point's estimate in the parameter's words, for a heading or a figure:
// "tipping point 6.4 s (95 % interval 5.5 s to 7.25 s)"; "" for a range without a flip.
func (t *Result) Estimate() string {
	if t.NoFlip != nil || math.IsNaN(t.Boundary) {
		return ""
	}
	return fmt.Sprintf("tipping point %s (%g %% interval %s to %s)", t.value(t.Boundary), 100*t.Confidence, t.value(t.Lo), t.value(t.Hi))
}

// ProbeP writes P(stuck) at a probe as the share of its decided runs that stuck with the exact
// 95 % interval: "0.81 (0.64–0.93)"; "–" when no run decided.
func ProbeP(p *Probe) string {
	if p.Decided() == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", float64(p.Stuck)/float64(p.Decided()), p.Lo95, p.Hi95)
}

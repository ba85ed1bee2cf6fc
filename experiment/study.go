package experiment

import (
	"fmt"
	"math"
	"strings"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/scenarios"
)

// Header is the header of a result made of many runs of sc from base seed seed, by the
// simulator l names.
func Header(sc *scenarios.Scenario, seed uint64, l bench.Label) results.Header {
	return results.Header{Tool: l.Tool, Version: l.Version, Scenario: sc.Name,
		Description: sc.Description, Claim: sc.Claim, Canonical: sc.String(), Seed: seed,
		Duration: sc.Duration, Interval: sc.Interval, Warmup: sc.Warmup.Fixed, WarmupAuto: sc.Warmup.Auto}
}

// TriggerError is a trigger a study cannot judge: the scenario has none, or none of the name
// asked for.
type TriggerError struct {
	Scenario string
	Want     string   // the name asked for ("" for the scenario's first)
	Names    []string // the scenario's triggers
}

func (e *TriggerError) Error() string {
	if len(e.Names) == 0 {
		return fmt.Sprintf("scenario %s has no trigger (a fault, or a spike, step or ramp in a group's rate): nothing to recover from", e.Scenario)
	}
	return fmt.Sprintf("scenario %s has no trigger %q: its triggers are %s", e.Scenario, e.Want, strings.Join(e.Names, ", "))
}

// Trigger returns the trigger whose outcome a map or a tipping-point search judges: the one
// named want, or the scenario's first when want is "". The error is a *TriggerError.
func Trigger(sc *scenarios.Scenario, want string) (string, error) {
	var names []string
	for _, w := range sc.FaultWindows() {
		if w.Name == want {
			return want, nil
		}
		names = append(names, w.Name)
	}
	if len(names) > 0 && want == "" {
		return names[0], nil
	}
	return "", &TriggerError{Scenario: sc.Name, Want: want, Names: names}
}

// Recovery returns the recovery in s after the named trigger (the first of that name).
func Recovery(s *results.Summary, trigger string) (results.Recovery, bool) {
	for _, r := range s.Recoveries {
		if r.Fault == trigger {
			return r, true
		}
	}
	return results.Recovery{}, false
}

// WholeNumbers reports whether the plain-number field at path of sc takes only whole numbers
// over [lo, hi], both whole: it refuses the fraction lo+0.5, written by text as the study
// writes its values. A tipping-point search and a tuning then try whole numbers only.
func WholeNumbers(sc *scenarios.Scenario, path string, lo, hi float64, text func(float64) string) bool {
	if lo != math.Trunc(lo) || hi != math.Trunc(hi) {
		return false
	}
	_, err := sc.With(path, text(lo+0.5))
	return err != nil
}

package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/overloadsim/overloadsim/results"
)

// runAnswer is what a run's report leads with, in words: where today's load sits against the
// configured ceiling, and each trigger's verdict with what it did while it lasted; or, for a
// run without triggers, how the measured window went.
type runAnswer struct {
	Today    string          // results.Capacity.Sentence, as a sentence; "" when unknown
	Triggers []triggerAnswer // one per trigger, in the summary's order
	Steady   string          // a run without triggers: the measured window in a sentence
}

// triggerAnswer is one trigger's verdict and what it did.
type triggerAnswer struct {
	Fault, Window string
	Verdict       string // "recovered 2.5 s after it ended", "stuck", "relapsed", "undecided", …
	Class         string // the verdict's CSS class: recovered, failed or undecided
	Detail        string // results.Recovery.Describe, as it continues Verdict: the evidence behind it
	During        string // failure share and amplification during the trigger, against before it
}

// sentence capitalises s and ends it with a full stop; "" stays "".
func sentence(s string) string {
	if s == "" {
		return ""
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// verdictWords is a trigger's verdict in a few words, and its CSS class.
func verdictWords(r *results.Recovery) (words, class string) {
	switch r.Outcome {
	case results.Recovered:
		return "recovered " + seconds0(r.Seconds) + " after it ended", "recovered"
	case results.Stuck:
		return "stuck", "failed"
	case results.Relapsed:
		return "relapsed", "failed"
	case results.Undecided:
		return "undecided", "undecided"
	}
	return "no verdict", "undecided"
}

// seconds0 formats a number of seconds for a sentence: "2.5 s", "0 s".
func seconds0(s float64) string { return fixed(s, 1) + " s" }

// phaseNamed returns the phase called name, nil when there is none.
func phaseNamed(phases []results.Phase, name string) *results.Phase {
	for i := range phases {
		if phases[i].Name == name {
			return &phases[i]
		}
	}
	return nil
}

// duringText says what a trigger did while it lasted: the share of operations that failed and
// the attempts per operation in its "during" phase, against its "before" phase (results.Phases);
// "" for an instant trigger, which has no "during" phase.
func duringText(phases []results.Phase, fault string) string {
	during := phaseNamed(phases, "during "+fault)
	if during == nil {
		return ""
	}
	text := fmt.Sprintf("While it lasted, %s of the operations failed and each made %s attempts", share(during.FailureShare), ratio(during.Amplification))
	if before := phaseNamed(phases, "before "+fault); before != nil {
		text += fmt.Sprintf(" (before it: %s failed, %s attempts)", share(before.FailureShare), ratio(before.Amplification))
	}
	return text + fmt.Sprintf("; goodput %s/s of %s/s offered.", rate(during.Goodput), rate(during.Offered))
}

// newRunAnswer builds the answer a run's report leads with.
func newRunAnswer(s *results.Summary) *runAnswer {
	a := &runAnswer{}
	a.Today = sentence(s.Capacity.Sentence())
	for i := range s.Recoveries {
		r := &s.Recoveries[i]
		ta := triggerAnswer{Fault: r.Fault, Detail: r.Describe(), During: duringText(s.Phases, r.Fault)}
		if r.End > r.Start {
			ta.Window = simTime(r.Start) + " – " + simTime(r.End)
		} else {
			ta.Window = "at " + simTime(r.Start)
		}
		ta.Verdict, ta.Class = verdictWords(r)
		// The evidence continues the verdict's words: "stuck at 5.1 % of …", "relapsed: recovered
		// 2 s after it ended, then …", "undecided: run about 20 s longer to tell".
		switch r.Outcome {
		case results.Recovered:
			ta.Detail = "" // the verdict says it all; the recovery table has the band
		case results.Stuck:
			ta.Detail = " " + strings.TrimPrefix(ta.Detail, "stuck ")
		case results.Undecided:
			ta.Detail = ": " + strings.TrimPrefix(ta.Detail, "undecided: ")
		default:
			ta.Detail = ": " + ta.Detail
		}
		a.Triggers = append(a.Triggers, ta)
	}
	if len(a.Triggers) == 0 {
		t := s.Total
		failed := noValue
		if t.Issued > 0 {
			failed = share(float64(t.Failed) / float64(t.Issued))
		}
		a.Steady = fmt.Sprintf("No trigger: over the measured window, goodput %s/s of %s/s offered, %s of the operations failed, %s attempts each, p99 of successes %s.",
			rate(t.Goodput), rate(t.Offered), failed, ratio(t.Amplification), latency(t.Success.P99))
	}
	return a
}

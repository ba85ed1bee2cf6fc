package chart

import (
	"slices"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

func TestParseValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		kind results.ValueKind
	}{
		{"1000/s", 1000, results.ValueRate},
		{"2.5/s", 2.5, results.ValueRate},
		{"250ms", 0.25, results.ValueDuration},
		{"250µs", 0.00025, results.ValueDuration},
		{"3", 3, results.ValueNumber},
		{"0", 0, results.ValueNumber},
		{"true", 0, results.ValueText},
		{"{retryPolicy: none}", 0, results.ValueText},
	} {
		got, kind, _ := results.ParseValue(c.in)
		if got != c.want || kind != c.kind {
			t.Errorf("results.ParseValue(%q) = %v, %v, want %v, %v", c.in, got, kind, c.want, c.kind)
		}
	}
}

func TestXAxis(t *testing.T) {
	for _, c := range []struct {
		gloss  string
		values []string
		label  string
		pos    []float64
	}{
		{"rates", []string{"500/s", "1000/s"}, "p (operations/s)", []float64{500, 1000}},
		{"durations under a second in ms", []string{"0s", "250ms"}, "p (ms)", []float64{0, 250}},
		{"durations under a millisecond in µs", []string{"0s", "250µs"}, "p (µs)", []float64{0, 250}},
		{"numbers", []string{"1", "3"}, "p", []float64{1, 3}},
		{"mixed kinds are categories", []string{"1", "3s"}, "p", []float64{0, 1}},
		{"words are categories", []string{"b", "a"}, "p", []float64{0, 1}},
	} {
		a := NewXAxis("p", c.values)
		var pos []float64
		for _, v := range c.values {
			pos = append(pos, a.Pos[v])
		}
		if a.Label != c.label || !slices.Equal(pos, c.pos) {
			t.Errorf("%s: NewXAxis(p, %q) = %q at %v, want %q at %v", c.gloss, c.values, a.Label, pos, c.label, c.pos)
		}
	}
}

// kneeSweep is a load sweep of two lines by policy, each offered 100, 200, 300, 400/s with
// goodput falling short of offered from 300/s on.
func kneeSweep(ctx *sweep.LoadContext, answers []sweep.LoadAnswers) *Sweep {
	const rate, policy = "clients[0].workload.rate", "clients[0].driver.retryPolicy"
	s := &Sweep{Context: ctx, Answers: answers, By: policy,
		X: NewXAxis(rate, []string{"100/s", "200/s", "300/s", "400/s"})}
	s.X.Offered = true // the rates are the whole load: their positions are the offered load
	for _, name := range []string{"none", "legacy"} {
		l := &SweepLine{Name: name, Prefix: "total."}
		for i, offered := range []float64{100, 200, 300, 400} {
			l.Points = append(l.Points, &sweep.PointStats{
				Params: []results.Param{{Path: rate, Value: s.X.Values[i]}, {Path: policy, Value: name}}, Replications: 1,
				Metrics: []results.MetricStats{{Name: "total.offered", Mean: offered, N: 1}, {Name: "total.goodput", Mean: min(offered, 250), N: 1}}})
			l.X = append(l.X, offered)
		}
		s.Lines = append(s.Lines, l)
	}
	return s
}

// TestKneesFromAnswers: a load sweep's knees are read from its answers, never found again;
// a sweep without answers has them by the answers' rule, the first point short of offered.
func TestKneesFromAnswers(t *testing.T) {
	ctx := &sweep.LoadContext{}
	// The answers put the first line's knee at 400/s (as if the sweep had answered so): the
	// ring is there, not at 300/s where the rule would put it; the second line has none.
	got := kneeSweep(ctx, []sweep.LoadAnswers{{Line: "none", Knee: 400, KneeFound: true}, {Line: "legacy"}}).Knees()
	if len(got) != 1 || got[0] != (Knee{Line: 0, X: 400, Y: 250}) {
		t.Errorf("knees %+v, want the answers' knee of the first line at 400/s only", got)
	}
	got = kneeSweep(nil, nil).Knees()
	if len(got) != 2 || got[0].X != 300 || got[1].X != 300 {
		t.Errorf("knees %+v without answers, want the rule's at 300/s on each line", got)
	}
}

// TestRegistry: every figure has a unique name and a kind, and a report's figures a caption.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Registry {
		if seen[s.Name] || s.Kind == "" {
			t.Errorf("figure %q: a second entry, or no kind", s.Name)
		}
		seen[s.Name] = true
		if s.Caption == "" && s.Kind != results.KindTune {
			t.Errorf("figure %q has no caption", s.Name)
		}
	}
	if got := Names(results.KindSweep); !slices.Equal(got, []string{SweepGoodput, SweepAmplification, SweepP99, SweepDecision}) {
		t.Errorf("sweep figures %v", got)
	}
}

// TestLoadMarks: a load sweep of one line marks today's load with the headroom, the safe load,
// and the knee and the latency knee, one mark for both when they are the same point and one
// each when not (LoadMarks).
func TestLoadMarks(t *testing.T) {
	answers := sweep.LoadAnswers{KneeFound: true, Knee: 300, LatencyFound: true, LatencyKnee: 250, LatencyRule: "p99 latency above the 100ms SLO",
		Safe: sweep.LoadPoint{Offered: 200}, Beyond: sweep.LoadPoint{Offered: 250}, Headroom: 2}
	s := &Sweep{X: NewXAxis("clients[0].workload.rate", []string{"100/s", "200/s", "250/s", "300/s"}),
		Context: &sweep.LoadContext{Today: 100}, Answers: []sweep.LoadAnswers{answers}}
	s.X.Offered = true
	labels := func() []string {
		var out []string
		for _, m := range s.LoadMarks() {
			out = append(out, m.Label)
		}
		return out
	}
	if got, want := labels(), []string{"today 100/s · safe to 2.00×", "safe 200/s", "knee 300/s", "latency knee 250/s"}; !slices.Equal(got, want) {
		t.Errorf("knees apart: marks %q, want %q", got, want)
	}
	s.Answers[0].LatencyKnee = 300
	if got, want := labels(), []string{"today 100/s · safe to 2.00×", "safe 200/s", "knees 300/s"}; !slices.Equal(got, want) {
		t.Errorf("knees together: marks %q, want %q", got, want)
	}
	s.Answers[0].Beyond = sweep.LoadPoint{} // every load swept was safe: no mark for the highest
	s.Answers[0].KneeFound, s.Answers[0].LatencyFound = false, false
	if got, want := labels(), []string{"today 100/s · safe to 2.00×"}; !slices.Equal(got, want) {
		t.Errorf("no knee: marks %q, want %q", got, want)
	}
}

package results

import "testing"

// TestCapacitySentence: where today's load sits, in the words simulate run prints and a run's
// report leads with (Capacity.Sentence), and the ceiling's name on a figure's key
// (Capacity.CeilingLabel); nothing is said of what is not known.
func TestCapacitySentence(t *testing.T) {
	for _, c := range []struct {
		gloss           string
		c               Capacity
		sentence, label string
	}{
		{"spike: above the ceiling", Capacity{Today: 1611.11, Ceiling: 1000, Source: "ingress request limiter 1000/s on db"},
			"today's load 1611/s (the scenario as configured, averaged over the run) = 161 % of the configured ceiling 1000/s (ingress request limiter 1000/s on db)",
			"configured ceiling 1000/s"},
		{"half the workers' rate", Capacity{Today: 2000, Ceiling: 4000, Source: "8 workers at 2ms mean service on rs0"},
			"today's load 2000/s (the scenario as configured, averaged over the run) = 50 % of the configured ceiling 4000/s (8 workers at 2ms mean service on rs0)",
			"configured ceiling 4000/s"},
		{"no ceiling known", Capacity{Today: 500}, "", ""},
		{"no load known", Capacity{Ceiling: 1000, Source: "x"}, "", "configured ceiling 1000/s"},
		{"nothing known", Capacity{}, "", ""},
	} {
		if got := c.c.Sentence(); got != c.sentence {
			t.Errorf("%s: Sentence() = %q, want %q", c.gloss, got, c.sentence)
		}
		if got := c.c.CeilingLabel(); got != c.label {
			t.Errorf("%s: CeilingLabel() = %q, want %q", c.gloss, got, c.label)
		}
	}
}

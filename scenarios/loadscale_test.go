package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// twoTiers is a scenario of two open-loop tiers and a closed loop, for the load factor's tests.
const twoTiers = `name: two-tiers
duration: 10s
%s
clients:
  - name: web
    workload: {rate: 1000/s}
  - name: api
    workload: {rate: 250/s}
  - name: batch
    workload: {threads: 2, think: const(9ms)}
faults:
  - {kind: load, group: web, at: 2s, for: 2s, factor: 3}
`

func twoTiersWith(t *testing.T, load string) *Scenario {
	t.Helper()
	sc, err := Parse("two-tiers.yaml", []byte(strings.Replace(twoTiers, "%s", load, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestLoadScaleMultipliesOpenLoops: load multiplies every open-loop group's rate, a load fault's
// factor applies on top of it, and a closed-loop group is left as it is (Scenario.Load); the
// offered-operations estimate follows the same rule.
func TestLoadScaleMultipliesOpenLoops(t *testing.T) {
	tests := []struct {
		load      string
		web, api  string // the groups' arrival processes
		openOps   float64
		unchanged bool // the default: the profiles exactly as written
	}{
		{"", "poisson(scaleWindow(3, 2s, 4s, constant(1000/s)))", "poisson(constant(250/s))", 1000*10 + 2000*2 + 250*10, true},
		{"load: 1", "poisson(scaleWindow(3, 2s, 4s, constant(1000/s)))", "poisson(constant(250/s))", 1000*10 + 2000*2 + 250*10, true},
		{"load: 2", "poisson(scaleWindow(3, 2s, 4s, scale(2, constant(1000/s))))", "poisson(scale(2, constant(250/s)))", 2 * (1000*10 + 2000*2 + 250*10), false},
		{"load: 0.5", "poisson(scaleWindow(3, 2s, 4s, scale(0.5, constant(1000/s))))", "poisson(scale(0.5, constant(250/s)))", 0.5 * (1000*10 + 2000*2 + 250*10), false},
	}
	for _, tc := range tests {
		t.Run(tc.load, func(t *testing.T) {
			sc := twoTiersWith(t, tc.load)
			for i, want := range []string{tc.web, tc.api} {
				w, err := sc.Clients[i].ClientWorkload(sc)
				if err != nil {
					t.Fatal(err)
				}
				if got := w.Arrivals.String(); got != want {
					t.Errorf("%s: arrivals %s, want %s", sc.Clients[i].Name, got, want)
				}
			}
			w, err := sc.Clients[2].ClientWorkload(sc)
			if err != nil {
				t.Fatal(err)
			}
			if w.Arrivals != nil || w.Threads != 2 {
				t.Errorf("batch: arrivals %v, threads %d: want the closed loop unchanged", w.Arrivals, w.Threads)
			}
			closed := 2 * 10 / 0.010 // 2 threads, a 9 ms think plus 1 ms of service
			if got, want := sc.OfferedUnderLoadFaults(), tc.openOps+closed; !near(got, want) {
				t.Errorf("OfferedUnderLoadFaults = %v, want %v", got, want)
			}
			if got := sc.ClosedLoopGroups(); len(got) != 1 || got[0] != "batch" {
				t.Errorf("ClosedLoopGroups = %v, want [batch]", got)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-6*b && b-a < 1e-6*b }

// TestLoadScaleCanonical: the canonical text leaves out the default load: 1, so that a scenario
// that does not scale its load prints as it did before the field; any other factor is written
// and reads back.
func TestLoadScaleCanonical(t *testing.T) {
	none, one, two := twoTiersWith(t, ""), twoTiersWith(t, "load: 1"), twoTiersWith(t, "load: 2.5")
	if none.String() != one.String() {
		t.Errorf("load: 1 changes the canonical text:\n%s\n---\n%s", none.String(), one.String())
	}
	if strings.Contains(none.String(), "\nload:") {
		t.Errorf("the canonical text writes the default load:\n%s", none.String())
	}
	if !strings.Contains(two.String(), "\nload: 2.5\n") {
		t.Fatalf("the canonical text lacks load: 2.5:\n%s", two.String())
	}
	back, err := Parse("back.yaml", []byte(two.String()))
	if err != nil {
		t.Fatal(err)
	}
	if back.Load != 2.5 || back.String() != two.String() {
		t.Errorf("load: 2.5 reads back as %v", back.Load)
	}
	set := twoTiersWith(t, "")
	if err := set.Set("load", "2.5"); err != nil || set.Load != 2.5 {
		t.Errorf("Set(load, 2.5): %v, load %v", err, set.Load)
	}
}

// TestLoadScaleInvalid: a load that is not a finite number > 0, or that would push an open-loop
// group past the highest rate a profile may have, is a Problem naming the file, the field, the
// value and the rule.
func TestLoadScaleInvalid(t *testing.T) {
	tests := []struct {
		load, value, rule string
		n                 int // problems: one, or one per open-loop group pushed too far
	}{
		{"0", "0", "must be a finite number > 0", 1},
		{"-1", "-1", "must be a finite number > 0", 1},
		{"fast", "fast", "must be a finite number > 0", 1},
		{".inf", ".inf", "must be a finite number > 0", 1},
		{"[2]", "[2]", "must be a finite number > 0", 1},
		{"1e300", "1e+300", "clients[0] (web): ", 2},
	}
	for _, tc := range tests {
		t.Run(tc.load, func(t *testing.T) {
			_, err := Parse("two-tiers.yaml", []byte(strings.Replace(twoTiers, "%s", "load: "+tc.load, 1)))
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("load: %s: error %v, want Problems", tc.load, err)
			}
			if len(ps) != tc.n {
				t.Fatalf("load: %s: %d problems, want %d: %v", tc.load, len(ps), tc.n, ps)
			}
			p := ps[0]
			if p.File != "two-tiers.yaml" || p.Line != 3 || p.Path != "load" || p.Value != tc.value || !strings.Contains(p.Rule, tc.rule) {
				t.Errorf("load: %s: problem %+v, want two-tiers.yaml:3: load: %s: …%s…", tc.load, p, tc.value, tc.rule)
			}
		})
	}
}

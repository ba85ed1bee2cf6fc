package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/lab/experiment"
	"github.com/overloadsim/overloadsim/lab/record"
)

// TestKolmogorovKnownValues: the p-value's distribution matches published values of
// Kolmogorov's distribution P(K ≤ t) (the one-sample test's critical values at 10%, 5%, 1% and
// 0.1%: 1.2238, 1.3581, 1.6276, 1.9495; P(K ≤ 1) = 0.7300, P(K ≤ 0.5) = 0.0361), and both
// series meet where the function switches between them.
func TestKolmogorovKnownValues(t *testing.T) {
	cases := []struct{ t, cdf float64 }{
		{0.5, 0.0361}, {1.0, 0.7300}, {1.2238, 0.90}, {1.36, 0.9505}, {1.3581, 0.95},
		{1.63, 0.9902}, {1.6276, 0.99}, {1.9495, 0.999},
	}
	for _, c := range cases {
		if got := 1 - kolmogorovSurvival(c.t); math.Abs(got-c.cdf) > 2e-4 {
			t.Errorf("P(K ≤ %v) = %.5f, want %.4f", c.t, got, c.cdf)
		}
	}
	if a, b := kolmogorovSurvival(1.18-1e-12), kolmogorovSurvival(1.18); math.Abs(a-b) > 1e-9 {
		t.Errorf("the series disagree at 1.18: %.12f and %.12f", a, b)
	}
	if kolmogorovSurvival(0) != 1 || kolmogorovSurvival(10) > 1e-80 {
		t.Errorf("P(K > 0) = %v, P(K > 10) = %v, want 1 and under 1e-80", kolmogorovSurvival(0), kolmogorovSurvival(10))
	}
	// Two samples of 300: the effective size is 150, so D = 1.36/√150 is the 5% critical value.
	if p := ksPValue(1.36/math.Sqrt(150), 300, 300); math.Abs(p-0.0495) > 2e-4 {
		t.Errorf("p(D = 1.36/√150; 300, 300) = %.4f, want 0.0495", p)
	}
}

// exp is an experiment named x of count operations with the given rules.
func exp(count int, rules ...string) *experiment.Experiment {
	return &experiment.Experiment{Name: "x", Doc: "x", Rules: rules, Topology: experiment.Topology{Kind: "standalone", Nodes: 1},
		Operation: "find", Count: count, Concurrency: 1,
		Script: []experiment.Entry{{Command: "find", Answers: []experiment.Answer{{Error: &experiment.Error{Code: 462}}}}}}
}

// rec is a record of release whose ops each make attempts attempts to server n0 (then n1, n0,
// ... when alternate is set), retry k after a gap from gap(k), ending with outcome.
func rec(release string, count, attempts int, alternate bool, gap func(k int) float64, outcome record.Outcome) *record.Record {
	r := &record.Record{Experiment: "x", Runner: "t", Release: release}
	for i := range count {
		op := record.Op{Index: i, Outcome: outcome}
		at := 0.0
		for k := range attempts {
			if k > 0 {
				at += gap(k)
			}
			server := "n0"
			if alternate && k%2 == 1 {
				server = "n1"
			}
			op.Attempts = append(op.Attempts, record.Attempt{Server: server, AtMS: at, Answer: "error 462"})
		}
		r.Ops = append(r.Ops, op)
	}
	return r
}

var overloaded = record.Outcome{Class: "overload", Code: 462, Labels: experiment.Overloaded}

// uniform returns gaps drawn from U[0, ceiling·2^(k−1)) by a seeded generator.
func uniform(seed uint64, ceiling float64) func(k int) float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	return func(k int) float64 { return r.Float64() * ceiling * math.Pow(2, float64(k-1)) }
}

func verdicts(r Report) string {
	var parts []string
	for _, f := range r.Findings {
		parts = append(parts, f.Rule+"="+string(f.Verdict))
	}
	return strings.Join(parts, " ")
}

// TestCompare: identical records agree on every rule; records that differ in one respect differ
// on that rule only; too few gaps give no verdict.
func TestCompare(t *testing.T) {
	all := []string{"attempts", "outcome", "servers", "gaps", "handshakes"}
	base := func() *record.Record { return rec("a", 300, 3, false, uniform(1, 100), overloaded) }
	cases := []struct {
		name  string
		e     *experiment.Experiment
		got   *record.Record
		want  string
		agree bool
	}{
		{"identical", exp(300, all...), base(), "attempts=agrees outcome=agrees servers=agrees gaps=agrees gaps=agrees handshakes=agrees", true},
		{"same distribution, other draws", exp(300, "gaps"), rec("b", 300, 3, false, uniform(2, 100), overloaded), "gaps=agrees gaps=agrees", true},
		{"shifted backoff ceiling", exp(300, "gaps"), rec("b", 300, 3, false, uniform(2, 200), overloaded), "gaps=differs gaps=differs", false},
		{"another attempt count", exp(300, "attempts", "gaps"), rec("b", 300, 4, false, uniform(1, 100), overloaded),
			"attempts=differs gaps=agrees gaps=agrees gaps=too few", false},
		{"another outcome code", exp(300, "outcome"), rec("b", 300, 3, false, uniform(1, 100), record.Outcome{Class: "overload", Code: 433}),
			"outcome=differs", false},
		{"retries to another server", exp(300, "servers"), rec("b", 300, 3, true, uniform(1, 100), overloaded), "servers=differs", false},
		{"another handshake count", exp(300, "handshakes"), func() *record.Record {
			r := base()
			r.Handshakes = []record.Attempt{{Server: "n0", Answer: "close"}}
			return r
		}(), "handshakes=differs", false},
		{"both at once: a round trip against none", exp(300, "gaps"), rec("b", 300, 3, false, uniform(2, 5), overloaded), "gaps=agrees gaps=agrees", true},
		{"at once against a backoff", exp(300, "gaps"), rec("b", 300, 3, false, uniform(2, 100), overloaded), "gaps=differs gaps=differs", false},
		{"too few gaps", exp(20, "gaps"), rec("b", 20, 3, false, uniform(2, 100), overloaded), "gaps=too few gaps=too few", true},
		{"no retries", exp(300, "gaps"), rec("b", 300, 1, false, nil, overloaded), "gaps=too few", true},
		{"another experiment", exp(300, "attempts"), func() *record.Record { r := base(); r.Experiment = "y"; return r }(), "record=differs", false},
		{"missing operations", exp(300, "attempts"), func() *record.Record { r := base(); r.Ops = r.Ops[:299]; return r }(), "record=differs", false},
	}
	for _, tc := range cases {
		want := base()
		if tc.name == "too few gaps" {
			want = rec("a", 20, 3, false, uniform(1, 100), overloaded)
		}
		if strings.HasPrefix(tc.name, "both at once") || strings.HasPrefix(tc.name, "at once") {
			want = rec("a", 300, 3, false, func(int) float64 { return 0 }, overloaded)
		}
		if tc.name == "no retries" {
			want = rec("a", 300, 1, false, nil, overloaded)
		}
		r := Compare(tc.e, want, tc.got)
		if got := verdicts(r); got != tc.want || r.Agrees() != tc.agree {
			t.Errorf("%s: %s (agrees %v), want %s (agrees %v)\n%s", tc.name, got, r.Agrees(), tc.want, tc.agree, r)
		}
	}
}

// TestAttemptsOpByOp: when the script fixes every operation's count, equal histograms are not
// enough: the counts must be equal operation by operation. With a probabilistic answer they
// need not be.
func TestAttemptsOpByOp(t *testing.T) {
	want := rec("a", 40, 3, false, uniform(1, 100), overloaded)
	got := rec("b", 40, 3, false, uniform(1, 100), overloaded)
	want.Ops[0].Attempts = want.Ops[0].Attempts[:2]
	got.Ops[1].Attempts = got.Ops[1].Attempts[:2]
	e := exp(40, "attempts")
	f := Compare(e, want, got).Findings[0]
	if f.Verdict != Differs || !strings.Contains(f.How, "op 0: 2 and 3 attempts") {
		t.Errorf("deterministic script: %v, want op 0 to differ", f)
	}
	e.Script[0].Answers[0].P = 0.5
	if f := Compare(e, want, got).Findings[0]; f.Verdict != Agrees {
		t.Errorf("probabilistic script: %v, want equal histograms to agree", f)
	}
}

// TestPerOp: which scripts fix every operation's attempt count.
func TestPerOp(t *testing.T) {
	cases := []struct {
		name string
		mod  func(e *experiment.Experiment)
		want bool
	}{
		{"plain", nil, true},
		{"probability", func(e *experiment.Experiment) { e.Script[0].Answers[0].P = 0.5 }, false},
		{"deadline", func(e *experiment.Experiment) { e.URI = map[string]string{"timeoutMS": "500"} }, false},
		{"close, serial", func(e *experiment.Experiment) { e.Script[0].Answers[0] = experiment.Answer{Close: true} }, true},
		{"close, concurrent", func(e *experiment.Experiment) {
			e.Script[0].Answers[0], e.Concurrency = experiment.Answer{Close: true}, 2
		}, false},
		{"handshakes, concurrent", func(e *experiment.Experiment) {
			e.Handshake, e.Concurrency = []experiment.Answer{{Close: true}}, 2
		}, false},
		{"one mongos's entry", func(e *experiment.Experiment) {
			e.Topology, e.Script[0].Node = experiment.Topology{Kind: "sharded", Nodes: 2}, "n0"
		}, false},
		{"the primary's entry", func(e *experiment.Experiment) {
			e.Topology, e.Script[0].Node, e.ReadPreference = experiment.Topology{Kind: "replicaset", Nodes: 2}, "n0", "primaryPreferred"
		}, true},
	}
	for _, tc := range cases {
		e := exp(10, "attempts")
		if tc.mod != nil {
			tc.mod(e)
		}
		if got := perOp(e); got != tc.want {
			t.Errorf("%s: perOp %v, want %v", tc.name, got, tc.want)
		}
	}
}

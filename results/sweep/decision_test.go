package sweep

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
)

// policyPoint is a point of a policy sweep: its parameters, and per scope ("total", "group.plain")
// offered, goodput and failures (operations/s), amplification and p99s (seconds), each with
// the half-width ci (relative to the mean).
type scopeValues struct {
	offered, failures, amplification, p99ok, p99all float64
}

func policyPoint(params []results.Param, ci float64, scopes map[string]scopeValues) PointStats {
	p := PointStats{Params: params, Replications: 5}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range scopes {
			if !yield(k) {
				return
			}
		}
	})
	for _, sc := range names {
		v := scopes[sc]
		add := func(name string, mean float64) {
			p.Metrics = append(p.Metrics, results.MetricStats{Name: sc + "." + name, Mean: mean, CI95: ci * mean, N: 5})
		}
		add("offered", v.offered)
		add("goodput", v.offered-v.failures)
		add("failures", v.failures)
		add("amplification", v.amplification)
		add("latency_ok_p99", v.p99ok)
		add("latency_all_p99", v.p99all)
	}
	return p
}

// three policies of group plain (clients[1]) at loads 1, 1.5 and 2 (the load factor): legacy
// fails fast (low p99 of successes, many failures, no retries), 2026-07 fails least.
func threePolicies(ci float64, loads ...string) []PointStats {
	type pol struct {
		name             string
		fail, ampl, p99  float64 // at load 1; failures grow with the load
		failGrowth, p99a float64
	}
	pols := []pol{{"mongodb-legacy", 0.30, 1.0, 0.05, 0.20, 0.5}, {"mongodb-2026-03", 0.10, 2.8, 0.9, 0.02, 1.0}, {"mongodb-2026-07", 0.02, 1.8, 0.3, 0.01, 0.35}}
	var out []PointStats
	for _, p := range pols {
		for _, l := range loads {
			f := 1.0
			if l != "" {
				f, _ = parseF(l)
			}
			params := []results.Param{{Path: "clients[1].driver.retryPolicy", Value: p.name}}
			if l != "" {
				params = append(params, results.Param{Path: "load", Value: l})
			}
			share := p.fail + p.failGrowth*(f-1)
			out = append(out, policyPoint(params, ci, map[string]scopeValues{
				"total":       {offered: 2000 * f, failures: 2000 * f * share / 2, amplification: (1 + p.ampl) / 2, p99ok: p.p99, p99all: p.p99a},
				"group.plain": {offered: 1000 * f, failures: 1000 * f * share, amplification: p.ampl, p99ok: p.p99, p99all: p.p99a},
			}))
		}
	}
	return out
}

func parseF(s string) (float64, bool) {
	nums, _, _, ok := results.ParseValues([]string{s})
	if !ok {
		return 0, false
	}
	return nums[0], true
}

var groups = []string{"adaptive", "plain"}

// TestDecideWhen checks docs/metrics.md §17.1: a sweep that varies a policy or a limiter gets a
// decision; a load sweep alone, or a sweep of another parameter, gets none.
func TestDecideWhen(t *testing.T) {
	cases := []struct {
		name   string
		points []PointStats
		want   bool
	}{
		{"policy and load", threePolicies(0.01, "1", "1.5", "2"), true},
		{"policy alone", threePolicies(0.01, ""), true},
		{"load alone", []PointStats{
			policyPoint([]results.Param{{Path: "load", Value: "1"}}, 0.01, map[string]scopeValues{"total": {offered: 10}}),
			policyPoint([]results.Param{{Path: "load", Value: "2"}}, 0.01, map[string]scopeValues{"total": {offered: 20}}),
		}, false},
		{"service time", []PointStats{
			policyPoint([]results.Param{{Path: "topology.nodes[0].service", Value: "exp(5ms)"}}, 0.01, map[string]scopeValues{"total": {offered: 10}}),
			policyPoint([]results.Param{{Path: "topology.nodes[0].service", Value: "exp(9ms)"}}, 0.01, map[string]scopeValues{"total": {offered: 10}}),
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(c.points, LoadContext{Today: 2000}, groups)
			if (d != nil) != c.want {
				t.Fatalf("Decide = %v, want a decision: %v", d, c.want)
			}
		})
	}
}

// TestDecisionLevels checks the choice of loads (docs/metrics.md §17.1): the load factor's
// points at exactly 1, 1.5 and 2; the ones it has when some are not swept; every swept load,
// said so, when none is; a workload's rate by its offered load within DecisionLoadTolerance.
func TestDecisionLevels(t *testing.T) {
	cases := []struct {
		name   string
		loads  []string
		want   []string // the levels' words
		values []string // the load values they read
		note   string   // a part of the note
	}{
		{"quarter steps", []string{"0.5", "1", "1.25", "1.5", "1.75", "2", "2.5"}, []string{"today", "1.5× today", "2× today"}, []string{"1", "1.5", "2"}, "today's load, 1.5× and 2× today"},
		{"whole steps", []string{"1", "2", "3"}, []string{"today", "2× today"}, []string{"1", "2"}, "does not reach 1.5× today"},
		{"none", []string{"0.5", "0.75"}, []string{"0.50× today", "0.75× today"}, []string{"0.5", "0.75"}, "every load swept"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(threePolicies(0.01, c.loads...), LoadContext{Today: 2000}, groups)
			var words, values []string
			for _, r := range d.Rows {
				if r.Policy == "mongodb-legacy" && r.Scope == "plain" {
					words, values = append(words, r.Level), append(values, r.Load)
				}
			}
			if !slices.Equal(words, c.want) || !slices.Equal(values, c.values) {
				t.Errorf("levels %q at loads %q, want %q at %q", words, values, c.want, c.values)
			}
			if !strings.Contains(d.Loads, c.note) {
				t.Errorf("note %q, want it to say %q", d.Loads, c.note)
			}
		})
	}
	t.Run("workload rate", func(t *testing.T) {
		var pts []PointStats
		for _, pol := range []string{"a", "b"} {
			for _, r := range []float64{900, 1000, 1510, 1750, 1990} {
				pts = append(pts, policyPoint([]results.Param{{Path: "clients[0].workload.rate", Value: results.FormatFloat(r) + "/s"},
					{Path: "topology.nodes[0].ingressRequestAdmissionRatePerSec", Value: pol}}, 0.01,
					map[string]scopeValues{"total": {offered: r, failures: 1, amplification: 1}}))
			}
		}
		d := Decide(pts, LoadContext{Today: 1000}, groups)
		var got []string
		for _, r := range d.Rows {
			if r.Value == "a" {
				got = append(got, r.Level+"@"+r.Load)
			}
		}
		// 1510/s is within 2 % of 1.5 × 1000/s and 1990/s of 2 ×; 1750/s stands for neither.
		if want := []string{"today@1000/s", "1.5× today@1510/s", "2× today@1990/s"}; !slices.Equal(got, want) {
			t.Errorf("levels %q, want %q", got, want)
		}
		if d.Decides != "total" || d.Group != "" {
			t.Errorf("a node's limiter decides on %q (group %q), want total", d.Decides, d.Group)
		}
	})
}

// TestDecisionSentences checks the decision's rules (docs/metrics.md §17.1): at the highest
// load, the policy that fails least is named only when its interval separates from the
// others'; a policy with a lower p99 of successes or a higher goodput that fails more is
// named as such; the varied group's metrics are read, and the table has the total beside.
func TestDecisionSentences(t *testing.T) {
	cases := []struct {
		name    string
		ci      float64
		loads   []string
		want    []string
		notWant []string
	}{
		{"separated", 0.02, []string{"1", "1.5", "2"},
			[]string{"At 2× today (2000/s offered by plain, 4000/s in all), mongodb-2026-07 fails 3 % of plain's operations against 50 % for mongodb-legacy and 12 % for mongodb-2026-03",
				"amplifies 1.8× against 2.8× for mongodb-2026-03, though it amplifies 1.8× against 1× for mongodb-legacy",
				"mongodb-legacy has a lower p99 of successes (50ms against 300ms) but fails 50 %"},
			[]string{"does not decide"}},
		{"overlapping", 0.9, []string{"1", "1.5", "2"},
			[]string{"overlap at 95 %", "the sweep does not decide; run more replications"},
			[]string{"mongodb-2026-07 fails 3 %"}},
		{"no load axis", 0.02, []string{""},
			[]string{"At the load swept (1000/s offered by plain, 2000/s in all), mongodb-2026-07 fails 2 % of plain's operations against 30 % for mongodb-legacy and 10 % for mongodb-2026-03"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(threePolicies(c.ci, c.loads...), LoadContext{Today: 2000}, groups)
			if d.Group != "plain" || d.Decides != "plain" {
				t.Fatalf("group %q decides %q, want plain (clients[1])", d.Group, d.Decides)
			}
			text := strings.Join(d.Sentences, " ")
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("sentences\n%s\nwant %q", text, w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(text, w) {
					t.Errorf("sentences\n%s\nmust not say %q", text, w)
				}
			}
			scopes := map[string]int{}
			for _, r := range d.Rows {
				scopes[r.Scope]++
			}
			if scopes["plain"] == 0 || scopes["plain"] != scopes["total"] {
				t.Errorf("rows by scope %v, want the group's and the total's, as many of each", scopes)
			}
		})
	}
}

// TestEstimateSeparates checks the one rule by which a decision tells policies apart: the 95 %
// intervals do not overlap; touching, overlapping or without an interval is not apart.
func TestEstimateSeparates(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		a, b Estimate
		want bool
	}{
		{Estimate{1, 0.1}, Estimate{2, 0.1}, true},
		{Estimate{1, 0.5}, Estimate{2, 0.5}, false}, // touching at 1.5
		{Estimate{1, 0.95}, Estimate{2, 0.1}, false},
		{Estimate{2, 0.1}, Estimate{1, 0.1}, true},
		{Estimate{1, nan}, Estimate{2, 0.1}, false},
	}
	for _, c := range cases {
		if got := c.a.separates(c.b); got != c.want {
			t.Errorf("%v separates %v = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestWriteSweepDirDecision checks that sweep.json records the decision of a policy sweep.
func TestWriteSweepDirDecision(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	ctx := LoadContext{Today: 2000, Groups: groups}
	if err := WriteSweepDir(dir, fixtureHeader(), threePolicies(0.02, "1", "1.5", "2"), "", &ctx); err != nil {
		t.Fatal(err)
	}
	b, err := LoadBaseline(filepath.Join(dir, results.SweepFile))
	if err != nil {
		t.Fatal(err)
	}
	if b.Decision == nil || b.Decision.Group != "plain" || len(b.Decision.Sentences) == 0 || len(b.Decision.Rows) != 18 {
		t.Fatalf("sweep.json's decision %+v, want plain's, 18 rows and sentences", b.Decision)
	}
}

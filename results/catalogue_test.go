package results

import (
	"slices"
	"testing"
)

// TestCatalogueNames checks that the catalogue names every metric once, that only a per-class
// metric has a name ending in CLASS, and that every metric is in a summary or a time series.
func TestCatalogueNames(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Catalogue() {
		if seen[m.Name] {
			t.Errorf("%s is in the catalogue twice", m.Name)
		}
		seen[m.Name] = true
		if !m.InSummary() && !m.InTimeseries() {
			t.Errorf("%s is neither in a summary nor in timeseries.csv", m.Name)
		}
		if m.Label == "" || m.Doc == "" || m.Section == "" {
			t.Errorf("%s: a label, a line of doc and a section are required: %+v", m.Name, m)
		}
	}
}

// TestLookupMetric pins the lookup figures and tune use: by full name or last part, a failure
// class's metric by the per-class row, the unit, label and better direction.
func TestLookupMetric(t *testing.T) {
	for _, tc := range []struct {
		name, want, unit, axis string
		better                 Better
		summary                bool
	}{
		{"total.goodput", "goodput", "/s", "goodput (/s)", BetterHigher, true},
		{"group.adaptive.amplification", "amplification", "", "retry amplification", BetterLower, true},
		{"latency_ok_p99", "latency_ok_p99", "s", "p99 latency, successes (s)", BetterLower, true},
		{"group.a.failures_overload", "failures_CLASS", "/s", "failures by class (/s)", BetterLower, true},
		{"server.db.busy", "busy", "", "busy workers", BetterNeither, false},
		{"fault.cut#2.recovery_time", "recovery_time", "s", "recovery time (s)", BetterLower, true},
	} {
		m, ok := LookupMetric(tc.name)
		if !ok || m.Name != tc.want || m.Unit != tc.unit || m.AxisLabel() != tc.axis || m.Better != tc.better || m.InSummary() != tc.summary {
			t.Errorf("LookupMetric(%q) = %s, %q, %q, %q, summary %v, %v; want %s, %q, %q, %q, %v", tc.name,
				m.Name, m.Unit, m.AxisLabel(), m.Better, m.InSummary(), ok, tc.want, tc.unit, tc.axis, tc.better, tc.summary)
		}
	}
	for _, name := range []string{"total.failures_", "nope", "total.", ""} {
		if m, ok := LookupMetric(name); ok {
			t.Errorf("LookupMetric(%q) = %s, want none", name, m.Name)
		}
	}
}

// TestMetricUnit pins the units tune and its figures give: a summary metric's, none for a
// column that summaries do not have or a name that is no metric.
func TestMetricUnit(t *testing.T) {
	for name, want := range map[string]string{
		"total.latency_fail_p999": "s", "fault.x.recovery_time": "s", "server.db.completed": "/s",
		"server.db.rejections": "/s", "total.failures_timeout": "/s", "group.a.retries_refused": "/s",
		"server.db.queue": "", "fault.x.stuck": "", "total.retries": "", "server.db.rejected_conn": "",
		"total.latency_bogus": "",
	} {
		if got := MetricUnit(name); got != want {
			t.Errorf("MetricUnit(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestCatalogueOrders checks that Summary.Metrics and timeseries.csv follow the catalogue's
// order, a failure class's metrics in the per-class row's place.
func TestCatalogueOrders(t *testing.T) {
	s := &Series{ErrClasses: []string{"overload", "timeout"}}
	var want []string
	for _, m := range Catalogue() {
		switch {
		case m.PerClass():
			want = append(want, "failures_overload", "failures_timeout")
		case m.InTimeseries():
			want = append(want, m.Name)
		}
	}
	if got := TimeseriesColumns(s)[3:]; !slices.Equal(got, want) {
		t.Errorf("TimeseriesColumns = %v, want %v", got, want)
	}
	sum := Summary{Total: GroupSummary{Failures: []ClassFailures{{Class: "overload"}}},
		Servers: []ServerSummary{{Name: "db"}}, Recoveries: []Recovery{{Fault: "cut"}, {Fault: "cut"}}}
	want = nil
	for _, m := range Catalogue() {
		prefix := map[Scope][]string{ScopeGroup: {"total."}, ScopeServer: {"server.db."}, ScopeFault: {"fault.cut.", "fault.cut#2."}}[m.Scope]
		if m.InSummary() {
			for _, p := range prefix {
				name := m.Name
				if m.PerClass() {
					name = "failures_overload"
				}
				want = append(want, p+name)
			}
		}
	}
	var got []string
	for _, m := range sum.Metrics() {
		got = append(got, m.Name)
	}
	slices.SortStableFunc(want, func(a, b string) int { return scopeRank(a) - scopeRank(b) })
	if !slices.Equal(got, want) {
		t.Errorf("Summary.Metrics names %v, want %v", got, want)
	}
}

// scopeRank orders full names as Summary.Metrics does: total, servers, then triggers by
// occurrence.
func scopeRank(name string) int {
	for i, p := range []string{"total.", "server.", "fault.cut.", "fault.cut#2."} {
		if len(name) >= len(p) && name[:len(p)] == p {
			return i
		}
	}
	return -1
}

// TestCatalogueRoles checks the roles' rules and pins the lists they make: headline places
// run 1, 2, … within a scope; a short name is a group headline's of the summaries, and short
// names and example places are unique; a gate (Roles.Gate) is a headline's, with a better
// direction to regress from, a name unique among the gates and a tolerance ≥ 0, and its rule
// fits the metric: a share gate judges a group's rate of operations (a share of the offered
// load), a no-new-stuck gate a fault's outcome indicator (better lower) and takes no tolerance.
func TestCatalogueRoles(t *testing.T) {
	for _, scope := range []Scope{ScopeGroup, ScopeServer, ScopeFault} {
		for i, m := range Headlines(scope) {
			if m.Headline != i+1 || !m.InSummary() {
				t.Errorf("%s: headline %d, in summaries %v; want headline %d of a summary metric", m.Name, m.Headline, m.InSummary(), i+1)
			}
		}
	}
	shorts, gates := map[string]bool{}, map[string]bool{}
	for _, m := range Catalogue() {
		if m.Short != "" && (m.Scope != ScopeGroup || m.Headline == 0) {
			t.Errorf("%s: short %q, headline %d of scope %s: a short name is a group headline's", m.Name, m.Short, m.Headline, m.Scope)
		}
		if m.Short != "" && shorts[m.Short] {
			t.Errorf("short name %q twice", m.Short)
		}
		shorts[m.Short] = true
		g := m.Gate
		if g == (Gate{}) {
			continue
		}
		switch {
		case m.Headline == 0 || m.Scope == ScopeServer || g.Name == "" || g.Tolerance < 0:
			t.Errorf("%s: gate %+v, headline %d of scope %s: a gate is a group or fault headline's, named, with a tolerance ≥ 0", m.Name, g, m.Headline, m.Scope)
		case m.Better == BetterNeither:
			t.Errorf("%s: check watches it, but it has no better direction to regress from", m.Name)
		case gates[g.Name]:
			t.Errorf("gate name %q twice", g.Name)
		case g.Rule == GateShare && (m.Scope != ScopeGroup || m.Unit != "/s" || m.Better != BetterLower):
			t.Errorf("%s: a share gate judges a group's rate of operations, better lower, as a share of the offered load", m.Name)
		case g.Rule == GateNoNewStuck && (m.Scope != ScopeFault || m.Better != BetterLower || g.Tolerance != 0):
			t.Errorf("%s: a no-new-stuck gate judges a fault's outcome indicator, better lower, and takes no tolerance", m.Name)
		case g.Interval && (g.Rule != GateBand || m.Unit != "s"):
			t.Errorf("%s: only a band gate of a duration measured in whole intervals allows one interval more", m.Name)
		case g.Rule != GateBand && g.Rule != GateShare && g.Rule != GateNoNewStuck:
			t.Errorf("%s: unknown gate rule %q", m.Name, g.Rule)
		}
		gates[g.Name] = true
	}
	for i, m := range Examples() {
		if m.Example != i+1 || !m.InSummary() {
			t.Errorf("%s: example %d, in summaries %v; want example %d of a summary metric", m.Name, m.Example, m.InSummary(), i+1)
		}
	}
	names := func(ms []MetricInfo, short bool) []string {
		var out []string
		for _, m := range ms {
			if short {
				out = append(out, m.Short)
			} else {
				out = append(out, m.Name)
			}
		}
		return out
	}
	for _, tc := range []struct {
		what      string
		got, want []string
	}{
		{"group headlines", names(Headlines(ScopeGroup), false), []string{"offered", "goodput", "amplification", "latency_ok_p99", "failures"}},
		{"server headlines", names(Headlines(ScopeServer), false), nil},
		{"fault headlines", names(Headlines(ScopeFault), false), []string{"stuck", "recovery_time"}},
		{"checked", names(Checked(), false), []string{"goodput", "amplification", "latency_ok_p99", "failures", "stuck", "recovery_time"}},
		{"examples", names(Examples(), false), []string{"goodput", "amplification", "latency_ok_p99", "reject_share", "recovery_time"}},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.what, tc.got, tc.want)
		}
	}
	for name, want := range map[string]Gate{
		"goodput":        {Rule: GateBand, Name: "goodput", Tolerance: 0.05},
		"amplification":  {Rule: GateBand, Name: "amplification", Tolerance: 0.05},
		"latency_ok_p99": {Rule: GateBand, Name: "p99", Tolerance: 0.10},
		"failures":       {Rule: GateShare, Name: "failure_share", Tolerance: 0.005},
		"stuck":          {Rule: GateNoNewStuck, Name: "stuck"},
		"recovery_time":  {Rule: GateBand, Name: "recovery_time", Tolerance: 0.10, Interval: true},
	} {
		m, _ := LookupMetric(name)
		if m.Gate != want {
			t.Errorf("%s: gate %+v, want %+v", name, m.Gate, want)
		}
		if g, ok := LookupGate("total." + want.Name); !ok || g.Name != name {
			t.Errorf("LookupGate(total.%s) = %s, %v; want %s", want.Name, g.Name, ok, name)
		}
	}
}

package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/compare"
	"github.com/overloadsim/overloadsim/results/sweep"
	"github.com/overloadsim/overloadsim/scenarios"
)

// canonicalInput is a result's canonical scenario as compare reads it.
var canonicalInput = yamlstrict.Input{What: "a result's canonical scenario", MaxBytes: scenarios.MaxFileBytes}

// unjudged are the top-level settings of a scenario that do not change what it measures: its
// prose and its expectations. A different name is a different scenario, said first.
var unjudged = map[string]bool{"name": true, "description": true, "claim": true, "expect": true}

// scenarioDifferences lists every setting in which other's scenario differs from ref's (their
// results.Header.Canonical), in the reference's order then other's, as the --set that makes
// the reference's into other's: "clients[1].driver.retryPolicy=mongodb-2026-07", "load=1.5";
// a setting other lacks as "path removed". A different scenario name comes first
// ("scenario=other"); the prose and the expectations are left out. Sweeps' sweep blocks
// (their replications and parameters) count only between two sweeps: a run has none that
// matters. dir names other in an error.
func scenarioDifferences(dir string, ref, other results.Header, sweeps bool) ([]string, error) {
	a, errs := canonicalInput.ParseCanonical([]byte(ref.Canonical))
	if errs != nil {
		return nil, fmt.Errorf("compare: the reference's canonical scenario: %v", errs[0])
	}
	b, errs := canonicalInput.ParseCanonical([]byte(other.Canonical))
	if errs != nil {
		return nil, fmt.Errorf("compare: %s: its canonical scenario: %v", dir, errs[0])
	}
	var out []string
	if ref.Scenario != other.Scenario {
		out = append(out, "scenario="+other.Scenario)
	}
	for _, d := range yamlstrict.Diff(a, b) {
		if top := topKey(d.Path); unjudged[top] || top == "sweep" && !sweeps {
			continue
		}
		out = append(out, differenceText(d))
	}
	return out, nil
}

// topKey is the top-level setting a field path lies under: clients for clients[1].count.
func topKey(path string) string {
	if i := strings.IndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return path
}

// differenceText says one difference as the --set that makes the reference's setting into the
// other's ("load=1.5"), or "path removed" where the other has none.
func differenceText(d yamlstrict.Difference) string {
	if d.B == "" {
		return d.Path + " removed"
	}
	return d.Path + "=" + d.B
}

// compareDecision is the policy decision (sweep.DecideLines) of a comparison whose results
// differ from the reference only in a policy or a limiter (sweep.IsPolicyPath): every other
// result by the same settings, each result one line named by its values of them
// ("mongodb-2026-07", "adaptiveRetries on"). Sweeps over a load (sweep.IsLoadPath) are read at
// today's load (ctx, the reference's: compareContext), 1.5× and 2×, as a sweep's decision is. It is nil for any other comparison, so
// that a comparison of loads, durations or scenarios gets no decision it cannot make.
func compareDecision(in []compare.Input, ctx sweep.LoadContext) *sweep.Decision {
	if len(in) < 2 {
		return nil
	}
	ref, errs := canonicalInput.ParseCanonical([]byte(in[0].Header.Canonical))
	if errs != nil {
		return nil // scenarioDifferences has refused it already
	}
	var paths []string
	lines := make([]sweep.DecisionLine, len(in))
	for i := 1; i < len(in); i++ {
		if in[i].Header.Scenario != in[0].Header.Scenario || in[i].Kind != in[0].Kind {
			return nil
		}
		other, errs := canonicalInput.ParseCanonical([]byte(in[i].Header.Canonical))
		if errs != nil {
			return nil
		}
		var diffs []yamlstrict.Difference
		for _, d := range yamlstrict.Diff(ref, other) {
			if top := topKey(d.Path); !unjudged[top] && top != "sweep" {
				diffs = append(diffs, d)
			}
		}
		if len(diffs) == 0 {
			return nil
		}
		var these, refNames, names []string
		for _, d := range diffs {
			if !sweep.IsPolicyPath(d.Path) || d.A == "" || d.B == "" {
				return nil
			}
			these = append(these, d.Path)
			refNames = append(refNames, sweep.PolicyName(d.Path, d.A))
			names = append(names, sweep.PolicyName(d.Path, d.B))
		}
		if paths == nil {
			paths = these
			lines[0] = sweep.DecisionLine{Name: strings.Join(refNames, " + "), Value: diffs[0].A}
		} else if !slices.Equal(paths, these) {
			return nil
		}
		lines[i] = sweep.DecisionLine{Name: strings.Join(names, " + "), Value: diffs[0].B}
	}
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l.Name] {
			return nil // two results with the same policy: not a decision between policies
		}
		seen[l.Name] = true
	}
	load := ""
	for _, p := range in[0].Points {
		for _, pr := range p.Params {
			if load == "" && sweep.IsLoadPath(pr.Path, []string{pr.Value}) {
				load = pr.Path
			}
		}
	}
	for i := range in {
		for j := range in[i].Points {
			lines[i].Points = append(lines[i].Points, &in[i].Points[j])
		}
	}
	group := sweep.VariedGroup(paths[0], groupNames(in[0].Header))
	for _, p := range paths[1:] {
		if sweep.VariedGroup(p, groupNames(in[0].Header)) != group {
			group = ""
		}
	}
	return sweep.DecideLines(strings.Join(paths, ", "), group, lines, load, ctx)
}

// compareContext is the reference's load context: a sweep's as sweep.json records it, a run's
// today's load from its summary (results.Capacity).
func compareContext(dir, kind string) (sweep.LoadContext, error) {
	if kind == results.KindSweep {
		b, err := sweep.LoadBaseline(filepath.Join(dir, results.SweepFile))
		if err != nil || b.Context == nil {
			return sweep.LoadContext{}, err
		}
		return *b.Context, nil
	}
	s, err := results.ReadSummary(dir)
	if err != nil {
		return sweep.LoadContext{}, err
	}
	return sweep.LoadContext{Today: s.Capacity.Today, Ceiling: s.Capacity.Ceiling, CeilingSource: s.Capacity.Source}, nil
}

// groupNames are the client groups' names of a result's scenario, in the order of clients[].
func groupNames(hdr results.Header) []string {
	sc, err := scenarios.Parse(hdr.Scenario, []byte(hdr.Canonical))
	if err != nil {
		return nil
	}
	var names []string
	for _, g := range sc.Clients {
		names = append(names, g.Name)
	}
	return names
}

package main

import (
	"fmt"

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
	"github.com/overloadsim/overloadsim/results"
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
	skip := func(key string) bool { return unjudged[key] || key == "sweep" && !sweeps }
	return append(out, nodeDifferences("", a, b, skip)...), nil
}

// nodeDifferences lists where b differs from a under path: mappings key by key (a's keys, then
// b's new ones), lists of one length item by item, and anything else (a scalar, lists of
// different lengths, a change of shape) as a whole, written inline. skip leaves out top-level
// keys.
func nodeDifferences(path string, a, b *yamlstrict.Node, skip func(string) bool) []string {
	switch {
	case b == nil:
		return []string{path + " removed"}
	case a != nil && a.Kind == yamlstrict.MapKind && b.Kind == yamlstrict.MapKind:
		var out []string
		seen := map[string]bool{}
		for i, k := range a.Keys {
			seen[k.Text] = true
			if path == "" && skip(k.Text) {
				continue
			}
			out = append(out, nodeDifferences(yamlstrict.JoinPath(path, k.Text), a.Vals[i], b.Get(k.Text), skip)...)
		}
		for i, k := range b.Keys {
			if !seen[k.Text] && !(path == "" && skip(k.Text)) {
				out = append(out, nodeDifferences(yamlstrict.JoinPath(path, k.Text), nil, b.Vals[i], skip)...)
			}
		}
		return out
	case a != nil && a.Kind == yamlstrict.SeqKind && b.Kind == yamlstrict.SeqKind && len(a.Items) == len(b.Items):
		var out []string
		for i := range a.Items {
			out = append(out, nodeDifferences(fmt.Sprintf("%s[%d]", path, i), a.Items[i], b.Items[i], skip)...)
		}
		return out
	case a != nil && yamlstrict.Inline(a) == yamlstrict.Inline(b):
		return nil
	}
	return []string{path + "=" + yamlstrict.Inline(b)}
}

package main

import (
	"fmt"
	"strings"

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

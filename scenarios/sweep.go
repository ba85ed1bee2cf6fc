package scenarios

import (
	"fmt"

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
	"github.com/overloadsim/overloadsim/results"
)

// SweepPoint is one combination of a sweep's values: the parameters as results records them, and
// the scenario with them set (and without the sweep's parameters).
type SweepPoint struct {
	Params   []results.Param // path and value of each parameter, in the sweep's order (Sweep.Paths)
	Scenario *Scenario       // the scenario with those values
}

// Points returns the points of the scenario's sweep: every combination of the parameters'
// values, the parameters in the order given (Sweep.Axes), the first varying slowest. A scenario
// without sweep parameters has one point, itself without parameters. Each point's scenario is
// independent of s and of the other points.
func (s *Scenario) Points() ([]SweepPoint, error) {
	return s.Grid(s.Sweep.Axes())
}

// Grid returns the points of a grid of axes: every combination of their values, the first
// axis varying slowest, each point's scenario s with those values set and without the sweep's
// parameters. A metastability map's axes keep the order the user named them in. Each path must
// be given once.
func (s *Scenario) Grid(axes []results.Axis) ([]SweepPoint, error) {
	seen := map[string]bool{}
	for _, a := range axes {
		if seen[a.Path] {
			return nil, fmt.Errorf("scenarios: %s: %q is an axis twice", s.Name, a.Path)
		}
		seen[a.Path] = true
	}
	base := s.clone()
	if len(s.Sweep.Parameters) > 0 {
		if err := base.Set("sweep.parameters", "null"); err != nil {
			return nil, err
		}
	}
	points := []SweepPoint{{Scenario: base}}
	for _, a := range axes {
		var next []SweepPoint
		for _, p := range points {
			for _, value := range a.Values {
				c := p.Scenario.clone()
				if err := c.Set(a.Path, value); err != nil {
					return nil, err
				}
				params := append(append([]results.Param(nil), p.Params...), results.Param{Path: a.Path, Value: value})
				next = append(next, SweepPoint{Params: params, Scenario: c})
			}
		}
		points = next
	}
	return points, nil
}

// Vary adds a sweep parameter, or replaces one: path is a field path as Set takes it, spec is
// from:to:step (1:8:1, 1s:5s:1s, 1000/s:4000/s:500/s), a comma-separated list of values
// (none,mongodb-2026-03) or a YAML flow list ([1s, 2s, 5s]). Each value is YAML as Set reads
// it, and a comma inside brackets, braces, parentheses or quotes belongs to its value:
// lognormal(1ms, 0.5),exp(2ms) is two values, {kind: step, before: 1000/s, after: 3000/s,
// at: 10s},2000/s two, "a,b",c two. A lone flow list is the list of values: to sweep over one
// list value, write [[a, b]]. Brackets, braces, parentheses and quotes must balance, and no
// value may be empty.
//
// Like Set, it validates the whole scenario again, every value included, and leaves s
// unchanged on error; the error's message starts with the override, --vary path=spec.
func (s *Scenario) Vary(path, spec string) error {
	label := "--vary " + path + "=" + spec
	src := s.source()
	values, err := varyValues(src.file, label, path, spec)
	if err != nil {
		return err
	}
	tree := src.tree.Clone()
	sweep := tree.Get("sweep")
	if sweep == nil || sweep.Kind != yamlstrict.MapKind {
		if err := tree.Set("sweep", &yamlstrict.Node{Kind: yamlstrict.MapKind}); err != nil {
			return err
		}
		sweep = tree.Get("sweep")
	}
	params := sweep.Get("parameters")
	if params == nil || params.Kind != yamlstrict.MapKind {
		if err := sweep.Set("parameters", &yamlstrict.Node{Kind: yamlstrict.MapKind}); err != nil {
			return err
		}
		params = sweep.Get("parameters")
	}
	if old := params.Get(path); old != nil {
		*old = *values
	} else {
		params.Keys = append(params.Keys, &yamlstrict.Node{Kind: yamlstrict.ScalarKind, Text: path, Pos: values.Pos})
		params.Vals = append(params.Vals, values)
	}
	next, err := decodeScenario(src.file, tree, src.read)
	if err != nil {
		return err
	}
	*s = *next
	return nil
}

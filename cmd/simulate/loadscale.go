package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/scenarios"
)

// noteLoadScale says, on w, what a search over the scenario's load factor (the path load among
// paths) leaves out: the closed-loop groups, whose threads the factor does not scale
// (Scenario.Load). It says nothing when load is not varied or every group is an open loop.
func noteLoadScale(w io.Writer, sc *scenarios.Scenario, paths []string) {
	if !slices.Contains(paths, "load") {
		return
	}
	if closed := sc.ClosedLoopGroups(); len(closed) > 0 {
		fmt.Fprintf(w, "note: load multiplies the open-loop groups' rates only; the closed-loop groups (%s) keep their threads, so their load does not scale with it\n",
			strings.Join(closed, ", "))
	}
}

// axisPaths lists the axes' paths, in order.
func axisPaths(axes []results.Axis) []string {
	out := make([]string, len(axes))
	for i, a := range axes {
		out[i] = a.Path
	}
	return out
}

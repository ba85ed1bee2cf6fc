package experiment

import (
	"fmt"

	"github.com/overloadsim/overloadsim/results"
)

// Finish makes the result that a merged set of shards make, the same, to the bit, as the study
// run on one machine returns: info is the work's description (Merge) and runs every unit's
// summary by unit number. What it returns is the kind's result as its engine's Run returns it,
// for the command to write and print as it does the study's.
type Finish func(info ShardInfo, runs []results.Summary) (any, error)

// finishes is the table of how each kind of work is finished from its merged shards, by
// ShardInfo.Work: one entry per kind, each registered by the engine that makes that kind.
var finishes = map[string]Finish{}

// RegisterFinish registers how work of kind is finished from its merged shards; an engine
// registers its kind in its package's init. It panics when kind already has one: two packages
// claiming one kind is a programming error.
func RegisterFinish(kind string, f Finish) {
	if _, dup := finishes[kind]; dup {
		panic(fmt.Sprintf("experiment: RegisterFinish(%q) twice", kind))
	}
	finishes[kind] = f
}

// FinishMerged returns the result of the merged shards info and runs, made by the Finish
// registered for info.Work.
func FinishMerged(info ShardInfo, runs []results.Summary) (any, error) {
	f, ok := finishes[info.Work]
	if !ok {
		return nil, fmt.Errorf("shards of a %q cannot be merged", info.Work)
	}
	return f(info, runs)
}

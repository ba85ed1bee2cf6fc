package experiment

import (
	"fmt"
	"io"

	"github.com/overloadsim/overloadsim/results"
)

// Finish writes, into dir, the result a merged set of shards makes: the same files, byte for
// byte, as the study run on one machine. info is the work's description (Merge) and runs every
// unit's summary by unit number.
type Finish func(dir string, info ShardInfo, runs []results.Summary, o FinishOptions) error

// FinishOptions are what a Finish needs besides the merged shards.
type FinishOptions struct {
	// Created is whether the merge created dir: a result that writes nothing (a tuning with no
	// feasible candidate) removes it again.
	Created bool
	// Plot asks for the figures to be drawn next to the result.
	Plot           bool
	Stdout, Stderr io.Writer
}

// finishes is the table of how each kind of work is finished from its merged shards, by
// ShardInfo.Work: one entry per kind, each registered by the package that makes that kind.
var finishes = map[string]Finish{}

// RegisterFinish registers how work of kind is finished from its merged shards. It panics when
// kind already has one: two packages claiming one kind is a programming error.
func RegisterFinish(kind string, f Finish) {
	if _, dup := finishes[kind]; dup {
		panic(fmt.Sprintf("experiment: RegisterFinish(%q) twice", kind))
	}
	finishes[kind] = f
}

// FinishMerged writes the result of the merged shards info and runs into dir with the Finish
// registered for info.Work.
func FinishMerged(dir string, info ShardInfo, runs []results.Summary, o FinishOptions) error {
	f, ok := finishes[info.Work]
	if !ok {
		return fmt.Errorf("shards of a %q cannot be merged", info.Work)
	}
	return f(dir, info, runs, o)
}

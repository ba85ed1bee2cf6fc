package experiment

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/scenarios"
)

// NewShardInfo describes shard sh of the work of kind work (results.KindSweep, KindMap or
// KindTune) over points, each run reps times.
func NewShardInfo(work string, hdr results.Header, sh Shard, points []scenarios.SweepPoint, reps int) ShardInfo {
	info := ShardInfo{Header: hdr, Work: work, Index: sh.Index, Count: sh.Count,
		Replications: reps, Units: len(points) * reps}
	for _, p := range points {
		info.Points = append(info.Points, p.Params)
	}
	return info
}

// ShardRun is one shard to run: the work's description, its points and how to run them.
type ShardRun struct {
	Info    ShardInfo
	Points  []scenarios.SweepPoint // the work's points, Info.Points' scenarios
	Seed    uint64
	Workers int
	Dir     string // the shard's folder
	Options bench.RunOptions
	// Measures, for a tuning's shard, are what each run keeps in its summary's Expected instead
	// of the scenario's expectations: the tuning's objective and constraints (nil otherwise).
	Measures []results.Expectation
	// Hooks: Log is where the units set aside, the units resumed and the finished shard are
	// told, Bar the progress (labelled "shard i/n"), Running the runs in progress.
	Hooks Hooks
	// Interrupted is wrapped by the error of a shard some of whose units did not finish.
	Interrupted error
}

// RunShard runs the units r.Info's shard owns, on r.Workers, keeping each finished run's summary
// in r.Dir at once (OpenShard), so that a shard stopped in any way and run again runs only what
// it had not finished. When every unit is done it writes the shard's manifest (FinishShard);
// stopped through ctx, it leaves the folder unfinished and its error, wrapping r.Interrupted,
// says how far it got.
func RunShard(ctx context.Context, r ShardRun) error {
	info := r.Info
	units, kept, err := OpenShard(r.Dir, info)
	if err != nil {
		return err
	}
	for _, d := range units.Discarded {
		r.Hooks.Logf("not resuming from %s\n", d)
	}
	sh := info.Shard()
	owned := sh.Units(info.Units)
	keptIn := filepath.Join(r.Dir, results.UnitsDir)
	if len(kept) > 0 {
		r.Hooks.Logf("resuming shard %s: %d of its %d runs kept in %s\n", sh, len(kept), len(owned), keptIn)
	}
	reps := info.Replications
	_, done, err := RunIndexed(ctx, len(owned), r.Workers, func(k int) (struct{}, error) {
		u := owned[k]
		if _, ok := kept[u]; ok {
			return struct{}{}, nil
		}
		defer r.Hooks.Start()()
		run, err := bench.RunWith(r.Points[u/reps].Scenario, r.Seed, u%reps, r.Options)
		if err != nil {
			return struct{}{}, fmt.Errorf("%s: %w", info.UnitName(u), err)
		}
		if r.Measures != nil {
			run.Summary.Expected = results.Measure(r.Measures, &run.Summary, run.Series)
		}
		return struct{}{}, units.Put(u, run.Summary)
	}, r.Hooks.Progress("shard "+sh.String()))
	if err != nil {
		return err
	}
	finished := 0
	for _, d := range done {
		if d {
			finished++
		}
	}
	if finished < len(owned) {
		return fmt.Errorf("%w: shard %s is unfinished: %d of its %d runs are kept in %s; run the same command to finish it",
			r.Interrupted, sh, finished, len(owned), keptIn)
	}
	if err := FinishShard(r.Dir, info); err != nil {
		return err
	}
	r.Hooks.Logf("wrote shard %s of %s to %s: %d of %d runs; when all %d shards have finished, 'simulate merge' their folders\n",
		sh, info.Work, r.Dir, len(owned), info.Units, sh.Count)
	return nil
}

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/experiment"
	_ "github.com/overloadsim/overloadsim/experiment/phasemap" // registers how a map's shards merge
	sweepexp "github.com/overloadsim/overloadsim/experiment/sweep"
	_ "github.com/overloadsim/overloadsim/experiment/tune" // registers how a tuning's shards merge
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/phasemap"
	"github.com/overloadsim/overloadsim/results/tune"
)

var mergeCommand = command{
	summary: "merge the shards of a sweep, map or tuning run with --shard into the one-machine result",
	usage: `Usage: simulate merge SHARD-DIR... [options]

Reads the folders written by 'simulate sweep … --shard i/n', 'simulate map … --shard i/n' or
'simulate tune … --shard i/n' (a tuning's coarse grid: it cannot refine) for every i of n, checks that they are the n shards of one piece of work (same scenario
digest, seed, replications, simulator version, points and options such as --slo; each shard once, each finished and intact,
every unit present once) and writes the same files, byte for byte, as the command without
--shard on one machine. On any problem it names the shard and the unit, and writes nothing.

Shard i of n holds the runs (units) u = point × replications + replication with u mod n = i.

Examples:
  simulate sweep spike --vary 'clients[0].workload.rate=1000/s:4000/s:500/s' --shard 0/2 --out shards/0
  simulate sweep spike --vary 'clients[0].workload.rate=1000/s:4000/s:500/s' --shard 1/2 --out shards/1
  simulate merge shards/0 shards/1 --out spike-sweep --plot`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		out := fs.String("out", "", "output folder (default: out/<scenario>-sweep, -map or -tune)")
		plotToo := fs.Bool("plot", false, "also draw the figures next to the results")
		return func(args []string, stdout, stderr io.Writer) error {
			if len(args) == 0 {
				return usageErrorf("merge: give the shard folders (all n of them)")
			}
			shards := make([]experiment.ShardResult, 0, len(args))
			for _, dir := range args {
				s, err := experiment.ReadShard(dir)
				if err != nil {
					return err
				}
				shards = append(shards, s)
			}
			info, runs, err := experiment.Merge(shards)
			if err != nil {
				return err
			}
			if v := label().Version; info.Header.Version != v {
				return fmt.Errorf("the shards were made by simulate %s and this is %s: merge them with the simulate that made them, or run them again", info.Header.Version, v)
			}
			dir := *out
			if dir == "" {
				dir = filepath.Join("out", info.Header.Scenario+"-"+info.Work)
			}
			for _, s := range shards {
				if inside(dir, s.Dir) {
					return usageErrorf("--out %s: it is inside shard %s's folder %s; write the merged result elsewhere", dir, s.Info.Shard(), s.Dir)
				}
			}
			merged, err := experiment.FinishMerged(info, runs)
			if err != nil {
				return err
			}
			_, statErr := os.Stat(dir)
			created := errors.Is(statErr, os.ErrNotExist) // a tuning with no feasible candidate writes nothing
			if err := prepareOut(dir); err != nil {
				return err
			}
			switch r := merged.(type) { // written and printed as the study's command does
			case sweepexp.Result:
				err := writeSweep(dir, info.Header, info.Context, info.Expect, r, info.Replications, stdout, stderr)
				if err == nil && *plotToo {
					err = writeFigures(dir, stderr)
				}
				return err
			case phasemap.Map:
				return writeMap(dir, r, *plotToo, nil, stdout, stderr)
			case *tune.Tuning:
				return finishTune(r, nil, dir, created, *plotToo, "text", stdout, stderr)
			}
			return fmt.Errorf("shards of a %q merge into a %T, which simulate cannot write", info.Work, merged)
		}
	},
}

// inside reports whether path is folder or lies inside it, once every symbolic link in either
// is resolved: a link to a shard's folder is that folder.
func inside(path, folder string) bool {
	p, err1 := results.ResolvePath(path)
	f, err2 := results.ResolvePath(folder)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(f, p)
	return err == nil && filepath.IsLocal(rel)
}

// Package experiment is how studies are produced: the machinery every study shares, under the
// engines of the sweep, the map, the tipping-point search, the tuning and the rare-event
// estimate (experiment/sweep, experiment/phasemap, experiment/tip, experiment/tune,
// experiment/rare), each an Options struct and one call.
//
// A study is many independent runs of one scenario. RunIndexed runs them on a pool of workers
// and keeps each result at its index, never in completion order, so that the output does not
// depend on the number of workers (docs/conventions.md §5). Before any of them starts, the
// work is refused when it is too large: RefuseRuns against a cap on the number of runs, and
// Limits against the wall time and memory the scenario's cost estimate implies. A refusal is an
// error that matches ErrRefused, so that the command can tell it from a failure. While the
// runs go, the command watches them through Hooks (what is told, progress, the runs in
// progress), which never change a result; Header, Trigger and Recovery are what the engines
// share about a study's scenario and its runs.
//
// A sweep keeps each finished run (unit) in its folder (Units, OpenUnits) under a key naming the
// work (UnitsKey), so that the same sweep run again resumes instead of starting over. Work
// split over machines is dealt in shards (Shard: unit u to shard u mod n): RunShard runs one,
// keeping its units the same way and describing it in shard.json (ShardInfo); ReadShard and
// Merge check that shards are the n shards of one work, whole and intact, and FinishMerged
// makes the work's result with the Finish its kind's engine registered (RegisterFinish, in the
// engine's init), for the command to write and print as it does the study's.
package experiment

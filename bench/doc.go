// Package bench wires a scenario onto a simulation loop and runs it. [Build] makes the world —
// the servers, the clients, the application groups and the faults of a scenarios.Scenario — on
// one sim.Loop, recorded by a record.Recorder; [Run] and [RunWith] build a replication
// ([ReplicationSeed]), run it to the scenario's horizon and summarise it into a results.Run;
// [SplitModel] runs it as a splitting.Model for rare-event estimates; and [Estimate] says what a
// run will cost ([Cost]), from the scenario's fields alone, so that a command can refuse work
// that cannot finish before starting any of it.
//
// # Running
//
// [Build] wires a scenario onto a loop with one run seed: the cluster (streams
// server/<node>/service and server/<node>/failpoint), each mongos's router (its links
// link/mongos/<mongos>/<member> and its own mongos/<mongos>/… streams), per group count clients
// (client/<group>/<i>), each with one link per host (link/<group>/<i>/<node>), the group
// (group/<group>), the faults, and the recorder. [Run] builds, records every interval, runs to
// the duration and summarises; its header records the canonical text, the run seed and the
// seeds of every stream. Replication r of a run with seed S uses [ReplicationSeed](S, r): S
// itself for r = 0, splitmix64(S ^ FNV-1a("replication/<r>")) otherwise. The same scenario and
// seed build the same world and so produce identical results.
//
// The scenario is data (package scenarios): its types, defaults, rules and canonical text. This
// package is where that data meets the model; its code runs inside the loop, so it keeps the
// determinism rules of the model packages (internal/lint).
package bench

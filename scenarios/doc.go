// Package scenarios turns a scenario — topology, client groups, workload, faults and policy, as
// data — into a validated configuration and a wired world of servers and clients on one sim
// loop, and embeds the library of named scenarios the CLI offers.
//
// Units are explicit in scenario files (250ms, 2000/s). Validation reports every problem at once,
// each naming the file, the field path, the value and the rule. Invariant: the same scenario and
// seed build the same world and so produce byte-identical outputs.
package scenarios

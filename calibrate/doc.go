// Package calibrate turns a production cluster's diagnostic documents into a scenario of it,
// and checks a scenario against them (simulate calibrate, docs/calibration.md).
//
// [Load] reads serverStatus documents, getParameter output and structured mongod logs (package
// results/serverstatus), groups the documents by host, orders them in time and checks them
// together: two documents of a host at one instant, or a counter that went back (a restart), are
// errors naming the files and the field. [WindowOf] is what one node showed between two of its
// documents: each command's rate, the opLatencies kinds' mean and quantiles, the execution
// ticket pools' processing and queueing times, utilisation, connections and the ingress
// limiters' admissions.
//
// [Calibrate] writes the scenario: the topology from the documents' process and repl sections,
// each mongod's workers from its execution tickets, its service times per ticket pool — the mean
// from the tickets' processing time (queueing excluded), the shape fitted (package
// calibrate/fit) to whichever holds more operations of the log's per-operation times and the
// latency histogram (when the wait for a ticket is a small part of it), else exponential; a
// command whose logged times differ from its pool's gets its own — the limiters' settings
// exactly as getParameter gives them, and open-loop client groups with the commands the cluster
// served at their rates (one for the primaries, one reading from secondaries when they served
// reads). What cannot be fitted is left at its default, with a comment and a note.
//
// [Check] runs a scenario with its nodes' serverStatus documents recorded (record.StatusLog)
// and compares the same measurements, node by node, with production's, each with its
// tolerance. The round trip simulate → export → calibrate → simulate is this package's main
// test.
package calibrate

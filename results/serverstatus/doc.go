// Package serverstatus holds the parts of MongoDB's diagnostic documents that overloadsim reads
// and writes: db.serverStatus() (Doc), the getParameter output (Params) and the structured
// mongod log's slow-query and client-metadata entries (LogEntry). They are records, not the
// model: package record fills them from a run (simulate run --serverstatus), and package
// calibrate reads a production cluster's documents to write a scenario.
//
// Documents are Extended JSON, relaxed or canonical (what mongosh prints with EJSON.stringify),
// one or several per file. Numbers may be plain or wrapped ($numberInt, $numberLong,
// $numberDouble, $numberDecimal); dates are {"$date": ISO-8601 or milliseconds}. Every section is
// optional and a pointer: nil says the server did not report it (another version, or a process
// that does not have it), which calibrate names instead of guessing.
//
// # Reading
//
// ReadFile (and Read, for a stream) takes a file of documents one after another — JSON lines,
// concatenated, pretty-printed, or a JSON array — or a structured mongod log, and sorts each
// top-level document by what it holds: a serverStatus has host, process and uptime (or
// opcounters), a getParameter output one of Params' parameters, a log line t, id and msg. Log
// lines of ids other than 51803 ("Slow query") and 51800 ("client metadata") are counted in
// File.Skipped.
//
// Server versions put the execution tickets in different places, which the reader keeps where
// they are and Doc.Execution finds: queues.execution from 8.0, admission.execution in 7.0,
// wiredTiger.concurrentTransactions before (whose queue counters, at the top of read and
// write in 6.x, move into NormalPriority so that every version reads alike).
//
// The reader is strict about what it keeps and blind to the rest: a counter must be an
// integer ≥ 0 (a whole double such as 5.0 or 1e3 is one; a fraction, a string or NaN is not),
// a ticket pool's available may be negative while the server shrinks it, a limiter's
// totalAvailableTokens is a balance (rounded down, math.MaxInt64 for an infinite one), dates
// lie between the years 1 and 9999. Fields it does not read, $oid, $timestamp, $binary and
// $uuid among them, are passed over whatever they hold. Every problem is a *field.Error named
// "FILE:LINE: path.in.document", collected in file order; what takes several documents (a
// counter that went backwards: a restart; two snapshots of a host at one time) is the
// caller's to see.
//
// Bounds are checked before decoding: a regular file only (no directory, device or pipe, which
// is refused without being opened), a file of documents at most 64 MiB, a log at most 256 MiB
// (refused from its size alone, with the grep that cuts it to the lines calibration reads), a
// document at most 16 MiB, 500 000 values and 256 levels deep.
//
// # Writing
//
// Write writes a Doc or Params as one line of relaxed Extended JSON whose bytes depend on the
// value alone (docs/conventions.md §9), which ReadFile reads back to an equal value. A run's
// snapshots are thus files a calibration reads as it reads production's.
//
// # Sources
//
// The fields and their versions follow MongoDB's manual: serverStatus
// (https://www.mongodb.com/docs/manual/reference/command/serverStatus/: opcounters,
// opLatencies, connections, network, queues, metrics.commands, wiredTiger), the latency
// histogram (https://www.mongodb.com/docs/manual/reference/method/db.collection.latencyStats/),
// getParameter (https://www.mongodb.com/docs/manual/reference/command/getParameter/), the log
// (https://www.mongodb.com/docs/manual/reference/log-messages/: JSON output format, slow
// operations, client data) and Extended JSON v2
// (https://www.mongodb.com/docs/manual/reference/mongodb-extended-json/).
package serverstatus

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
package serverstatus

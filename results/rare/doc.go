// Package rare holds what a rare-event estimate's result is: the probability that a score
// reaches a threshold within a run, by multilevel splitting and optionally by plain
// replication at the same cost, each with its interval, relative error and cost (Result),
// written to and read from a result folder's rare.json (Write, Read) under the folder
// discipline of package results. The estimator itself is analysis/splitting.
package rare

// Package selection is a driver's server selection: given a view of the topology (each server's
// address, role, average RTT, in-flight operation count and tags), a read preference, the
// operation's kind (read or write) and the addresses to deprioritise, it picks the server for one
// operation. Select is a pure function of its arguments and one random draw. It does not
// allocate, so a client can call it for every attempt.
//
// # Algorithm
//
// The multi-threaded algorithm of the server selection specification, steps 3 to 7:
//
//  1. Suitable servers. Drop the deprioritised addresses, then find the servers suitable for
//     the topology and operation among the rest. If none is suitable, find them again among all
//     servers, deprioritised ones included.
//  2. Latency window. Keep the suitable servers whose average RTT lies in
//     [minRTT, minRTT + localThreshold], minRTT being the smallest average RTT among them.
//  3. Power of two choices. If the window holds one server, it is the answer. Otherwise pick
//     two distinct servers uniformly at random and take the one with fewer operations in
//     flight. On a tie, take the first of the two drawn.
//
// Suitable servers (step 1), by topology:
//
//	Single      every server of a known role, whatever the read preference
//	Sharded     every mongos, for reads and writes (mongos applies the read preference)
//	ReplicaSet  writes: the primary
//	            primary             the primary
//	            secondary           the eligible secondaries
//	            nearest             the eligible primary and secondaries
//	            primaryPreferred    the primary if there is one, else the eligible secondaries
//	            secondaryPreferred  the eligible secondaries if any, else the primary
//
// A server of role Unknown is never suitable, and in a replica set only primaries and
// secondaries are. The eligible servers are the candidates that match the read preference's
// tag sets: tag sets are tried in order, the first that matches at least one candidate selects
// all candidates it matches, and later sets are ignored. A tag set matches a server that has
// every one of its tags, so the empty tag set matches every server. An empty list of tag sets
// makes every candidate eligible; a non-empty list of which no set matches any candidate makes
// none eligible. Tag sets apply to secondaries, and to the primary only under nearest.
//
// Because step 1 runs the whole table twice, once without the deprioritised servers and once
// with them, the special cases of the specification follow without extra code:
//
//   - primary: the primary is chosen even if deprioritised, because it is the only suitable
//     server (spec test ReplicaSetWithPrimary/read/DeprioritizedPrimary).
//   - primaryPreferred: a non-deprioritised primary; else the non-deprioritised eligible
//     secondaries; else the primary, deprioritised; else all eligible secondaries. "If the
//     primary is deprioritized, a secondary MUST be selected if one is available."
//   - secondaryPreferred: the non-deprioritised eligible secondaries; else a non-deprioritised
//     primary; else all eligible secondaries; else the primary. "If all secondaries are
//     deprioritized, the primary MUST be selected if it is available." With every member
//     deprioritised, the secondaries are suitable (spec test
//     ReplicaSetWithPrimary/read/DeprioritizedAllSecondaryPreferred).
//   - secondary, nearest, Sharded and writes: the non-deprioritised suitable servers, else all.
//
// Deprioritisation is by address, so it survives topology updates that replace a server's
// description.
//
// # Random draws
//
// Select makes exactly one call r.IntN(n·(n−1)) when the latency window holds n ≥ 2 servers,
// and no call otherwise (no suitable server, or one in the window). The value k it returns
// names the ordered pair (i, j) of window positions with i = k / (n−1) and j = k mod (n−1),
// j incremented when j ≥ i. Window positions follow the order of the servers slice, so callers
// should keep that order stable. One IntN call consumes one Uint64 from r's source, except
// with probability below n²/2⁶⁴, when math/rand/v2's unbiasing loop draws again.
//
// # Average RTT
//
// RTT keeps a server's average round-trip time as the specification defines it: the first
// sample is taken as is; each later sample x moves the average to 0.2·x + 0.8·old; the average
// is cleared when the server becomes unavailable. RTT computes in integer nanoseconds, rounding
// each step to the nearest nanosecond, so no floating point is involved and every platform gets
// the same bits. Its error against the real-valued average stays below 2 ns.
//
// # Sources
//
//   - MongoDB specifications, source/server-selection/server-selection.md: "Server Selection
//     Algorithm" (multi-threaded), "Read preference" (mode, tag_sets), topology-type rules,
//     "Calculation of Average Round Trip Times", "Filtering suitable servers based on the
//     latency window", operationCount. Deprioritisation was extended from sharded clusters to
//     every topology by the changelog entry of 2025-12-08.
//   - source/server-selection/tests/server_selection/ReplicaSetWithPrimary/read/Deprioritized*:
//     the deprioritisation spec tests quoted above and in the tests of this package.
//   - source/retryable-reads/tests/README.md, prose tests 3.1 to 3.3: a retry after an overload
//     error goes to another server if the failed one is deprioritised, to the same server if not.
//   - The Node driver's src/sdam/server_selection.ts and PyMongo's topology_description.py
//     implement the same rules. Node applies tag sets before the deprioritisation filter for
//     secondaries and nearest; this package filters first, as the specification's algorithm
//     reads. The two differ only when an earlier tag set matches deprioritised servers alone and
//     a later one matches a server that is not deprioritised: this package selects among the
//     later set's servers, Node does not.
package selection

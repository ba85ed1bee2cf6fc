// Package scenarios holds a scenario — topology, client groups, workload, faults and policy — as
// data: its types, defaults, rules, canonical text and sweep, read strictly from YAML; and it
// embeds the library of named scenarios the CLI offers. Package bench wires one onto a loop and
// runs it.
//
// # Reading a scenario
//
// [Load] reads a file, [Parse] bytes, [Lookup] a library scenario. Every field starts from its
// default (below), the file is decoded over it strictly — an unknown field, or a value of the
// wrong shape, is an error at its line and column — then [Scenario.EnsureDefaults] fills the
// defaults that depend on other fields and [Scenario.Validate] checks every rule. All problems
// are reported at once, as [Problems], in file order, one per line:
//
//	spike.yaml:14: clients[0].driver.maxAdaptiveRetries: -1: must be ≥ 0 (0 disables overload retries) (retryPolicy mongodb-2026-07)
//	spike.yaml:6:7: topology.nodes[0]: workres: unknown field; did you mean workers?
//
// that is file:line: field path: value: rule, with the column for syntax errors and unknown
// fields. Rules that belong to another package are that package's own check — server.Config,
// client.Options (with client/selection and client/retry), client.Workload, failpoint.Config,
// the workload and dist constructors — with the error moved to the scenario's field and line.
//
// [Scenario.String] is the canonical text: YAML with every field in a fixed order, maps
// sorted, every default written out. It reads back to itself (Parse(String()).String() ==
// String()) within the limits below — every default written out, a scenario of some 450
// client groups writes more tokens than a file may hold — and the run header embeds it.
//
// The YAML library is github.com/goccy/go-yaml: it is maintained (gopkg.in/yaml.v3 was
// archived in 2025), its parser gives every node a line and column and rejects duplicate keys,
// and its AST lets internal/yamlstrict do the strict decoding itself, so that each problem names
// the scenario's own field path: yamlstrict turns the AST into a tree of nodes with positions,
// decodes it into the scenario's types by their yaml tags and writes the canonical text, and
// this package adds its own vocabulary as the decoder's hooks (durations in ms, rates N/s,
// distributions, profiles, enumerations, a driver's retry policy block, defaults). Anchors and aliases work (expanded, at most 100 000 values);
// merge keys (<<) and multiple documents do not.
//
// Input is bounded before it is parsed, so that a broken or hostile file is a problem at once
// rather than a process that grows without end: a scenario file is a regular file (not a
// directory, a device such as /dev/zero, or a pipe) of at most [MaxFileBytes], UTF-8 text
// without control characters (a leading byte-order mark is allowed), of at most 50 000 tokens
// (words, numbers and punctuation), nested at most 64 levels deep, with at most 1 000 keys in
// a mapping (the bounds of strict YAML, internal/yamlstrict, which reads files that way for
// other callers too); the files it names are regular files of at most [MaxDataFileBytes]. Messages print
// at most a line's worth of any value, quoted when it holds characters that do not print
// (field.Show). bench.Estimate estimates what a run costs, from the fields alone.
//
// # Units
//
// Durations take a unit: 250ms, 1.5s, 1m30s, 20µs (or 20us). Fields named …MS are the drivers'
// and MongoDB's millisecond options and also take a bare number of milliseconds (timeoutMS:
// 500). Rates are operations per second, written 2000/s; in …PerSec fields and in a profile's
// parameters a bare number also reads as per second, but a group's rate must say /s (rate:
// 100 is refused). Other numbers are plain (0.5). Distributions of durations have a short
// syntax (package dist):
//
//	5ms                   a constant (so is const(5ms))
//	exp(5ms)              exponential with mean 5ms
//	lognormal(3ms, 0.5)   log-normal with mean 3ms and σ 0.5 of the underlying normal
//	gamma(5ms, 2)         gamma with mean 5ms and shape 2 (rate 2/5ms; CV 1/√2)
//	uniform(1ms, 3ms)     uniform on [1ms, 3ms]
//	empirical(1ms, 2ms)   drawn from the values listed
//	empirical(file.csv)   drawn from a file of values (dist.ReadEmpiricalCSV), read relative
//	                      to the scenario file (library scenarios: inside the library)
//
// Inside a flow mapping ({…}) a distribution with a comma must be quoted.
//
// # Top level
//
//	field        default            meaning
//	name         the file's name    the scenario's name, which names its output folder: at
//	                                most 100 bytes of letters, digits, spaces and . _ - + ( ),
//	                                not starting with . or a space nor ending with a space
//	description  ""                 what it models
//	claim        ""                 the one sentence it demonstrates
//	seed         1                  the run seed of replication 0 (see bench.ReplicationSeed)
//	duration     60s                virtual time a run lasts; > 0
//	warmup       0s                 left out of the summary: a duration in [0, duration), or
//	                                auto (MSER-5 on total goodput, results.AutoWarmup)
//	interval     1s                 time-series resolution; in (0, duration]
//	topology     one standalone db  the servers
//	clients      (required)         the application groups; at least one
//	load         1                  multiplies every open-loop group's rate (a finite number
//	                                > 0; 2 doubles the load); closed loops are left as they
//	                                are; the canonical text leaves out 1 (below)
//	faults       []                 timed changes to the servers and to the load: triggers
//	recovery     (the defaults)     the rule that judges recovery after each trigger
//	sweep        replications: 10   parameters to vary across runs
//	expect       []                 the claim as data: what run and sweep check
//
// # topology
//
//	kind          standalone   standalone (one node, or several independent ones, each group
//	                           naming its own with hosts), replicaset (one primary at the
//	                           start), or sharded (mongos nodes and shards, each a replica set)
//	electionTime  10s          a replica set's time without a primary after a stepdown or after
//	                           its primary goes down; > 0 (each shard elects on its own)
//	nodes         [{name: db}] the mongods, mongos nodes and Couchbase nodes
//	router        (sharded)    the mongos nodes' routing parameters (below)
//
// Each node (server.Config; MongoDB's parameter names where MongoDB has one):
//
//	name              (required)     the address: unique; letters, digits, . _ : -; ≤ 100 bytes
//	role              derived        standalone; in a replica set (or a shard) the first node is
//	                                 primary unless another is, the rest secondary; mongos
//	shard             —              sharded: the shard a primary or secondary belongs to
//	flavor            mongodb        mongodb or couchbase (standalone only): a Couchbase node
//	                                 answers overload with KV TemporaryFailure (0x86), search
//	                                 HTTP 429 or query 503, and can rebalance
//	workers           8              commands executing at once; ≥ 1 (cores, when shared)
//	execution         tickets        tickets (workers at once, a queue) or shared (all at
//	                                 once on workers shared cores: processor sharing)
//	maxQueueDepth     0              bound on the queue for a worker (433 beyond); 0 = none
//	service           exp(1ms)       service time of every command
//	serviceByCommand  {}             service time per command: find, insert, update, delete,
//	                                 aggregate, getMore, ping, findAndModify, hello, …
//	uslSigma          0              USL contention σ: service × (1 + σ(n−1) + κn(n−1)); ≥ 0
//	uslKappa          0              USL coherency κ; ≥ 0
//	inFlightPenalty   0s             + k·n service time with n executing; ≥ 0
//	rejectCost        20µs           worker time a rejection (462, 433) takes; 0s = free
//	rejectOrder       ahead          where a rejection waits for a worker: ahead of queued
//	                                 work, or fifo with it (docs/model.md §5.4)
//	handshakeCost     2ms            time for a new connection to become usable; ≥ 0
//	handshakeWork     0s             worker time a new connection's handshake (TLS, auth)
//	                                 takes, ahead of queued commands; 0s = none
//	networkDelay      const(500µs)   one-way delay of each client↔node link
//	externalClientBaseBackoffMS                    0      baseBackoffMS on overload errors;
//	                                                      whole ms; 0 = off
//	retryPushbackMS                                0      server pushback on overload errors:
//	                                                      retry after N ms, or not when < 0
//	                                                      (grpc, aws-*); 0 = none
//	ingressRequestRateLimiterEnabled               false
//	ingressRequestAdmissionRatePerSec              2147483647/s   tokens/s; > 0
//	ingressRequestAdmissionBurstCapacitySecs       DBL_MAX        seconds of rate; > 0
//	ingressRequestAdmissionMaxQueueDepth           0      requests that may wait; ≥ 0
//	ingressRequestRateLimiterApplicationExemptions []     appName prefixes that are exempt
//	ingressConnectionEstablishmentRateLimiterEnabled   false
//	ingressConnectionEstablishmentRatePerSec           2147483647/s   connections/s; > 0
//	ingressConnectionEstablishmentBurstCapacitySecs    DBL_MAX        > 0
//	ingressConnectionEstablishmentMaxQueueDepth        0      ≥ 0
//
// The limiter defaults are MongoDB's: an enabled limiter is inert until given a rate. A
// mongos node has the same fields: its limiters and failpoints act before it routes, and its
// workers only pay rejection costs (routing itself is free).
//
// router, the mongos's server-internal client toward the shards (package server/mongos,
// docs/model.md §7), shared by every mongos:
//
//	defaultClientBaseBackoffMillis       100ms    backoff base; ≥ 0, whole ms
//	defaultClientMaxBackoffMillis        10s      one backoff's cap; ≥ base
//	defaultClientMaxRetryAttempts        3        retries after the first attempt; ≥ 0
//	shardRetryTokenBucketCapacity        1000     each shard's retry budget; > 0
//	shardRetryTokenReturnRate            0.1      tokens back per attempt not overloaded; > 0
//	retryBudget                          true     false: DefaultRetryStrategy alone (a model
//	                                              switch: the server always has the budget)
//	overloadAwareServerSelectionEnabled  false    overload retries avoid failed members
//	exhaustedRetryLabels   [SystemOverloadedError]  labels on the overload error returned once
//	                                              retries run out; add RetryableError and
//	                                              NoWritesPerformed and drivers retry again
//	localThresholdMS                     15ms     host targeting's latency window
//	heartbeatFrequencyMS                 10s      RTT pings to every shard member
//
// A mongos targets one shard per command, uniformly at random (single-shard operations on a
// hashed shard key), and a member by the read preference the driver forwards.
//
// # clients
//
// Each group is Count MongoClients run by one application tier:
//
//	name      (required)   unique; letters, digits, . _ -; at most 100 bytes
//	count     1            MongoClient instances; in [1, 1000000]
//	hosts     all nodes    the nodes its clients connect to: every mongos when sharded; exactly
//	                       one in a standalone topology of several nodes; none in a replica set
//	driver    defaults     MongoClient options (below)
//	workload  (required)   an open or a closed loop (below)
//	mix       {find: 1}    weight per operation: find, insert, update, delete, aggregate,
//	                       aggregateOut, getMore, runCommand, commitTransaction,
//	                       abortTransaction — or, for a couchbase-* policy, the Couchbase
//	                       requests kvGet, kvGetAndLock, kvUpsert, kvUnlock, query,
//	                       queryReadonly, search; weights ≥ 0 with a positive sum
//	timeout   0s           the application's deadline per operation, retries included; 0 = none
//	appRetry  see below    the application's own retries around the driver
//
// driver, with the drivers' names and defaults (client.Options; "0 = x" is an option whose 0
// means its default x, in the model too, and which the canonical text leaves out at 0):
//
//	appName                    the group's name
//	retryReads, retryWrites    true
//	timeoutMS                  0 (CSOT off); ≥ 0; not with node-7.8.0 or node-7.9.0
//	maxPoolSize                100; ≥ 1
//	maxConnecting              2; ≥ 1
//	connectTimeoutMS           30s; > 0
//	serverSelectionTimeoutMS   30s; > 0
//	waitQueueTimeoutMS         0 (none); ≥ 0
//	localThresholdMS           15ms; ≥ 0
//	heartbeatFrequencyMS       10s; > 0
//	minHeartbeatFrequencyMS    500ms; > 0
//	readPreference             primary, primaryPreferred, secondary, secondaryPreferred, nearest
//	readPreferenceTags         [] tag sets in order, e.g. [{dc: ny}, {}]; not with primary
//	retryPolicy                mongodb-2026-03, mongodb-2026-07 (the spec texts),
//	                           mongodb-legacy, none; a driver release as it ships: go-2.6.0 …
//	                           go-2.10.0, node-7.2.0 … node-7.9.0 (docs/drivers.md); a
//	                           Couchbase SDK3's couchbase-besteffort or couchbase-failfast
//	                           (its hosts must be couchbase nodes); or another stack's: grpc,
//	                           aws-standard, aws-adaptive, finagle, envoy, sre-throttle, custom
//	                           (docs/policies.md)
//	adaptiveRetries            false (mongodb-2026-03 only)
//	retryTokenCapacity         0 = 1000 (mongodb-2026-03 with adaptiveRetries only; > 0)
//	grpc, aws, finagle, envoy, sre, custom
//	                           absent = the policy's defaults: each policy's option block,
//	                           keyed as its registry entry names it (retry.BlockKeys), only
//	                           with its retryPolicy (aws for aws-standard and aws-adaptive, sre
//	                           for sre-throttle); a block given starts from the defaults
//	                           (docs/policies.md lists every option)
//	maxAdaptiveRetries         2 (mongodb-2026-07 and the release presets only; ≥ 0)
//	enableOverloadRetargeting  false (mongodb-2026-07 and the release presets only)
//	kvTimeout                  0 = 2.5s (couchbase-* only): the KV request timeout
//	queryTimeout, searchTimeout  0 = 75s (couchbase-* only)
//	circuitBreaker             absent = off (couchbase-* only): {enabled: true, volumeThreshold:
//	                           20, errorThresholdPercentage: 50, sleepWindow: 5s, rollingWindow:
//	                           1m} — the SDK's per-endpoint breaker; only timeouts count as
//	                           failures, and a refused request is retried as
//	                           CIRCUIT_BREAKER_OPEN
//
// workload: an open loop — arrivals (poisson, the default, or fixed: evenly spaced) and rate,
// the whole group's rate, handed to its clients in turn (assign: roundRobin, the default) or
// each to a client drawn at random (assign: random) — or a closed loop — threads per client
// (≥ 1) and think (a distribution, default 0s) between an operation's end and the next, and
// optionally pace (a duration, default 0s: none): a paced thread starts its next operation at
// max(previous start + pace, previous end + think), one per pace as a load generator does
// while replies keep up, a plain closed loop when they do not.
// rate is a profile: 2000/s (constant), trace(file.csv) (a CSV of time, rate read relative to
// the scenario; see workload.ReadTraceCSV), or a mapping:
//
//	{kind: constant, rate: 2000/s}
//	{kind: step, before: 1000/s, after: 3000/s, at: 10s}
//	{kind: ramp, from: 1000/s, to: 3000/s, start: 10s, end: 20s}
//	{kind: spike, base: 1000/s, peak: 3000/s, start: 10s, duration: 20s}
//	{kind: sine, mean: 900/s, amplitude: 450/s, period: 2s, phase: 0}
//	{kind: piecewise, points: [{at: 0s, rate: 100/s}, {at: 10s, rate: 900/s}]}
//	{kind: trace, file: load.csv}
//
// A load change is a profile, or a load fault (below). A spike in a rate is a trigger from its
// start for its duration, a step or a ramp one to the end of the run.
//
// load (top level, [Scenario.Load]) scales the whole workload at once: every open-loop group's
// rate profile is multiplied by it (workload.Scale in client/workload) before its load faults
// are laid in, so a load fault's factor applies on top of it and a surge scales with the load.
// A closed-loop group (threads) is left as it is: its load is set by its threads and think time
// and by the replies, not by a rate, so load does not scale it, and a sweep, map or
// tipping-point search over load says so on stderr when the scenario has one. load is a field as any other, so
// sweep, map, tip and tune vary it by its path (--vary load=0.5:3:0.25, --param load); a
// sweep of it is a load sweep, answered with the knee and headroom in total offered load
// (docs/metrics.md §17), today's load being the scenario as written (its own load, 1 unless it
// sets one).
//
// appRetry (client.AppRetry): attempts (1 = no retries; ≥ 1), perAttemptTimeout (0s = none),
// backoff (none, exponential: base·2^(k−1) capped at cap, fullJitter: U[0,1) of that), base
// (> 0 with a backoff), cap (0s = no cap).
//
// # faults
//
// Each fault (server.Fault, or a load change) has name (default "<kind> <node>", or "load
// <group>"), at (in [0, duration)), kind, node (a node's name; a stepDown without one steps down
// the replica set's current primary; a load fault names none), for (undo after it; 0s =
// permanent; only failPoint, down, capacity, networkDelay and rebalance are undone; a pause or a
// load change lasts for; rebalance, pause and load need it > 0), and its kind's fields — and no
// other kind's:
//
//	failPoint       mode: alwaysOn | off | {times: N} | {skip: N} | {activationProbability: P}
//	                data: {failCommands: [find], errorCode: 462, errorLabels: […],
//	                       closeConnection, blockConnection, blockTimeMS, appName,
//	                       failInternalCommands (fail a mongos's commands to a shard too),
//	                       retryPushbackMS (server pushback on the error: retry after N
//	                       ms, or not when < 0; grpc and aws-* read it)}
//	                (MongoDB's configureFailPoint for failCommand; see server/failpoint; on a
//	                couchbase node errorCode is a status of the command's service, e.g. 0x86)
//	down, up        —
//	stepDown        successor: the member to elect (default the first eligible secondary)
//	capacity        workers (new count), speed (factor, 0.5 = half the CPU); either or both
//	networkDelay    delay: added to every one-way delay of the node's links; > 0
//	requestLimiter  the ingressRequest… parameters to set; the others keep the node's values
//	connLimiter     the ingressConnectionEstablishment… parameters, likewise
//	rebalance       — (a couchbase node; for > 0): KV requests answer NotMyVbucket meanwhile
//	pause           — (for > 0): the node's process stops (a GC or VM pause): work on a worker
//	                freezes and ends the pause's length later; every message that arrives and
//	                every timer of the node is held, then handled at the resume, in order, by the
//	                limiters and role in force then; clients see only silence. Paused time is
//	                neither busy nor capacity. Pauses of one node may overlap: they merge
//	load            group: the open-loop group whose rate changes (default every one), factor:
//	                its multiplier for the fault's length (> 0; 1.5 = half as much again); laid
//	                into the group's profile, which must be piecewise linear (not sine)
//
// Each fault is a trigger in the results, from at to at+for when undone or a pause, an instant
// for a one-off change (up, stepDown, a limiter change, a failpoint with times), and to the end
// of the run otherwise ([Scenario.FaultWindows]).
//
// # recovery
//
// The rule that decides, after each trigger, whether goodput recovered, stuck or the run was too
// short to tell (results.Recoveries): k (default 3) standard deviations of one interval's goodput
// around the pre-trigger level, at least floor (default 0.05) of it; hold (default 0s: five
// intervals) in that band to recover; window (default 0s: ten intervals) below it at the end to
// be stuck.
//
//	recovery: {k: 3, floor: 0.05, hold: 5s, window: 10s}
//
// # sweep
//
//	parameters    {}   field path → values: from:to:step (1:8:1, 1s:5s:1s, 1000/s:4000/s:500/s,
//	                   both ends included) or a list of YAML values, e.g.
//	                   clients[0].driver: [{retryPolicy: none}, {retryPolicy: mongodb-2026-07}]
//	replications  10   runs per point; ≥ 1
//
// [Scenario.Points] lists every combination, the paths in the order given (the file's, then
// --vary's), the first varying slowest. Every value is checked when the scenario is read — of a sweep so long, on a scenario
// so large, that trying each would take long, an even share with each parameter's first and
// last value — and every point is checked when Points builds it.
//
// # expect
//
// A list of claims about the scenario's runs ([Expect], results.Expectation). run checks each
// on its run, sweep at every point it applies to; both print PASS or FAIL with the value
// measured, write the verdicts (summary.json, sweep.json), open the report with them and exit
// with status 3 when one fails.
//
//	metric    (required)  a metric of the run (docs/metrics.md): total.goodput,
//	                      group.NAME.amplification, server.NAME.reject_share,
//	                      fault.NAME.recovery_time, …; the names must be the scenario's
//	from, to  (none)      measure over the intervals within [from, to) instead of the
//	                      measured window (not for fault.* metrics)
//	at        (none)      sweep points only: {path: value, …} of the sweep's parameters
//	over      each        each: every replication of a point must pass; mean: their mean must
//	                      (a share of replications for fault.NAME.stuck, recovered, undecided)
//	bound     (required)  exactly one of below, above (strict), atMost, atLeast, between:
//	                      [low, high], or within: a relative tolerance (0.02) around of (a
//	                      number) or ofMetric (a metric of the same run and window)
//
//	expect:
//	  - {metric: group.adaptive.amplification, from: 10s, to: 30s, below: 1.5}
//	  - {metric: fault.surge.stuck, over: mean, between: [0.25, 0.75]}
//	  - {metric: total.goodput, within: 0.02, ofMetric: total.offered, at: {"faults[0].for": 1s}}
//
// # Overrides
//
// [Scenario.Set] (the CLI's --set path=value) replaces any field: it edits the YAML tree, then
// decodes and validates the whole scenario again, so an override obeys exactly the rules of
// the file. Paths are the field paths of the messages: duration,
// clients[0].driver.adaptiveRetries, topology.nodes[1].ingressRequestAdmissionRatePerSec,
// clients[0].workload.rate.peak, clients[0].mix.insert; an index equal to a list's length
// appends. Values are YAML: 3, 250ms, 2000/s, true, {kind: step, …}, [a, b].
// [Scenario.SetAll] (what the CLI does with its --set flags) applies several overrides and
// validates once, so that overrides which only make sense together (a shorter duration and a
// shorter warm-up) are accepted in any order. [Scenario.Vary] (the CLI's --vary) adds a sweep
// parameter the same way: from:to:step, a,b,c or [a, b, c], a comma inside brackets, braces,
// parentheses or quotes belonging to its value (lognormal(1ms, 0.5),exp(2ms) is two values).
//
// # Running
//
// Package bench wires a scenario onto a loop and runs it (bench.Build, bench.Run), and estimates
// what a run costs from the fields alone (bench.Estimate): this package holds the scenario as
// data. Its conversions into the model's own configurations — [Node.ServerConfig],
// [Driver.ClientOptions], [Group.ClientWorkload], [Scenario.ServerFaults] — are what both the
// rules and bench use, so that a scenario that validates builds.
//
// # Example
//
//	name: spike
//	claim: With adaptive retries amplification stays below 1.5 at 3× the rate limit.
//	duration: 45s
//	topology:
//	  nodes:
//	    - name: db
//	      workers: 8
//	      service: exp(5ms)
//	      ingressRequestRateLimiterEnabled: true
//	      ingressRequestAdmissionRatePerSec: 1000
//	      ingressRequestAdmissionBurstCapacitySecs: 1
//	clients:
//	  - name: adaptive
//	    count: 10
//	    driver: {retryPolicy: mongodb-2026-03, adaptiveRetries: true, timeoutMS: 2000}
//	    workload:
//	      rate: {kind: spike, base: 250/s, peak: 1500/s, start: 10s, duration: 20s}
//	    mix: {find: 9, insert: 1}
//	faults:
//	  - at: 35s
//	    kind: failPoint
//	    node: db
//	    for: 2s
//	    mode: {activationProbability: 0.1}
//	    data: {failCommands: [insert], errorCode: 11600}
//	sweep:
//	  parameters:
//	    clients[0].count: 10:40:10
//
// # The library
//
// [Names] lists the embedded scenarios, [Source] gives one's text and [Default] names the one
// simulate runs by default, spike. Each has a claim that its test asserts on its output:
// healthy, spike, sustained-overload, rejection-cost-storm, connection-storm, stepdown,
// retargeting, app-retries, capacity-drop, policy-comparison, legacy-vs-backpressure,
// couchbase-vs-mongodb, sharded-layered-retries, mongos-retargeting, retry-budgets (four
// retry policies against their closed forms across failure probabilities), policy-zoo (every
// retry policy through the same surge and CPU drop) and drivers-as-shipped (the 2026-07 text
// and two driver releases through one connection storm). Six show metastable
// failures and what backpressure does to them, each claim checked over all of its sweep's
// replications: spike-collapse (a load surge; about half the seeds stick), cpu-cut-storm (a
// sharp threshold in the cut's length), pause-collapse (a GC or VM pause at moderate load), and
// spike-backpressure, cpu-cut-backpressure and pause-backpressure, the same with the ingress
// request limiter and the 2026-03 loop.
//
// Invariant: the same scenario and seed build the same world and so produce byte-identical
// outputs. Nothing here reads the clock or starts goroutines; files are read only by Load,
// Parse and Lookup.
package scenarios

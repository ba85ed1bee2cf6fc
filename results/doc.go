// Package results records what a run measured, summarises it, writes it to files, and holds
// what every result shares (the manifest, the folder rules, the metric catalogue). It holds records, not the
// model: a run's records are plain interval records (GroupInterval, ServerInterval,
// ShardInterval) in a Series, error classes and retry reasons travel as names, and package
// record is what reads a built model into them (record.Recorder).
//
// # Metrics
//
// The words mean exactly what docs/metrics.md defines; here is how each is measured. Per interval
// (Series) every client group and every server gets a row; per run (Summary) the measured window
// after the warm-up is summed. The catalogue (Catalogue, LookupMetric; docs/metrics.md §18) lists
// every metric once, with its unit, better direction, keys and roles (Roles: Headlines, Checked,
// Examples): Summary.Metrics, timeseries.csv's columns, the name checks of expect: blocks and
// tune, a comparison's metrics, the terminal's sweep table and the check's metrics and
// tolerances derive from it.
//
//	offered load     application operations issued per second (GroupInterval.Issued), not attempts
//	attempts         commands put on the wire per second, summed over the group's clients (one per
//	                 CommandStartedEvent)
//	amplification    attempts ÷ operations issued over the same interval (1 = no retries; no value
//	                 when nothing was issued)
//	goodput          operations that completed successfully per second, counted when they complete
//	failure rate     operations that returned an error to the application per second, in total and
//	                 per error class (overload, timeout, network, serverSelection, poolCleared,
//	                 server)
//	rejections       per server: request-limiter rejections (462), admission-queue overflows (433)
//	                 and connections closed by the establishment limiter, per second
//	latency          issue to final result of each application operation (its retries and backoff
//	                 included), successes and failures in separate histograms; mean (exact),
//	                 p50, p99, p99.9
//	wasted work      per server: worker time spent on rejections and on requests whose client had
//	                 already given up, as a share of worker capacity (wasted_share)
//	storm indicators amplification; reject_share, the share of server capacity spent on
//	                 rejections; the retry-token level (min and mean over the clients that have a
//	                 bucket, sampled at interval ends); retries refused for want of a token
//	recovery         after each trigger, one of four outcomes (see # Recovery): recovered (with
//	                 the time from the trigger's end), stuck (with the level it stuck at and what
//	                 sustains it), relapsed (recovered, then stuck to the end of the run: both
//	                 times and the stuck state), or undecided (with how much longer to run)
//
// # Recovery
//
// A trigger is any fault window, or a load change (a spike, step or ramp of a group's rate).
// After it ends, Recoveries compares total goodput per interval with a band around its
// pre-trigger level: μ ± max(K·σ, Floor·μ), where σ is the larger of the baseline intervals'
// sample standard deviation and the Poisson standard deviation √(μ/Δt) of one interval's count
// (defaults K = 3, Floor = 5 %). Recovered means Hold worth of consecutive intervals in the band
// (default 5 intervals), and the verdict must hold to the end of the examined span; stuck means
// the last Window worth of intervals (default 10) below it with no trend that would reach it
// within another Window and no total backlog — servers' worker queues and drivers' wait queues
// together — draining; relapsed means a recovery, then a span that ends stuck; anything else is
// undecided, and the result says how much longer the run would have to be. A scenario's
// recovery block sets K, Floor, Hold and Window (RecoveryRule). In a sweep the fault metrics
// recovered, stuck, undecided and relapsed are indicators (a relapse is stuck too), so their
// means are the shares of replications in each outcome, and recovery_time's n counts the
// replications that recovered.
//
// Per-attempt latency (docs/metrics.md §8.2) is filed by record.Recorder.AttemptDone: each attempt, from sending
// its command to its reply or to the deadline that abandoned it, in the interval it ended
// (latency_attempt_* columns, latencyAttempt in summary.json).
//
// Counts per interval are differences of the model's cumulative counters at the interval's two
// ends, so the intervals add up exactly to the run's totals. An interval is [start, end); events
// at the same instant as a sampling event that were scheduled after it count in the next one.
//
// # Units
//
// Rates are per second of virtual time; latencies and durations are in seconds; shares and
// utilisation are fractions in [0, 1]; retry tokens are tokens. Virtual time only: nothing here
// reads the wall clock or global randomness.
//
// # Latency histograms
//
// Histogram is HdrHistogram (github.com/HdrHistogram/hdrhistogram-go, Gil Tene's design) with two
// significant digits, in its sparse PackedHistogram form: bucket indices are integer arithmetic
// on the latency in nanoseconds, so recording is deterministic and independent of order, and a
// merge adds bucket counts, so merged histograms equal one histogram of all the values.
// Quantiles are the empirical quantiles (the smallest value whose cumulative count reaches p·n,
// as gonum's stat.Quantile with stat.Empirical) estimated by the midpoint of that value's
// bucket: relative error at most HistogramRelativeError = 1/256 (0.39 %), exact below 256 ns.
// Each interval keeps its own sparse histograms, so a summary over any window merges them.
//
// # Warm-up
//
// A run's warm-up is either given or, when the scenario says auto, chosen by MSER-5 (White 1997)
// on the total goodput series: see MSER5 and AutoWarmup. The summary drops every interval that
// starts before the warm-up ends, and reports the warm-up it used.
//
// # Files
//
// Every file is written under a temporary name (".NAME.tmp") in its folder and renamed when
// complete, so a file with its final name is never partial. The temporary is created
// exclusively, after removing a stale one, and no write follows a symbolic link: a leftover
// temporary that links elsewhere is removed, not written through, and the rename replaces a
// final name that is a link, not the file it points to. Paths are compared (is an output folder
// inside another?) with their links resolved (ResolvePath).
//
// Only what a manifest lists is ever removed. A folder that holds files no overloadsim result
// lists (no manifest, no claim record, no units of ours) is refused with ErrForeign, naming the
// folder and a few of the files, and left as it was; beside a result, the user's own files are
// left alone, but one under a name a result writes is refused, never overwritten. An empty or
// missing folder is fine (CheckOutDir). A write records what it owns in a claim record
// (ClaimFile: what the old manifest listed and what it will write) before it removes the old
// manifest, and removes the record once the new manifest is written, so a folder a killed
// command left is still known to be ours; an interrupted sweep's units are ours by their key.
// One writer at a time: the command holds the folder's lock (LockDir, LockFile, flock(2) on
// Unix, which the kernel drops when its holder dies, so a killed writer never blocks the next)
// and a folder in use is refused with ErrInUse, naming the holder's pid, command and start.
//
// Every file is read bounded, as a scenario is: it must be a regular file, checked before it is
// opened (a named pipe or a link to /dev/zero is refused at once, never read or waited on), and
// no larger than its kind's limit — manifest.json, run.json, summary.json and a kept unit
// 16 MiB (MaxManifestBytes, MaxSmallJSONBytes, MaxUnitBytes), sweep.json, a baseline,
// shard.json and other JSON results 64 MiB (MaxJSONBytes), timeseries.csv and shards.csv 1 GiB
// (MaxTableBytes) — of which at most one byte more is read; the error names the path, what it
// is and the limit. An empty JSON file says so, and what it should hold.
//
// An output folder holds one result. Its manifest.json (Manifest: tool, version, kind, scenario,
// the SHA-256 digest of the scenario's canonical form, seed, partial, and every file with its
// size and SHA-256) is written after every file it lists, and a new result written into the
// folder first removes the old manifest, then the old result's files (those the manifest lists,
// figures and report included), then writes its own files and its
// manifest last. ReadManifest checks every listed file; the commands read a folder only through
// it, so a folder that was interrupted, killed, edited or mixed is refused, never read: a file is
// whole when its size and its SHA-256 both match (an edit that keeps the size is caught), and a
// manifest that names no kind or no scenario digest is refused, since its result could not be
// told from another scenario's. Claiming a folder removes only top-level names the old manifest
// lists; a nested path it lists (a shard's units/…) is never removed, and a name that leaves
// the folder is ignored. A shard's folder (KindShard) is a result like any other here; what it
// holds and the rules of merging shards are package experiment's (experiment.ReadShard,
// experiment.Merge). A command reads only files the manifest lists (Manifest.RequireListed): an
// unlisted file is not verified, and may be another result's. Figures
// and reports are added to the manifest (AddFiles) when drawn, and a report includes only the
// figures its manifest lists. Floats have six significant digits
// (strconv 'g'); durations and times are exact decimal seconds; a missing value is an empty CSV
// cell or a JSON null, never NaN text; slices keep their order and no map order reaches output.
//
// A run folder (WriteRunDir):
//
//   - run.json — Header: tool, version, scenario, description, claim, canonical (the scenario in
//     canonical form), seed, replication, streams (name, s1, s2: the derived PCG seeds; a
//     numbered family of three or more, such as a stream per client, as one entry
//     "client/app/{0..99}" with its count and no seeds), streamRule (how seeds follow from the
//     seed and a name), duration, interval, warmup (the one used), warmupAuto.
//   - timeseries.csv — columns time (interval end, seconds), kind (group or server), name, then
//     the group metrics offered, attempts, amplification, goodput, failures,
//     failures_CLASS per error class, retries, retries_refused, app_retries (per second), backoff
//     (driver backoff begun, seconds per second), checkout_failed, pool_clears (per second),
//     latency_ok_{mean,p50,p99,p999}, latency_fail_{mean,p50,p99,p999} (seconds),
//     retry_tokens_min, retry_tokens_mean; then the server metrics completed, rejections,
//     rejected_request, rejected_queue, rejected_conn (per second), utilisation, reject_share,
//     wasted_share, busy (mean busy workers), queue (mean queue length), workers, connections,
//     tokens (request-limiter tokens at the interval end; empty when the limiter is off), down (1
//     if down at the interval end). A group row leaves the server columns empty and the other
//     way round. Rows are in (time, kind, name) order; the last interval may be shorter.
//   - shards.csv — runs with mongos nodes only: columns time, mongos, shard, then the mongos's
//     per-shard statistics (serverStatus shardingStatistics.shards.<id>) as rates per second:
//     attempted (numOperationsAttempted), retried_overload, retried_overload_ok,
//     overload_retries, retargeted, overload_errors; backoff (seconds slept per second);
//     amplification ((attempted + overload_retries) ÷ attempted); budget_balance (the shard's
//     retry budget at the interval end; empty without a budget). Rows in (time, mongos, shard)
//     order.
//   - summary.json — Summary: warmup, measured, total and groups (GroupSummary: counts, rates,
//     failures by class, latencySuccess and latencyFailure, retry tokens; for Couchbase policies
//     retryReasons, the retried and not-retried decisions by RFC 0049 reason, and
//     retriesCancelled), servers (ServerSummary), recoveries (fault, start, end, preGoodput,
//     band, outcome, seconds, moreSeconds, and the stuck level: goodputShare, amplification,
//     backlog, wastedShare, rejectShare, retryTokens, sustainedBy), and shards (ShardSummary, runs with mongos nodes only).
//   - manifest.json — last.
//
// A sweep folder (results/sweep: its points.csv, sweep.json and answers) also holds, while the
// sweep is unfinished:
//
//   - units/ — while the sweep is unfinished: each finished replication's summary
//     (experiment.Units), so that the same sweep run again into the folder resumes instead of
//     starting over. Each unit's file carries the sweep's key (experiment.UnitsKey) and its own
//     index; one that names another key or index (written by another sweep into the folder,
//     copied over another unit) is not adopted: it is named on stderr and its unit runs again.
//   - manifest.json — last.
//
// A sweep's record, its files, its load answers and the baseline check a run or sweep is held to
// are package results/sweep's.
package results

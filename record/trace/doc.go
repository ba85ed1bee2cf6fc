// Package trace writes a timeline of a bounded sample of a run's operations as a Chrome
// trace-event JSON file, which ui.perfetto.dev (and chrome://tracing) open: every attempt,
// connection checkout and backoff sleep of a few clients, and a marker at every failure, on the
// virtual clock.
//
// # What is traced
//
// A Writer hears the clients it is attached to through client.Tracer. Attach takes the world's
// groups in order and traces the first Config.Clients clients of each group (the first N of
// every group, in the group's order, not the first N overall: every group shows). Only events
// that overlap the window [Config.From, Config.To) are kept: a slice when its span meets the
// window, an instant when it falls inside. At most Config.MaxEvents events are kept; past the
// cap the rest are dropped, counted, and the trace says so (a global instant "trace truncated"
// where the first dropped event would have been, and otherData.truncated).
//
// # Tracks
//
// Each group is a process: pid = 1 + the group's index in Attach order, named after the group.
// Each traced client is a thread, named after the client ("client/app/3"). A client runs several
// operations at once and Chrome trace slices on one thread must nest, so each operation goes on
// a lane: the lowest lane that is free and was not freed at this very instant. Lane 0 is the
// client's own thread; lane k > 0 is a further thread named "client/app/3 #k". Thread ids are
// stable:
//
//	tid = pid·1 000 000 + (client index + 1)·1 000 + lane,   client index < MaxClients (999),
//	                                                          lane < MaxLanes (1000)
//
// # Events
//
//	name               ph  cat        span                           args
//	<op kind> ("find")  X  op         issue → result                 op, opId, outcome (ok or the
//	                                                                 client.ErrClass), attempts,
//	                                                                 retries, code, codeName, labels
//	checkout            X  checkout   asking the pool → connection   op, opId, server, outcome, …
//	                                  (establishment included) or
//	                                  failure; omitted when an idle
//	                                  connection served it at once
//	attempt             X  attempt    command sent → reply or        op, opId, attempt, server,
//	                                  deadline                       outcome, code, codeName, labels
//	backoff             X  backoff    the retry's sleep              op, opId, retry, plannedUs,
//	                                                                 cutShort
//	overload            i  rejection  a failed attempt or checkout   op, opId, during, attempt,
//	                                  carrying SystemOverloadedError server, code, codeName, labels
//	error, network,     i  failure    any other failure              same
//	poolCleared, timeout
//	trace truncated     i  trace      the event cap was reached      maxEvents, dropped
//	goodput             C  counter    per interval, from its start   operations/s (AddCounters)
//	retry tokens        C  counter    per interval, from its start   mean per client: groups
//	                                                                 with retry token buckets
//
// Outcomes of checkouts and attempts are ok, overload, error (a server error without the overload
// label), network, poolCleared and timeout; code, codeName and labels appear on failures only.
// Checkout, attempt and backoff slices nest inside their operation's slice; failure instants
// sit at the end of the step that failed. Slices are written when they end, so an operation
// still running when the trace is written has its finished steps but no operation slice.
//
// # Format and determinism
//
// The file is {"traceEvents":[…],"displayTimeUnit":"ms","otherData":{…}}, one event per line.
// Metadata events (ph "M", cat "__metadata": process_name, process_labels, process_sort_index,
// thread_name, thread_sort_index) come first, then the events sorted by start time, longer first
// among equal starts (parents before children), then by depth and recording order, then the
// counter samples. ts and dur are virtual time in microseconds, written from the integer
// nanoseconds with exactly three decimals ("1234.567"), never through a float. Readers add ts
// and dur in doubles, where a child ending with its parent can come out one ulp later and stop
// nesting; such a child is shortened by the nanoseconds that keep its double end within its
// parent's. Nothing is read from maps or the wall clock, so a seed gives the same bytes on
// every run and platform. WriteFile gzips a path ending in .gz (the same bytes too).
package trace

// Package sim is the discrete-event kernel every overloadsim model runs on: a virtual clock, an
// event queue, run control and named random streams. It imports only the standard library.
//
// # Time
//
// Virtual time is [Time], an int64 count of nanoseconds since the start of a run, the same unit
// as [time.Duration], so durations mix in without conversion. Only the [Loop] advances the clock;
// components receive now as an argument and never read the wall clock.
//
// # Ordering guarantee
//
// Events run in (time, seq) order, where seq is a strictly increasing counter stamped when the
// event is scheduled. Two events due at the same instant therefore run in the order they were
// scheduled, on every machine. Scheduling an event before [Loop.Now] is a bug in the model and
// panics with a message naming both times.
//
// # Allocation
//
// An event is a pooled record holding a [Handler], an integer kind and an optional pointer
// payload; there is no closure per event. Records are recycled through a free list, so a loop in
// steady state (as many events scheduled as fired) allocates nothing. Cancellation is O(1): the
// record is marked dead and skipped when it reaches the head; when dead entries outnumber live
// ones the heap is compacted, so a model that cancels most of its timeouts (the usual case) keeps
// the heap at the size of its live events. Only events due within the current second or so are in
// the heap; later ones wait in unsorted buckets of about a second each and join the heap when
// their bucket comes up, so periodic timers far ahead (heartbeats, 30-second timeouts) cost an
// append to schedule and do not deepen the heap; cancelling one removes it from its bucket at
// once, freeing its record. Events scheduled for the current instant (a zero-delay hop) skip the
// heap too: they wait in a first-in first-out queue, which is their (time, seq) order.
//
// # Delay lines
//
// Events that all come due one fixed delay after they are set (a fleet's heartbeats, the timeouts
// of their checks) can go on a [DelayLine] instead: set on a clock that never goes back, they come
// due in the order they were set, so the line keeps them first in first out with one loop event
// for its earliest, and fires everything due at an instant inside that one event. Among
// themselves they keep the order plain timers would have; against the loop's other events of the
// same instant the batch runs where the line's event stands (see [DelayLine]).
//
// # Randomness
//
// A run has one Seed. [NewStream] derives an independent math/rand/v2 PCG generator from
// (Seed, name), so adding a component, or a draw inside one, never shifts the numbers another
// component sees. There is no global generator anywhere in a run.
package sim

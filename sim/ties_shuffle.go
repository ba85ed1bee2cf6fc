//go:build simshuffle

package sim

// Built with the tag simshuffle, events due at the same instant run in an order drawn from
// TieSeed instead of the order they were scheduled in: a test-only mode that finds results
// hinging on that arbitrary order (internal/metamorphic, TestTieShuffle). Events at different
// instants keep their time order, and an event still runs after the handler that scheduled it.
// The normal build (ties.go) is unchanged.

// shuffleTies routes events scheduled for the current instant through the heap, where their
// keys order them among the instant's other events, instead of the first-in first-out queue.
const shuffleTies = true

// TieSeed chooses the order of same-instant events: 0 keeps the scheduling order (the normal
// build's), any other value a pseudo-random order, the same for the same seed. Set it between
// runs, never while a loop runs; it is not safe for concurrent use.
var TieSeed uint64

// tieKey is the key that orders events due at the same instant: the scheduling counter when
// TieSeed is 0, else a bijective hash of it, so that keys stay distinct and the order total.
func tieKey(seq uint64) uint64 {
	if TieSeed == 0 {
		return seq
	}
	return splitmix64(seq ^ TieSeed)
}

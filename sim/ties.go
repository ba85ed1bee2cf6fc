//go:build !simshuffle

package sim

// shuffleTies is false in the normal build: events due at the same instant run in the order
// they were scheduled (the ordering guarantee), and tieKey is the scheduling counter itself.
// Built with the tag simshuffle (ties_shuffle.go), a test can order them at random instead; the
// constant and the inlined identity leave the normal build's code as it was.
const shuffleTies = false

// tieKey is the key that orders events due at the same instant: their scheduling order.
func tieKey(seq uint64) uint64 { return seq }

package workload

import (
	"testing"

	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/sim"
)

// TestThinkTime checks the closed-loop pause: done plus a draw, and the zero value.
func TestThinkTime(t *testing.T) {
	var zero ThinkTime
	r, src := countingStream("think")
	if got := zero.Next(sim.Time(s), r); got != sim.Time(s) {
		t.Errorf("zero ThinkTime: Next(1s) = %v, want 1s", got)
	}
	if src.n != 0 || zero.Mean() != 0 || zero.SecondMoment() != 0 || zero.String() != "think(0s)" {
		t.Errorf("zero ThinkTime: %d draws, Mean %v, SecondMoment %v, String %q; want 0, 0, 0, think(0s)",
			src.n, zero.Mean(), zero.SecondMoment(), zero)
	}
	c := Think(dist.Const(250 * ms))
	if got := c.Next(sim.Time(s), r); got != sim.Time(1250*ms) {
		t.Errorf("%v.Next(1s) = %v, want 1.25s", c, got)
	}
	if c.String() != "think(const(250ms))" || c.Mean() != 250*ms {
		t.Errorf("String %q, Mean %v; want think(const(250ms)), 250ms", c, c.Mean())
	}
	// A random think time draws from the stream it is given, and only from it.
	exp, err := dist.Exp(100 * ms)
	if err != nil {
		t.Fatal(err)
	}
	a, b := stream("think/exp"), stream("think/exp")
	if got, want := Think(exp).Next(0, a), sim.Time(exp.Sample(b)); got != want {
		t.Errorf("Think(exp).Next(0) = %v, want the stream's draw %v", got, want)
	}
	if got := Think(nil); got != zero {
		t.Errorf("Think(nil) = %v, want the zero ThinkTime", got)
	}
}

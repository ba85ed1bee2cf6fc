package retry

import "github.com/overloadsim/overloadsim/sim"

// none never retries.
type none struct {
	opts Options
}

func newNone(o Options) Policy { return &none{opts: o} }

func (p *none) Name() string { return NameNone }

func (p *none) Begin(st *State, c Class, _, deadline sim.Time) {
	st.begin(c, deadline, p.opts.CSOT)
}

// Succeeded does nothing.
func (p *none) Succeeded(*State, sim.Time) {}

// Failed gives up: the error propagates.
func (p *none) Failed(st *State, f Failure, _ sim.Time, _ Jitter) Decision {
	st.keep(f)
	return st.stop(Disabled)
}

package failpoint

import (
	"math"
	"strconv"
)

// ModeKind says how a failpoint decides, for each command that matches its data, whether to fire.
// The kinds are MongoDB's FailPoint::Mode values (off, alwaysOn, random, nTimes, skip), named as
// configureFailPoint spells them.
type ModeKind uint8

// Mode kinds. The zero value, ModeUnset, is not a mode: configureFailPoint requires one, and
// Validate reports it.
const (
	ModeUnset ModeKind = iota
	// ModeAlwaysOn fires on every matching command.
	ModeAlwaysOn
	// ModeOff never fires; the data is ignored.
	ModeOff
	// ModeTimes ({times: N}) fires on the next N matching commands, then turns itself off.
	// N = 0 fires once, as the server does (its counter is decremented before the test).
	ModeTimes
	// ModeSkip ({skip: N}) lets the first N matching commands through, then fires on every
	// later one.
	ModeSkip
	// ModeActivationProbability ({activationProbability: P}) fires on each matching command
	// with probability P, drawn independently.
	ModeActivationProbability
)

// String returns the kind's configureFailPoint name.
func (k ModeKind) String() string {
	switch k {
	case ModeUnset:
		return "unset"
	case ModeAlwaysOn:
		return "alwaysOn"
	case ModeOff:
		return "off"
	case ModeTimes:
		return "times"
	case ModeSkip:
		return "skip"
	case ModeActivationProbability:
		return "activationProbability"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Mode is configureFailPoint's mode argument.
type Mode struct {
	Kind ModeKind
	// N is the count of ModeTimes and ModeSkip, in [0, 2147483647] (the server stores it in an
	// int); it must be 0 for the other kinds.
	N int64
	// P is the probability of ModeActivationProbability, in [0, 1]; it must be 0 for the other
	// kinds.
	P float64
}

// AlwaysOn returns the mode "alwaysOn".
func AlwaysOn() Mode { return Mode{Kind: ModeAlwaysOn} }

// Off returns the mode "off".
func Off() Mode { return Mode{Kind: ModeOff} }

// Times returns the mode {times: n}.
func Times(n int64) Mode { return Mode{Kind: ModeTimes, N: n} }

// Skip returns the mode {skip: n}.
func Skip(n int64) Mode { return Mode{Kind: ModeSkip, N: n} }

// ActivationProbability returns the mode {activationProbability: p}.
func ActivationProbability(p float64) Mode { return Mode{Kind: ModeActivationProbability, P: p} }

// String formats m as configureFailPoint takes it: alwaysOn, off, {times: 3}, {skip: 2} or
// {activationProbability: 0.25}. P is printed with the fewest digits that round-trip.
func (m Mode) String() string {
	switch m.Kind {
	case ModeTimes, ModeSkip:
		return "{" + m.Kind.String() + ": " + strconv.FormatInt(m.N, 10) + "}"
	case ModeActivationProbability:
		return "{activationProbability: " + strconv.FormatFloat(m.P, 'g', -1, 64) + "}"
	}
	return m.Kind.String()
}

// maxModeCount is the largest times/skip count the server accepts (std::numeric_limits<int>::max()
// in FailPoint::parseBSON).
const maxModeCount = math.MaxInt32

// problems reports what is wrong with m to bad, one call per problem.
func (m Mode) problems(bad func(field string, v any, rule string)) {
	const oneOf = "one of alwaysOn, off, {times: n}, {skip: n}, {activationProbability: p}"
	switch m.Kind {
	case ModeUnset:
		bad("mode", m.Kind, "required: "+oneOf)
		return
	case ModeAlwaysOn, ModeOff, ModeTimes, ModeSkip, ModeActivationProbability:
	default:
		bad("mode", m.Kind, "unknown mode; must be "+oneOf)
		return
	}
	switch m.Kind {
	case ModeTimes, ModeSkip:
		field := "mode." + m.Kind.String()
		if m.N < 0 {
			bad(field, m.N, "must be ≥ 0")
		} else if m.N > maxModeCount {
			bad(field, m.N, "must be ≤ 2147483647 (the server's limit)")
		}
	default:
		if m.N != 0 {
			bad("mode.N", m.N, "must be 0 unless the mode is times or skip")
		}
	}
	if m.Kind == ModeActivationProbability {
		if !(m.P >= 0 && m.P <= 1) { // also catches NaN
			bad("mode.activationProbability", m.P, "must be in [0, 1]")
		}
	} else if m.P != 0 {
		bad("mode.P", m.P, "must be 0 unless the mode is activationProbability")
	}
}

// probabilityThreshold converts p to the server's integer threshold: a matching command fires
// when a uniform draw from [0, 2147483647] is below int32(2147483647 × p)
// (FailPoint::parseBSON and FailPoint::Impl::_evaluateByMode). So p = 0 never fires and p = 1
// misses once in 2³¹ draws, exactly as on a real server.
func probabilityThreshold(p float64) int32 {
	return int32(float64(math.MaxInt32) * p)
}

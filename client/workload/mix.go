package workload

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Weight is the relative frequency of one kind of operation in a Mix. Weights need not sum to
// 1: {find 70, insert 30} and {find 0.7, insert 0.3} are the same mix.
type Weight struct {
	Kind   string
	Weight float64
}

// Mix is an operation mix: which kind of operation each arrival issues, drawn independently
// with probabilities proportional to the weights. Kinds are opaque names here (the caller
// checks them against the operations it knows) and are kept sorted, so that index i means the
// same kind however the weights were listed.
//
// A Mix is immutable and safe to share; make one with NewMix.
type Mix struct {
	kinds   []string  // sorted
	weights []float64 // as given, in kinds order
	cum     []float64 // cum[i] = P(pick <= i); 1 from the last positive weight on
	sum     float64
}

// NewMix returns the mix of the given weights. It needs at least one kind; every kind a
// non-empty string listed once; every weight finite and ≥ 0; and a finite, positive sum. A kind
// with weight 0 is kept (it is listed by Kinds) but never picked. NewMix keeps its own copy.
// An invalid weight's error names its kind as the field (workload: mix: insert: -1: …); the
// kinds are weights[i].kind, and the mix as a whole has no field.
func NewMix(weights []Weight) (*Mix, error) {
	c := checker{family: "mix"}
	if len(weights) == 0 {
		c.fail("", "[]", "must list at least one kind")
	}
	sum := 0.0
	for i, w := range weights {
		switch {
		case w.Kind == "":
			c.fail(fmt.Sprintf("weights[%d].kind", i), `""`, "must not be empty")
		case slices.ContainsFunc(weights[:i], func(v Weight) bool { return v.Kind == w.Kind }):
			c.fail(fmt.Sprintf("weights[%d].kind", i), strconv.Quote(w.Kind), "listed twice")
		}
		if !(w.Weight >= 0) || !isFinite(w.Weight) {
			// A weight is named by its kind, as a mix written as a mapping names it.
			name := w.Kind
			if name == "" {
				name = fmt.Sprintf("weights[%d].weight", i)
			}
			c.fail(name, formatFloat(w.Weight), "must be a finite number ≥ 0")
			continue
		}
		sum += w.Weight
	}
	if len(c.errs) == 0 && !(sum > 0 && isFinite(sum)) {
		c.fail("", "weights summing to "+formatFloat(sum), "the sum must be finite and > 0")
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	sorted := slices.Clone(weights)
	slices.SortFunc(sorted, func(a, b Weight) int { return strings.Compare(a.Kind, b.Kind) })
	m := &Mix{
		kinds:   make([]string, len(sorted)),
		weights: make([]float64, len(sorted)),
		cum:     make([]float64, len(sorted)),
		sum:     sum,
	}
	acc, last := 0.0, 0
	for i, w := range sorted {
		m.kinds[i], m.weights[i] = w.Kind, w.Weight
		acc += w.Weight
		m.cum[i] = acc / sum
		if w.Weight > 0 {
			last = i
		}
	}
	// Rounding may leave the total a hair below 1; pin it, from the last kind that can be
	// picked on, so that every u in [0, 1) finds a kind and no zero-weight kind is found.
	for i := last; i < len(m.cum); i++ {
		m.cum[i] = 1
	}
	return m, nil
}

// Pick draws one kind and returns its index in Kinds. It draws exactly one r.Float64 and finds
// the kind by binary search of the cumulative table: O(log n), no allocation.
//
// Pick panics on a Mix not made by NewMix.
func (m *Mix) Pick(r *rand.Rand) int {
	if m == nil || len(m.cum) == 0 {
		panic("workload: Pick on a Mix not made by NewMix")
	}
	u := r.Float64()
	lo, hi := 0, len(m.cum)-1
	for lo < hi { // the first i with u < cum[i]
		mid := int(uint(lo+hi) >> 1)
		if u < m.cum[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// Len returns the number of kinds.
func (m *Mix) Len() int { return len(m.kinds) }

// Kind returns the name of kind i (0 <= i < Len).
func (m *Mix) Kind(i int) string { return m.kinds[i] }

// Kinds returns the kinds in sorted order, the order Pick's indices refer to. The slice is a
// copy.
func (m *Mix) Kinds() []string { return slices.Clone(m.kinds) }

// Prob returns the probability that Pick returns i: its weight divided by the sum.
func (m *Mix) Prob(i int) float64 { return m.weights[i] / m.sum }

// String returns the canonical text of the mix: mix(kind=weight, …) with the kinds sorted and
// the weights as given, in the shortest form that reads back exactly.
func (m *Mix) String() string {
	var sb strings.Builder
	sb.WriteString("mix(")
	for i, k := range m.kinds {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(k)
		sb.WriteByte('=')
		sb.WriteString(strconv.FormatFloat(m.weights[i], 'g', -1, 64))
	}
	sb.WriteString(")")
	return sb.String()
}

package retry

import (
	"testing"

	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

type fixedJitter float64

func (j fixedJitter) Float64() float64 { return float64(j) }

// TestStateErr: Err reports the error the application would receive if the operation ended now,
// under the propagation rules: a retry error labelled NoWritesPerformed does not replace the
// earlier error (Retryable Writes, "return the original error"), and nothing is reported before
// the first failure.
func TestStateErr(t *testing.T) {
	p, err := New(NameMongoDB202603, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var st State
	p.Begin(&st, Class{Write: true, RetryableWrite: true}, 0, sim.Never)
	if _, ok := st.Err(); ok {
		t.Fatal("Err() reports an error before any failure")
	}
	first := Failure{Code: wire.NotWritablePrimary, Labels: wire.RetryableWriteError}
	if d := p.Failed(&st, first, 0, fixedJitter(0)); !d.Retry {
		t.Fatalf("a retryable write error was not retried: %+v", d)
	}
	second := Failure{Code: wire.IngressRequestRateLimitExceeded,
		Labels: wire.SystemOverloadedError | wire.RetryableError | wire.NoWritesPerformed}
	p.Failed(&st, second, 0, fixedJitter(0))
	if f, ok := st.Err(); !ok || f.Code != wire.NotWritablePrimary {
		t.Errorf("Err() = %v, %v; want the earlier NotWritablePrimary (the retry's error has NoWritesPerformed)", f.Code, ok)
	}
}

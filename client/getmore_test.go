package client

import (
	"testing"

	"github.com/overloadsim/overloadsim/client/retry"
)

// TestGetMoreRetryStaysOnItsServer (docs/model.md §8.5): a cursor lives on the server that
// opened it, so a getMore overload retry (the backpressure spec's overload retry policy covers
// getMore) goes back to that server, however deprioritisation would pick: another mongos does
// not know the cursor.
// Both mongoses fail their first two getMores; the retries all go to the first one, which fails
// twice and then answers, and the other never sees the operation.
func TestGetMoreRetryStaysOnItsServer(t *testing.T) {
	for _, policy := range []string{retry.NameMongoDB202603, retry.NameMongoDB202607} {
		e, cl := twoMongoses(t, policy, "getMore", 2)
		r := e.run(discovered, Spec{Kind: GetMore})[0]
		if !r.OK || r.Attempts != 3 {
			t.Errorf("%s: %+v, want success on the third attempt", policy, r)
		}
		a := cl.Node("m1").Snapshot(e.loop.Now()).FailPointErrors
		b := cl.Node("m2").Snapshot(e.loop.Now()).FailPointErrors
		if a+b != 2 || a*b != 0 {
			t.Errorf("%s: failpoint errors m1 %d, m2 %d; want 2 on one mongos and none on the other", policy, a, b)
		}
	}
}

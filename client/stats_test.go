package client

import (
	"testing"

	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/server/failpoint"
)

// TestOverloadRepliesCounted: every attempt answered with SystemOverloadedError counts once in
// Stats.OverloadReplies, whether or not it is retried; an error without the label does not
// count. (The driver-side view of the server's rejections: with AttemptsFailed it says how much
// of a retry storm is the server shedding load.)
func TestOverloadRepliesCounted(t *testing.T) {
	cases := []struct {
		name   string
		labels []string
		times  int64
		want   uint64
	}{
		{"overloaded thrice, then served", overloadLabels, 3, 3},
		{"an error without the overload label", nil, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, envConfig{nodes: standalone(nil), kind: selection.Single, opts: opts("mongodb-2026-03", nil), jitter: 0})
			e.arm("db", failpoint.Config{Mode: failpoint.Times(c.times), FailCommands: []string{"find"}, ErrorCode: 2,
				ErrorLabels: c.labels, HasErrorLabels: c.labels != nil})
			e.run(discovered, Spec{Kind: Find})
			st := e.client.Snapshot()
			if st.OverloadReplies != c.want || st.AttemptsFailed < c.want {
				t.Errorf("OverloadReplies = %d (of %d failed attempts), want %d", st.OverloadReplies, st.AttemptsFailed, c.want)
			}
			var sum Stats
			sum.Add(&st)
			sum.Add(&st)
			if sum.OverloadReplies != 2*c.want {
				t.Errorf("Stats.Add sums OverloadReplies to %d, want %d", sum.OverloadReplies, 2*c.want)
			}
		})
	}
}

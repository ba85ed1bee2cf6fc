package scenarios

import (
	"strings"
	"testing"
)

// TestExpectValidation: every broken expectation is refused naming its field, value and rule.
func TestExpectValidation(t *testing.T) {
	const base = `
name: e
duration: 20s
topology: {nodes: [{name: db}]}
clients: [{name: app, count: 1, workload: {rate: 100/s}}]
faults: [{name: cut, kind: capacity, node: db, at: 5s, speed: 0.5, for: 2s}]
expect:
`
	for _, tc := range []struct{ expect, want string }{
		{`[{below: 1}]`, "expect[0].metric: : is required"},
		{`[{metric: goodput, below: 1}]`, `expect[0].metric: goodput: must start total., group.NAME., server.NAME. or fault.NAME.`},
		{`[{metric: group.web.goodput, below: 1}]`, `group "web" is not one of the scenario's: app`},
		{`[{metric: total.speed, below: 1}]`, `"speed" is not a group metric`},
		{`[{metric: server.db.goodput, below: 1}]`, `"goodput" is not a server metric`},
		{`[{metric: fault.surge.stuck, below: 1}]`, `fault "surge" is not one of the scenario's: cut`},
		{`[{metric: total.goodput}]`, "has 0 bounds: give exactly one of below, above, atMost, atLeast, between, within"},
		{`[{metric: total.goodput, below: 1, above: 0}]`, "has 2 bounds"},
		{`[{metric: total.goodput, between: [2, 1]}]`, "expect[0].between: [2 1]: must be [low, high] with low ≤ high"},
		{`[{metric: total.goodput, within: 0.02}]`, "needs exactly one of of (a number) and ofMetric (a metric)"},
		{`[{metric: total.goodput, within: 2, of: 100}]`, "expect[0].within: 2: must be in (0, 1)"},
		{`[{metric: total.goodput, below: 1, of: 3, ofMetric: total.offered}]`, "give one reference"},
		{`[{metric: total.goodput, within: 0.1, ofMetric: total.nothing}]`, `expect[0].ofMetric: total.nothing: "nothing" is not a group metric`},
		{`[{metric: total.goodput, from: 5s, below: 1}]`, "expect[0].from: 5s: needs to"},
		{`[{metric: total.goodput, from: 5s, to: 3s, below: 1}]`, "the window [5s, 3s) must have 0s ≤ from < to"},
		{`[{metric: fault.cut.stuck, to: 10s, below: 1}]`, "a trigger's outcome has no window"},
		{`[{metric: total.goodput, over: all, below: 1}]`, "expect[0].over: all: must be each"},
	} {
		_, err := Parse("e.yaml", []byte(base+"  - "+strings.TrimSuffix(strings.TrimPrefix(tc.expect, "["), "]")+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("expect %s: error %v\nwant it to say %q", tc.expect, err, tc.want)
		}
	}
	sc, err := Parse("e.yaml", []byte(base+`  - {metric: fault.cut.recovery_time, atMost: 10}
  - {metric: group.app.failures_overload, from: 5s, to: 7s, below: 1}
  - {metric: total.goodput, within: 0.02, ofMetric: total.offered, over: mean}
`))
	if err != nil {
		t.Fatal(err)
	}
	exps := sc.Expectations()
	if len(exps) != 3 || exps[2].OfMetric != "total.offered" || *exps[0].AtMost != 10 {
		t.Errorf("Expectations() = %+v", exps)
	}
	back, err := Parse("back.yaml", []byte(sc.String()))
	if err != nil || back.String() != sc.String() {
		t.Errorf("the expect block does not read back from the canonical form: %v\n%s", err, sc.String())
	}
}

package server

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/server/failpoint"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Deployments the fault rules are checked on, as configurations.
var (
	// a replica set of one unnamed set
	rsNodes = []Config{{Address: "a", Role: wire.Primary}, {Address: "b", Role: wire.Secondary}, {Address: "c", Role: wire.Secondary}}
	// a sharded cluster: a mongos and one shard, s0
	shardedNodes = []Config{{Address: "m", Role: wire.Mongos},
		{Address: "s0a", Role: wire.Primary, ReplSetName: "s0"}, {Address: "s0b", Role: wire.Secondary, ReplSetName: "s0"}}
	// two independent standalones, one of them a Couchbase node
	standaloneNodes = []Config{{Address: "db", Role: wire.Standalone}, {Address: "cb", Role: wire.Standalone, Flavor: FlavorCouchbase}}
)

// TestCheckFault checks each rule of CheckFault (its documentation lists them) with the fault
// that breaks it and the exact problems reported, one per line; each case names its rule.
func TestCheckFault(t *testing.T) {
	fp := failpoint.Config{Mode: failpoint.Times(1), FailCommands: []string{"find"}, ErrorCode: 462}
	reqLim := RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: 100, AdmissionBurstCapacitySecs: 1}
	for _, tc := range []struct {
		rule    string
		f       Fault
		nodes   []Config
		horizon time.Duration
		want    []string // the problems, in order; none for a valid fault
	}{
		// Valid faults of every kind.
		{"valid: failPoint", Fault{Kind: FaultFailPoint, Node: "a", FailPoint: fp}, rsNodes, 0, nil},
		{"valid: down for a while", Fault{At: time.Second, Kind: FaultDown, Node: "a", For: time.Second}, rsNodes, 10 * time.Second, nil},
		{"valid: up", Fault{Kind: FaultUp, Node: "b"}, rsNodes, 0, nil},
		{"valid: stepDown of a single replica set's current primary", Fault{Kind: FaultStepDown, Successor: "c"}, rsNodes, 0, nil},
		{"valid: stepDown of a named shard primary", Fault{Kind: FaultStepDown, Node: "s0a"}, shardedNodes, 0, nil},
		{"valid: capacity", Fault{Kind: FaultCapacity, Node: "a", Speed: 0.5}, rsNodes, 0, nil},
		{"valid: networkDelay", Fault{Kind: FaultNetworkDelay, Node: "a", Delay: time.Millisecond}, rsNodes, 0, nil},
		{"valid: rebalance", Fault{Kind: FaultRebalance, Node: "cb", For: time.Second}, standaloneNodes, 0, nil},
		{"valid: pause", Fault{Kind: FaultPause, Node: "db", For: time.Second}, standaloneNodes, 0, nil},
		{"valid: requestLimiter", Fault{Kind: FaultRequestLimiter, Node: "db", RequestLimiter: reqLim}, standaloneNodes, 0, nil},
		{"valid: connLimiter, disabled", Fault{Kind: FaultConnLimiter, Node: "db"}, standaloneNodes, 0, nil},

		// when
		{"when: at in [0, horizon)", Fault{At: 12 * time.Second, Kind: FaultDown, Node: "a"}, rsNodes, 10 * time.Second,
			[]string{"at: 12s: must be in [0s, duration 10s)"}},
		{"when: at ≥ 0 without a horizon", Fault{At: -time.Second, Kind: FaultDown, Node: "a"}, rsNodes, 0,
			[]string{"at: -1s: must be ≥ 0"}},
		{"when: for ≥ 0", Fault{Kind: FaultDown, Node: "a", For: -time.Second}, rsNodes, 0,
			[]string{"for: -1s: must be ≥ 0 (0s = permanent)"}},
		// kind
		{"kind: one of FaultKinds", Fault{Kind: 42, Node: "a"}, rsNodes, 0,
			[]string{"kind: fault(42): must be one of failPoint, down, up, stepDown, capacity, networkDelay, requestLimiter, connLimiter, rebalance, pause"}},
		{"kind: one of FaultKinds, whose node must still exist", Fault{Kind: 42, Node: "zz"}, rsNodes, 0,
			[]string{"kind: fault(42): must be one of failPoint, down, up, stepDown, capacity, networkDelay, requestLimiter, connLimiter, rebalance, pause",
				"node: zz: no such node; nodes: a, b, c"}},
		{"kind: a one-off change is not undone", Fault{Kind: FaultConnLimiter, Node: "db", For: 2 * time.Second}, standaloneNodes, 0,
			[]string{"for: 2s: a connLimiter fault is not undone; use a second fault"}},
		// node
		{"node: required", Fault{Kind: FaultDown}, rsNodes, 0,
			[]string{`node: "": required for a down fault`}},
		{"node: one of the nodes", Fault{Kind: FaultDown, Node: "zz"}, rsNodes, 0,
			[]string{"node: zz: no such node; nodes: a, b, c"}},
		// failPoint
		{"failPoint: the failpoint's configuration is valid", Fault{Kind: FaultFailPoint, Node: "a",
			FailPoint: failpoint.Config{Mode: failpoint.Times(-1), FailCommands: []string{"find"}, ErrorCode: 462}}, rsNodes, 0,
			[]string{"failpoint: mode.times: -1: must be ≥ 0"}},
		// capacity
		{"capacity: workers ≥ 1, speed finite > 0", Fault{Kind: FaultCapacity, Node: "a", Workers: -1, Speed: math.NaN()}, rsNodes, 0,
			[]string{"workers: -1: must be ≥ 1 (0 leaves it unchanged)", "speed: NaN: must be a finite number > 0 (0 leaves it unchanged)"}},
		{"capacity: sets workers or speed", Fault{Kind: FaultCapacity, Node: "a"}, rsNodes, 0,
			[]string{"capacity: must set workers or speed"}},
		// networkDelay
		{"networkDelay: delay > 0", Fault{Kind: FaultNetworkDelay, Node: "a"}, rsNodes, 0,
			[]string{"delay: 0s: must be > 0"}},
		// rebalance
		{"rebalance: a couchbase node, for a while", Fault{Kind: FaultRebalance, Node: "db"}, standaloneNodes, 0,
			[]string{"node: db: a rebalance needs a node with flavor couchbase", "for: 0s: a rebalance lasts a while: must be > 0"}},
		// pause
		{"pause: for a while, not 0s", Fault{Kind: FaultPause, Node: "db"}, standaloneNodes, 0,
			[]string{"for: 0s: a pause lasts a while: must be > 0"}},
		{"pause: for a while", Fault{Kind: FaultPause, Node: "db", For: -time.Second}, standaloneNodes, 0,
			[]string{"for: -1s: must be ≥ 0 (0s = permanent)", "for: -1s: a pause lasts a while: must be > 0"}},
		// stepDown
		{"stepDown: needs a replica set", Fault{Kind: FaultStepDown, Node: "db"}, standaloneNodes, 0,
			[]string{"kind: stepDown: a stepdown needs a replica set"}},
		{"stepDown: a sharded cluster's shard primary is named", Fault{Kind: FaultStepDown}, shardedNodes, 0,
			[]string{`node: "": name the shard primary to step down: a sharded cluster has one per shard`}},
		{"stepDown: not a mongos", Fault{Kind: FaultStepDown, Node: "m"}, shardedNodes, 0,
			[]string{"node: m: a mongos has no replica-set role to step down from"}},
		{"stepDown: a replica-set member", Fault{Kind: FaultStepDown, Node: "db"},
			append([]Config{{Address: "x", Role: wire.Primary}}, standaloneNodes...), 0,
			[]string{"node: db: a stepdown needs a replica-set member"}},
		{"stepDown: the successor is a node", Fault{Kind: FaultStepDown, Successor: "z"}, rsNodes, 0,
			[]string{"successor: z: no such node; nodes: a, b, c"}},
		// requestLimiter, connLimiter
		{"requestLimiter: valid parameters", Fault{Kind: FaultRequestLimiter, Node: "db",
			RequestLimiter: RequestLimiterConfig{Enabled: true, AdmissionRatePerSec: -5, AdmissionBurstCapacitySecs: 1}}, standaloneNodes, 0,
			[]string{"ingressRequestAdmissionRatePerSec: -5: must be a finite number > 0"}},
		{"connLimiter: valid parameters", Fault{Kind: FaultConnLimiter, Node: "db",
			ConnLimiter: ConnLimiterConfig{Enabled: true, RatePerSec: 10, MaxQueueDepth: -1}}, standaloneNodes, 0,
			[]string{"ingressConnectionEstablishmentBurstCapacitySecs: 0: must be a finite number > 0",
				"ingressConnectionEstablishmentMaxQueueDepth: -1: must be ≥ 0"}},
	} {
		err := CheckFault(tc.f, tc.nodes, tc.horizon)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if want := strings.Join(tc.want, "\n"); got != want {
			t.Errorf("%s: CheckFault(%+v) =\n%s\nwant\n%s", tc.rule, tc.f, got, want)
		}
		for _, part := range field.Parts(err) {
			if fe := (*field.Error)(nil); !errors.As(part, &fe) {
				t.Errorf("%s: %q is not a *field.Error", tc.rule, part)
			}
		}
	}
}

// TestScheduleChecksFaults: Schedule reports CheckFault's problems under faults[i], every
// fault's at once, and schedules nothing then.
func TestScheduleChecksFaults(t *testing.T) {
	c := replicaSet(t, sim.NewLoop())
	err := c.Schedule([]Fault{
		{Kind: FaultDown, Node: "a", For: time.Second},
		{Kind: FaultCapacity, Node: "b"},
		{Kind: FaultNetworkDelay, Node: "c"},
	})
	want := "faults[1]: capacity: must set workers or speed\nfaults[2].delay: 0s: must be > 0"
	if err == nil || err.Error() != want {
		t.Errorf("Schedule = %v, want\n%s", err, want)
	}
	if len(c.faults) != 0 {
		t.Errorf("%d faults scheduled beside invalid ones", len(c.faults))
	}
}

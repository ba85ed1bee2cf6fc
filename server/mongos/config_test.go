package mongos

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

func TestDefaultConfigValid(t *testing.T) {
	c := DefaultConfig()
	c.Address = "m"
	if err := c.Validate(); err != nil {
		t.Fatalf("DefaultConfig().Validate() = %v", err)
	}
	// The server's defaults (docs/model.md §7).
	if c.BaseBackoff != 100*time.Millisecond || c.MaxBackoff != 10*time.Second || c.MaxRetryAttempts != 3 ||
		!c.RetryBudget || c.BudgetCapacity != 1000 || c.BudgetReturnRate != 0.1 ||
		c.OverloadAwareServerSelection || c.ExhaustedLabels != wire.SystemOverloadedError ||
		c.LocalThreshold != 15*time.Millisecond {
		t.Errorf("DefaultConfig() = %+v", c)
	}
}

// Validate reports every violation at once, each naming the field, its value and the rule.
func TestValidateEveryProblem(t *testing.T) {
	c := Config{
		BaseBackoff:      1500 * time.Microsecond,
		MaxBackoff:       -time.Second,
		MaxRetryAttempts: -1,
		BudgetCapacity:   math.Inf(1),
		BudgetReturnRate: math.NaN(),
		ExhaustedLabels:  1 << 12,
		LocalThreshold:   -time.Millisecond,
		FindHostTimeout:  -time.Second,
	}
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate() = nil")
	}
	want := []string{
		`mongos: address: "": must not be empty`,
		"mongos: defaultClientBaseBackoffMillis: 1.5ms: must be a whole number of milliseconds",
		"mongos: defaultClientMaxBackoffMillis: -1s: must be ≥ 0",
		"mongos: defaultClientMaxRetryAttempts: -1: must be ≥ 0",
		"mongos: shardRetryTokenBucketCapacity: +Inf: must be a finite number > 0",
		"mongos: shardRetryTokenReturnRate: NaN: must be a finite number > 0",
		"mongos: exhaustedRetryLabels: 0x1000: has bits 0x1000 that name no label",
		"mongos: localThresholdMS: -1ms: must be ≥ 0",
		"mongos: heartbeatFrequencyMS: 0s: must be > 0",
		"mongos: findHostTimeout: -1s: must be ≥ 0 (0 fails at once)",
	}
	if got := strings.Split(err.Error(), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Validate() =\n%s\nwant\n%s", err, strings.Join(want, "\n"))
	}
	// Each part is a field error whose field is the server parameter.
	for i, part := range field.Parts(err) {
		var fe *field.Error
		if !errors.As(part, &fe) || i < len(want) && !strings.HasPrefix(want[i], "mongos: "+fe.Field+": ") {
			t.Errorf("part %d = %q: want a *field.Error naming the field of %q", i, part, want[min(i, len(want)-1)])
		}
	}

	c = DefaultConfig()
	c.Address, c.MaxBackoff = "m", 50*time.Millisecond
	if err := c.Validate(); err == nil || err.Error() != "mongos: defaultClientMaxBackoffMillis: 50ms: must be ≥ defaultClientBaseBackoffMillis (100ms)" {
		t.Errorf("Validate() = %v", err)
	}
}

// New reports every problem with its configuration and shards, and never panics.
func TestNewErrors(t *testing.T) {
	loop := sim.NewLoop()
	good := newWorld(t, DefaultConfig(), 1, rs(1))
	m := Member{Address: "a", Node: good.shards[0][0], Link: wire.NewLink(nil, nil)}
	cfg := DefaultConfig()
	cfg.Address = "m"
	for _, tc := range []struct {
		name   string
		cfg    Config
		shards []Shard
		want   []string
	}{
		{"no shards", cfg, nil, []string{"mongos: shards: []: must list at least one shard"}},
		{"empty shard", cfg, []Shard{{Name: "s"}}, []string{"mongos: shards[0].members: []: must list at least one member"}},
		{"bad members", cfg, []Shard{{Name: "s", Members: []Member{m, {Address: "a"}}}, {Name: "s", Members: []Member{m}}}, []string{
			`mongos: shards[0].members[1].address: "a": must be unique`,
			"mongos: shards[0].members[1].node: nil: must be a node",
			"mongos: shards[0].members[1].link: nil: must be a link",
			`mongos: shards[1].name: "s": must be unique`,
			`mongos: shards[1].members[0].address: "a": must be unique`,
		}},
		{"bad config too", Config{}, []Shard{{Members: []Member{m}}}, []string{
			`mongos: address: "": must not be empty`,
			"mongos: shardRetryTokenBucketCapacity: 0: must be a finite number > 0",
			"mongos: shardRetryTokenReturnRate: 0: must be a finite number > 0",
			"mongos: heartbeatFrequencyMS: 0s: must be > 0",
			`mongos: shards[0].name: "": must not be empty`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(loop, tc.cfg, tc.shards, 1)
			if r != nil || err == nil {
				t.Fatalf("New = %v, %v; want an error", r, err)
			}
			if got, want := err.Error(), strings.Join(tc.want, "\n"); got != want {
				t.Errorf("New error =\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestStreams(t *testing.T) {
	c := DefaultConfig()
	c.Address = "m1"
	w := newWorld(t, c, 1, rs(1))
	want := []string{"mongos/m1/shard", "mongos/m1/target", "mongos/m1/jitter"}
	if got := w.router.Streams(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Streams() = %v, want %v", got, want)
	}
}

// docs/model.md §7.1: overloadAwareServerSelectionEnabled is off by default. The MongoDB manual
// ("Routing with mongos", "Targeting Behavior Under Overload"): "By default,
// `overloadAwareServerSelectionEnabled` is set to `false`." So a router built from DefaultConfig
// keeps sending a primaryPreferred read's overload retries to the overloaded primary: the
// primary fails three times, and all three retries go back to it, none retargeted.
func TestOverloadAwareDefaultOff(t *testing.T) {
	if DefaultConfig().OverloadAwareServerSelection {
		t.Fatal("DefaultConfig().OverloadAwareServerSelection = true, want false (the server's default)")
	}
	w := newWorld(t, DefaultConfig(), 1, rs(3))
	w.fail(0, 0, "find", wire.IngressRequestRateLimitExceeded, failpoint.Times(3))
	w.run(time.Second) // RTT pings
	w.drv.Send(w.loop.Now(), wire.Find, read(wire.ReadPrimaryPreferred))
	w.run(30 * time.Second)
	if a := w.drv.Only(t); !a.OK() {
		t.Fatalf("driver got %+v, want OK after the primary's three failures", a.Reply)
	}
	st := w.router.Stats()[0]
	if st.NumRetriesDueToOverloadAttempted != 3 || st.NumRetriesRetargetedDueToOverload != 0 ||
		w.attempts(0, 0) != 4 || w.attempts(0, 1) != 0 || w.attempts(0, 2) != 0 {
		t.Errorf("retries %d, retargeted %d, attempts on primary %d and secondaries %d, %d; want 3, 0, 4, 0, 0",
			st.NumRetriesDueToOverloadAttempted, st.NumRetriesRetargetedDueToOverload,
			w.attempts(0, 0), w.attempts(0, 1), w.attempts(0, 2))
	}
}

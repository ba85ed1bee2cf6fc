package failpoint

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/wire"
)

// step is one command reaching the failpoint and whether it must fire.
type step struct {
	cmd      wire.Command
	app      string
	internal bool
	fire     bool
}

// fire and pass are steps from a client with no appName that must, or must not, fire.
func fire(c wire.Command) step { return step{cmd: c, fire: true} }
func pass(c wire.Command) step { return step{cmd: c} }

// modeCase is a row of the per-mode tables.
type modeCase struct {
	name       string
	cfg        Config
	steps      []step
	wantActive bool  // Active() after the last step
	wantFired  int64 // TimesFired() after the last step
}

// findFails is the usual spec-test data: fail find with BadValue.
func findFails(m Mode) Config {
	return Config{Mode: m, FailCommands: []string{"find"}, ErrorCode: int(wire.BadValue)}
}

func runModeCases(t *testing.T, cases []modeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.cfg)
			if err != nil {
				t.Fatalf("New(%v) error: %v", tc.cfg, err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			for i, s := range tc.steps {
				a := p.Evaluate(s.cmd, Client{AppName: s.app, Internal: s.internal}, r)
				if a.Fire != s.fire {
					t.Fatalf("step %d: Evaluate(%v, app=%q, internal=%v).Fire = %v, want %v (%v)",
						i, s.cmd, s.app, s.internal, a.Fire, s.fire, p)
				}
				if !a.Fire && a != (Action{}) {
					t.Fatalf("step %d: Evaluate(%v) = %+v: an action that does not fire must be zero", i, s.cmd, a)
				}
			}
			if got := p.Active(); got != tc.wantActive {
				t.Errorf("Active() = %v, want %v (%v)", got, tc.wantActive, p)
			}
			if got := p.TimesFired(); got != tc.wantFired {
				t.Errorf("TimesFired() = %d, want %d (%v)", got, tc.wantFired, p)
			}
		})
	}
}

// Rule: {times: N} fires on the next N commands that pass the data predicate, then turns itself
// off; commands the predicate rejects do not consume the count (fail_point.h _tryLock bypasses
// _evaluateByMode on a predicate miss; fail_point.cpp nTimes decrements then disables at ≤ 0).
func TestModeTimes(t *testing.T) {
	f, ins, ping := wire.Find, wire.Insert, wire.Ping
	runModeCases(t, []modeCase{
		{
			name:  "times 3: the first three finds fail, the fourth succeeds",
			cfg:   findFails(Times(3)),
			steps: []step{fire(f), fire(f), fire(f), pass(f), pass(f)},
			// off after the third hit, as the spec tests' "3 failed + 1 succeeded" rely on
			wantActive: false, wantFired: 3,
		},
		{
			name: "times 3: commands not in failCommands in between consume nothing",
			cfg:  findFails(Times(3)),
			steps: []step{fire(f), pass(ins), pass(ping), fire(f), pass(ins), fire(f),
				pass(f), pass(ins)},
			wantActive: false, wantFired: 3,
		},
		{
			name:       "times 3: still active after two hits",
			cfg:        findFails(Times(3)),
			steps:      []step{fire(f), pass(ins), fire(f)},
			wantActive: true, wantFired: 2,
		},
		{
			name: "times 2: another appName does not consume the count",
			cfg: Config{Mode: Times(2), FailCommands: []string{"find"}, ErrorCode: 462,
				AppName: "app"},
			steps: []step{{cmd: f, app: "other"}, {cmd: f, app: "app", fire: true},
				{cmd: f, app: "other"}, {cmd: f, app: "app", fire: true}, {cmd: f, app: "app"}},
			wantActive: false, wantFired: 2,
		},
		{
			name:       "times 1: one failure",
			cfg:        findFails(Times(1)),
			steps:      []step{fire(f), pass(f)},
			wantActive: false, wantFired: 1,
		},
		{
			name: "times 0: fires once, because the server decrements before it tests",
			cfg:  findFails(Times(0)),
			// active until the first matching command
			steps:      []step{pass(ins), fire(f), pass(f)},
			wantActive: false, wantFired: 1,
		},
	})
}

// Rule: {skip: N} lets the first N matching commands through and fires on every later one;
// skipped commands are misses, so they do not count in timesEntered (fail_point.cpp skip case;
// fail_point.h increments _hitCount on hits only).
func TestModeSkip(t *testing.T) {
	f, ins := wire.Find, wire.Insert
	runModeCases(t, []modeCase{
		{
			name:       "skip 2: the third and later finds fail",
			cfg:        findFails(Skip(2)),
			steps:      []step{pass(f), pass(f), fire(f), fire(f), fire(f)},
			wantActive: true, wantFired: 3,
		},
		{
			name:       "skip 2: non-matching commands are not skipped over",
			cfg:        findFails(Skip(2)),
			steps:      []step{pass(ins), pass(f), pass(ins), pass(ins), pass(f), pass(ins), fire(f)},
			wantActive: true, wantFired: 1,
		},
		{
			name:       "skip 0: fires from the first matching command",
			cfg:        findFails(Skip(0)),
			steps:      []step{fire(f), pass(ins), fire(f)},
			wantActive: true, wantFired: 2,
		},
	})
}

// Rule: alwaysOn fires on every matching command and never turns itself off.
func TestModeAlwaysOn(t *testing.T) {
	f, ins, gm := wire.Find, wire.Insert, wire.GetMore
	runModeCases(t, []modeCase{
		{
			name:       "alwaysOn: every find fails",
			cfg:        findFails(AlwaysOn()),
			steps:      []step{fire(f), fire(f), fire(f), fire(f), fire(f), fire(f)},
			wantActive: true, wantFired: 6,
		},
		{
			name: "alwaysOn: only the listed commands",
			cfg: Config{Mode: AlwaysOn(), FailCommands: []string{"getMore", "insert"},
				ErrorCode: 462},
			steps:      []step{pass(f), fire(gm), fire(ins), pass(wire.Ping), fire(gm)},
			wantActive: true, wantFired: 3,
		},
	})
}

// Rule: off never fires and its data is ignored.
func TestModeOff(t *testing.T) {
	f := wire.Find
	runModeCases(t, []modeCase{
		{
			name:       "off: matching commands pass",
			cfg:        findFails(Off()),
			steps:      []step{pass(f), pass(f)},
			wantActive: false, wantFired: 0,
		},
		{
			name:       "off: data is not even validated",
			cfg:        Config{Mode: Off(), FailCommands: []string{"nosuch"}, ErrorCode: -1},
			steps:      []step{pass(f)},
			wantActive: false, wantFired: 0,
		},
		{
			name:       "off: no data at all",
			cfg:        Config{Mode: Off()},
			steps:      []step{pass(f), pass(wire.Hello)},
			wantActive: false, wantFired: 0,
		},
	})
	var nilPoint *Point
	if a := nilPoint.Evaluate(f, Client{}, nil); a.Fire || nilPoint.Active() || nilPoint.TimesFired() != 0 {
		t.Errorf("nil *Point: Evaluate = %+v, Active = %v, TimesFired = %d; want an off failpoint",
			a, nilPoint.Active(), nilPoint.TimesFired())
	}
}

// Rule: {activationProbability: p} fires each matching command independently with probability
// p: a draw from [0, 2³¹−1] below int32((2³¹−1)·p) (fail_point.cpp random case and parseBSON).
func TestModeActivationProbability(t *testing.T) {
	const n = 10000
	cases := []struct {
		name     string
		p        float64
		min, max int // accepted range of fires out of n
	}{
		{"p=0 never fires", 0, 0, 0},
		// A miss needs a draw of exactly 2³¹−1: probability 2⁻³¹ per draw, none expected in n.
		{"p=1 fires every time", 1, n, n},
		// Binomial(n, 0.5): mean 5000, σ = √(n·p·(1−p)) = 50; accept ±4σ.
		{"p=0.5 fires about half the time", 0.5, 5000 - 200, 5000 + 200},
		// Binomial(n, 0.1): mean 1000, σ = 30; accept ±4σ.
		{"p=0.1 fires about a tenth of the time", 0.1, 1000 - 120, 1000 + 120},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(findFails(ActivationProbability(tc.p)))
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(7, 11))
			fired := 0
			for range n {
				if p.Evaluate(wire.Find, Client{}, r).Fire {
					fired++
				}
			}
			if fired < tc.min || fired > tc.max {
				t.Errorf("p=%v: %d of %d fired, want within [%d, %d] (seed 7,11)", tc.p, fired, n, tc.min, tc.max)
			}
			if got := p.TimesFired(); got != int64(fired) {
				t.Errorf("TimesFired() = %d, want %d", got, fired)
			}
			if !p.Active() {
				t.Errorf("Active() = false; activationProbability never turns itself off")
			}
		})
	}
}

// Rule: the probability threshold is the server's integer conversion.
func TestProbabilityThreshold(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		want int32
	}{{0, 0}, {1, math.MaxInt32}, {0.5, 1073741823}, {1e-10, 0}} {
		if got := probabilityThreshold(tc.p); got != tc.want {
			t.Errorf("probabilityThreshold(%v) = %d, want %d", tc.p, got, tc.want)
		}
	}
}

// Rule: commands the predicate rejects draw no random number, so they do not shift which
// matching commands fire (predicate before _evaluateByMode).
func TestNonMatchingCommandsDrawNothing(t *testing.T) {
	cfg := Config{Mode: ActivationProbability(0.5), FailCommands: []string{"find"}, ErrorCode: 2, AppName: "a"}
	plain, _ := New(cfg)
	mixed, _ := New(cfg)
	r1 := rand.New(rand.NewPCG(3, 4))
	r2 := rand.New(rand.NewPCG(3, 4))
	for i := range 1000 {
		want := plain.Evaluate(wire.Find, Client{AppName: "a"}, r1)
		mixed.Evaluate(wire.Insert, Client{AppName: "a"}, r2)
		mixed.Evaluate(wire.Find, Client{AppName: "b"}, r2)
		mixed.Evaluate(wire.Find, Client{AppName: "a", Internal: true}, r2)
		got := mixed.Evaluate(wire.Find, Client{AppName: "a"}, r2)
		if got != want {
			t.Fatalf("matching command %d: Evaluate = %+v with other commands interleaved, %+v without", i, got, want)
		}
	}
	if a, b := r1.Uint64(), r2.Uint64(); a != b {
		t.Errorf("streams diverged: next draws %d and %d; non-matching commands consumed draws", a, b)
	}
}

// Rule: appName, when given, must equal the connection's appName exactly
// (shouldActivateFailCommandFailPoint compares with !=).
func TestAppNameFilter(t *testing.T) {
	p, err := New(Config{Mode: AlwaysOn(), FailCommands: []string{"find"}, ErrorCode: 462, AppName: "reporting"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		app  string
		fire bool
	}{
		{"reporting", true},
		{"", false},
		{"Reporting", false},   // case matters
		{"reporting-2", false}, // no prefix match (unlike the rate limiter's exemptions)
	} {
		if got := p.Evaluate(wire.Find, Client{AppName: tc.app}, nil).Fire; got != tc.fire {
			t.Errorf("Evaluate(find, app=%q).Fire = %v, want %v", tc.app, got, tc.fire)
		}
	}
}

// Rule: internal clients are exempt unless failInternalCommands is true, and then they match.
func TestInternalClients(t *testing.T) {
	cfg := Config{Mode: Times(1), FailCommands: []string{"find"}, ErrorCode: 462}
	p, _ := New(cfg)
	if p.Evaluate(wire.Find, Client{Internal: true}, nil).Fire {
		t.Errorf("internal find fired without failInternalCommands")
	}
	if !p.Active() {
		t.Errorf("exempt internal command consumed the times count")
	}
	cfg.FailInternalCommands = true
	p, _ = New(cfg)
	if !p.Evaluate(wire.Find, Client{Internal: true}, nil).Fire {
		t.Errorf("internal find did not fire with failInternalCommands")
	}
}

// Rule: an alias names the same command (Command::hasAlias); the model's hello stands for both
// hello and isMaster.
func TestAliases(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  wire.Command
	}{
		{"hello", wire.Hello}, {"isMaster", wire.Hello}, {"ismaster", wire.Hello},
		{"findAndModify", wire.FindAndModify}, {"findandmodify", wire.FindAndModify},
	} {
		p, err := New(Config{Mode: AlwaysOn(), FailCommands: []string{tc.name}, CloseConnection: true})
		if err != nil {
			t.Fatalf("failCommands [%q]: %v", tc.name, err)
		}
		if !p.Evaluate(tc.cmd, Client{}, nil).Fire {
			t.Errorf("failCommands [%q] did not match %v", tc.name, tc.cmd)
		}
	}
}

// Rule: the effects (evaluateFailCommandFailPoint): labels override when given (an empty list
// removes them); block first; closeConnection wins over errorCode; block alone lets the
// command run.
func TestActions(t *testing.T) {
	overload := wire.SystemOverloadedError | wire.RetryableError
	cases := []struct {
		name string
		cfg  Config
		want Action
	}{
		{
			name: "errorCode without labels: node's labels stay",
			cfg:  Config{FailCommands: []string{"find"}, ErrorCode: 462},
			want: Action{Fire: true, Code: wire.IngressRequestRateLimitExceeded},
		},
		{
			name: "errorLabels replace",
			cfg: Config{FailCommands: []string{"find"}, ErrorCode: 2,
				ErrorLabels: []string{"RetryableError", "SystemOverloadedError"}},
			want: Action{Fire: true, Code: wire.BadValue, Labels: overload, LabelsGiven: true},
		},
		{
			name: "empty errorLabels given: no labels at all",
			cfg:  Config{FailCommands: []string{"find"}, ErrorCode: 462, HasErrorLabels: true},
			want: Action{Fire: true, Code: wire.IngressRequestRateLimitExceeded, LabelsGiven: true},
		},
		{
			name: "closeConnection",
			cfg:  Config{FailCommands: []string{"find"}, CloseConnection: true},
			want: Action{Fire: true, Close: true},
		},
		{
			name: "closeConnection wins over errorCode",
			cfg:  Config{FailCommands: []string{"find"}, CloseConnection: true, ErrorCode: 91},
			want: Action{Fire: true, Close: true},
		},
		{
			name: "blockConnection alone: delay, then run normally",
			cfg:  Config{FailCommands: []string{"find"}, BlockConnection: true, BlockTimeMS: 1000},
			want: Action{Fire: true, Block: time.Second},
		},
		{
			name: "blockConnection with errorCode: delay, then fail",
			cfg: Config{FailCommands: []string{"find"}, BlockConnection: true, BlockTimeMS: 1000,
				ErrorCode: 91},
			want: Action{Fire: true, Block: time.Second, Code: wire.ShutdownInProgress},
		},
		{
			name: "blockConnection with closeConnection: delay, then close",
			cfg: Config{FailCommands: []string{"find"}, BlockConnection: true, BlockTimeMS: 50,
				CloseConnection: true},
			want: Action{Fire: true, Block: 50 * time.Millisecond, Close: true},
		},
		{
			name: "blockConnection with labels: labels apply to any later error",
			cfg: Config{FailCommands: []string{"find"}, BlockConnection: true, BlockTimeMS: 5,
				ErrorLabels: []string{"NoWritesPerformed"}},
			want: Action{Fire: true, Block: 5 * time.Millisecond, Labels: wire.NoWritesPerformed, LabelsGiven: true},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Mode = AlwaysOn()
			p, err := New(tc.cfg)
			if err != nil {
				t.Fatalf("New(%v): %v", tc.cfg, err)
			}
			if got := p.Evaluate(wire.Find, Client{}, nil); got != tc.want {
				t.Errorf("Evaluate(find) = %+v, want %+v", got, tc.want)
			}
			if got := p.Evaluate(wire.Insert, Client{}, nil); got != (Action{}) {
				t.Errorf("Evaluate(insert) = %+v, want no action", got)
			}
		})
	}
}

// Rule: reconfiguring resets the mode and data and keeps timesEntered (setMode returns the
// running _hitCount); an invalid configuration changes nothing.
func TestConfigure(t *testing.T) {
	p, _ := New(findFails(Times(2)))
	p.Evaluate(wire.Find, Client{}, nil)
	p.Evaluate(wire.Find, Client{}, nil)
	if p.Active() {
		t.Fatalf("times 2 still active after 2 hits")
	}
	if err := p.Configure(Config{Mode: Times(1), FailCommands: []string{"insert"}, ErrorCode: 2}); err != nil {
		t.Fatal(err)
	}
	if p.Evaluate(wire.Find, Client{}, nil).Fire || !p.Evaluate(wire.Insert, Client{}, nil).Fire {
		t.Errorf("after Configure the new data does not apply: %v", p)
	}
	if got := p.TimesFired(); got != 3 {
		t.Errorf("TimesFired() = %d after 2+1 hits across a reconfiguration, want 3", got)
	}
	before := p.String()
	if err := p.Configure(Config{Mode: Times(-1)}); err == nil {
		t.Fatalf("Configure accepted times -1")
	}
	if after := p.String(); after != before {
		t.Errorf("failed Configure changed the point: %s, was %s", after, before)
	}
	if err := p.Configure(Config{Mode: Off()}); err != nil || p.Active() || p.TimesFired() != 3 {
		t.Errorf("Configure(off) = %v, Active %v, TimesFired %d; want nil, false, 3", err, p.Active(), p.TimesFired())
	}
}

// Rule: the caller's slices are copied; changing them later does not change the point.
func TestConfigIsCopied(t *testing.T) {
	cmds := []string{"find"}
	labels := []string{"RetryableError"}
	p, _ := New(Config{Mode: AlwaysOn(), FailCommands: cmds, ErrorCode: 2, ErrorLabels: labels})
	cmds[0], labels[0] = "insert", "NoWritesPerformed"
	if got := p.Config(); got.FailCommands[0] != "find" || got.ErrorLabels[0] != "RetryableError" {
		t.Errorf("Config() = %v after the caller changed its slices", got)
	}
	if !p.Evaluate(wire.Find, Client{}, nil).Fire {
		t.Errorf("point stopped matching find after the caller changed its slice")
	}
}

// Rule: String is canonical: fixed field order, sorted and de-duplicated lists.
func TestString(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Mode: Off()}, "{mode: off}"},
		{
			Config{Mode: Times(3), FailCommands: []string{"insert", "find", "insert"}, ErrorCode: 462,
				ErrorLabels: []string{"SystemOverloadedError", "RetryableError"}},
			`{mode: {times: 3}, data: {failCommands: ["find", "insert"], errorCode: 462, errorLabels: ["RetryableError", "SystemOverloadedError"]}}`,
		},
		{
			Config{Mode: ActivationProbability(0.25), FailCommands: []string{"find"}, CloseConnection: true,
				BlockConnection: true, BlockTimeMS: 10, AppName: "a b", FailInternalCommands: true, HasErrorLabels: true},
			`{mode: {activationProbability: 0.25}, data: {failCommands: ["find"], errorLabels: [], closeConnection: true, blockConnection: true, blockTimeMS: 10, appName: "a b", failInternalCommands: true}}`,
		},
		{Config{Mode: Skip(2), FailCommands: []string{"ping"}, ErrorCode: 2}, `{mode: {skip: 2}, data: {failCommands: ["ping"], errorCode: 2}}`},
		{Config{Mode: AlwaysOn(), FailCommands: []string{"ping"}, ErrorCode: 2}, `{mode: alwaysOn, data: {failCommands: ["ping"], errorCode: 2}}`},
	} {
		if got := tc.cfg.String(); got != tc.want {
			t.Errorf("String() =\n %s\nwant\n %s", got, tc.want)
		}
	}
	p, _ := New(findFails(Times(3)))
	p.Evaluate(wire.Find, Client{}, nil)
	want := `{mode: {times: 3}, data: {failCommands: ["find"], errorCode: 2}} active=true left=2 timesEntered=1`
	if got := p.String(); got != want {
		t.Errorf("Point.String() = %s, want %s", got, want)
	}
}

// Rule: Evaluate does not allocate (it runs once per command in every run).
func TestEvaluateDoesNotAllocate(t *testing.T) {
	p, _ := New(Config{Mode: ActivationProbability(0.5), FailCommands: []string{"find", "insert"},
		ErrorCode: 462, ErrorLabels: []string{"RetryableError"}, AppName: "app"})
	r := rand.New(rand.NewPCG(1, 1))
	from := Client{AppName: "app"}
	allocs := testing.AllocsPerRun(1000, func() {
		p.Evaluate(wire.Find, from, r)
		p.Evaluate(wire.Ping, from, r)
	})
	if allocs != 0 {
		t.Errorf("Evaluate allocates %v times per call pair, want 0", allocs)
	}
}

// Rule: a command value outside wire's table never matches and never panics.
func TestOutOfRangeCommand(t *testing.T) {
	p, _ := New(findFails(AlwaysOn()))
	if p.Evaluate(wire.Command(200), Client{}, nil).Fire {
		t.Errorf("Evaluate(command 200) fired")
	}
}

// Rule: a nil stream in activationProbability mode is a caller bug and panics with the
// package's message.
func TestNilRandPanics(t *testing.T) {
	p, _ := New(findFails(ActivationProbability(0.5)))
	defer func() {
		if got := recover(); got != panicNilRand {
			t.Errorf("recover() = %v, want %q", got, panicNilRand)
		}
	}()
	p.Evaluate(wire.Find, Client{}, nil)
}

func BenchmarkEvaluate(b *testing.B) {
	p, _ := New(Config{Mode: ActivationProbability(0.5), FailCommands: []string{"find"}, ErrorCode: 462})
	r := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		p.Evaluate(wire.Find, Client{}, r)
	}
}

// Rule (model): for a Couchbase command, errorCode is a status of the command's own service — a
// KV status byte, a query error number, an HTTP status — so one failpoint can fail a kvGet with
// TemporaryFailure (0x86 = 134) and a MongoDB find with code 134 without confusing the two.
func TestCouchbaseStatuses(t *testing.T) {
	tests := []struct {
		cmd  wire.Command
		code int
		want wire.Code
	}{
		{wire.KVGet, 0x86, wire.KVTemporaryFailure},
		{wire.KVUpsert, 0x07, wire.KVNotMyVbucket},
		{wire.Search, 429, wire.HTTPTooManyRequests},
		{wire.Query, 4050, wire.QueryPreparedStatementFailure4050},
	}
	for _, tc := range tests {
		p, err := New(Config{Mode: AlwaysOn(), FailCommands: []string{tc.cmd.String()}, ErrorCode: tc.code})
		if err != nil {
			t.Fatalf("New(%v, %d): %v", tc.cmd, tc.code, err)
		}
		if got := p.Evaluate(tc.cmd, Client{}, nil).Code; got != tc.want {
			t.Errorf("Evaluate(%v) with errorCode %d = %v, want %v", tc.cmd, tc.code, got, tc.want)
		}
	}
	p, _ := New(Config{Mode: AlwaysOn(), FailCommands: []string{"find", "kvGet"}, ErrorCode: 134})
	if got := p.Evaluate(wire.Find, Client{}, nil).Code; got != wire.ReadConcernMajorityNotAvailableYet {
		t.Errorf("find with errorCode 134 = %v, want MongoDB's 134", got)
	}
	if got := p.Evaluate(wire.KVGet, Client{}, nil).Code; got != wire.KVTemporaryFailure {
		t.Errorf("kvGet with errorCode 134 = %v, want KV 0x86", got)
	}
	for _, bad := range []Config{
		{Mode: AlwaysOn(), FailCommands: []string{"kvGet"}, ErrorCode: 462},
		{Mode: AlwaysOn(), FailCommands: []string{"search"}, ErrorCode: 0x86},
		{Mode: AlwaysOn(), FailCommands: []string{"kvGet"}, ErrorCode: 0x86, ErrorLabels: []string{"RetryableError"}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%v) = nil: a status of another service, or labels on a Couchbase command, must be refused", bad)
		}
	}
}

package failpoint

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/wire"
)

// The lists the messages quote, written out here rather than taken from the code under test.
const knownCommands = "abortTransaction, aggregate, commitTransaction, delete, find, findAndModify, " +
	"findandmodify, getMore, hello, insert, isMaster, ismaster, killCursors, kvGet, kvGetAndLock, kvUnlock, kvUpsert, ping, query, search, update"

const knownLabels = "SystemOverloadedError, RetryableError, NoWritesPerformed, RetryableWriteError, " +
	"TransientTransactionError"

// allowedCodes formats wire's codes other than OK; built from wire so that a code added there
// does not break these tests.
func allowedCodes() string {
	var parts []string
	for _, c := range wire.KnownCodes() {
		if c != wire.OK {
			parts = append(parts, fmt.Sprintf("%d (%s)", int32(c), c))
		}
	}
	return strings.Join(parts, ", ")
}

// valid is a configuration with no problems; cases change one thing.
func valid() Config {
	return Config{Mode: Times(2), FailCommands: []string{"find"}, ErrorCode: 462,
		ErrorLabels: []string{"RetryableError", "SystemOverloadedError"}}
}

func TestValidateAccepts(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"spec-test overload failure", valid()},
		{"off with no data", Config{Mode: Off()}},
		{"times 0", Config{Mode: Times(0), FailCommands: []string{"find"}, ErrorCode: 2}},
		{"times at the server's limit", Config{Mode: Times(math.MaxInt32), FailCommands: []string{"find"}, ErrorCode: 2}},
		{"skip", Config{Mode: Skip(5), FailCommands: []string{"insert"}, CloseConnection: true}},
		{"probability 0", Config{Mode: ActivationProbability(0), FailCommands: []string{"find"}, ErrorCode: 2}},
		{"probability 1", Config{Mode: ActivationProbability(1), FailCommands: []string{"find"}, ErrorCode: 2}},
		{"block only", Config{Mode: AlwaysOn(), FailCommands: []string{"find"}, BlockConnection: true, BlockTimeMS: 1000}},
		{"aliases", Config{Mode: AlwaysOn(), FailCommands: []string{"hello", "isMaster"}, CloseConnection: true, AppName: "monitor"}},
		{"empty labels given", Config{Mode: AlwaysOn(), FailCommands: []string{"find"}, ErrorCode: 91, HasErrorLabels: true}},
		{"pushback do not retry", Config{Mode: AlwaysOn(), FailCommands: []string{"find"}, ErrorCode: 2, RetryPushbackMS: -1, HasRetryPushback: true}},
		{"pushback of 0", Config{Mode: AlwaysOn(), FailCommands: []string{"find"}, ErrorCode: 2, HasRetryPushback: true}},
	} {
		if err := tc.cfg.Validate(); err != nil {
			t.Errorf("%s: Validate(%v) = %v, want nil", tc.name, tc.cfg, err)
		}
	}
}

// Each row breaks rules and lists every message Validate must report, in order.
func TestValidateRejects(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Config)
		want   []string
	}{
		{
			"mode is required (the server: \"you must supply a 'mode'\")",
			func(c *Config) { c.Mode = Mode{} },
			[]string{"failpoint: mode: unset: required: one of alwaysOn, off, {times: n}, {skip: n}, {activationProbability: p}"},
		},
		{
			"unknown mode",
			func(c *Config) { c.Mode = Mode{Kind: 42} },
			[]string{"failpoint: mode: kind(42): unknown mode; must be one of alwaysOn, off, {times: n}, {skip: n}, {activationProbability: p}"},
		},
		{
			"negative times",
			func(c *Config) { c.Mode = Times(-1) },
			[]string{"failpoint: mode.times: -1: must be ≥ 0"},
		},
		{
			"negative skip",
			func(c *Config) { c.Mode = Skip(-3) },
			[]string{"failpoint: mode.skip: -3: must be ≥ 0"},
		},
		{
			"times above the server's int limit",
			func(c *Config) { c.Mode = Times(math.MaxInt32 + 1) },
			[]string{"failpoint: mode.times: 2147483648: must be ≤ 2147483647 (the server's limit)"},
		},
		{
			"probability above 1",
			func(c *Config) { c.Mode = ActivationProbability(1.5) },
			[]string{"failpoint: mode.activationProbability: 1.5: must be in [0, 1]"},
		},
		{
			"probability below 0",
			func(c *Config) { c.Mode = ActivationProbability(-0.1) },
			[]string{"failpoint: mode.activationProbability: -0.1: must be in [0, 1]"},
		},
		{
			"probability NaN",
			func(c *Config) { c.Mode = ActivationProbability(math.NaN()) },
			[]string{"failpoint: mode.activationProbability: NaN: must be in [0, 1]"},
		},
		{
			"stray mode fields",
			func(c *Config) { c.Mode = Mode{Kind: ModeAlwaysOn, N: 3, P: 0.5} },
			[]string{
				"failpoint: mode.N: 3: must be 0 unless the mode is times or skip",
				"failpoint: mode.P: 0.5: must be 0 unless the mode is activationProbability",
			},
		},
		{
			"failCommands missing",
			func(c *Config) { c.FailCommands = nil },
			[]string{"failpoint: data.failCommands: []: must name at least one command"},
		},
		{
			"unknown and wrongly cased command names; connect is not a MongoDB command",
			func(c *Config) { c.FailCommands = []string{"find", "Find", "connect", "configureFailPoint"} },
			[]string{
				`failpoint: data.failCommands[1]: "Find": unknown command; known: ` + knownCommands,
				`failpoint: data.failCommands[2]: "connect": unknown command; known: ` + knownCommands,
				`failpoint: data.failCommands[3]: "configureFailPoint": unknown command; known: ` + knownCommands,
			},
		},
		{
			"error code the model does not know",
			func(c *Config) { c.ErrorCode = 12345 },
			[]string{"failpoint: data.errorCode: 12345: not a code the model knows; allowed: " + allowedCodes()},
		},
		{
			"error code that would truncate to a known one",
			func(c *Config) { c.ErrorCode = 1<<32 + 2 },
			[]string{"failpoint: data.errorCode: 4294967298: not a code the model knows; allowed: " + allowedCodes()},
		},
		{
			"unknown error label",
			func(c *Config) { c.ErrorLabels = []string{"RetryableError", "Overloaded"} },
			[]string{`failpoint: data.errorLabels[1]: "Overloaded": unknown error label; known: ` + knownLabels},
		},
		{
			"negative blockTimeMS",
			func(c *Config) { c.BlockConnection, c.BlockTimeMS = true, -5 },
			[]string{"failpoint: data.blockTimeMS: -5: must be ≥ 0"},
		},
		{
			"blockConnection without blockTimeMS",
			func(c *Config) { c.BlockConnection = true },
			[]string{"failpoint: data.blockTimeMS: 0: must be > 0 when blockConnection is true"},
		},
		{
			"blockTimeMS without blockConnection",
			func(c *Config) { c.BlockTimeMS = 100 },
			[]string{"failpoint: data.blockTimeMS: 100: has no effect unless blockConnection is true"},
		},
		{
			"pushback with nothing to carry it",
			func(c *Config) {
				c.ErrorCode, c.CloseConnection, c.RetryPushbackMS, c.HasRetryPushback = 0, true, 50, true
			},
			[]string{"failpoint: data.retryPushbackMS: 50: needs an errorCode to travel on (and no closeConnection): pushback is part of an error reply"},
		},
		{
			"blockTimeMS beyond time.Duration",
			func(c *Config) { c.BlockConnection, c.BlockTimeMS = true, math.MaxInt64 },
			[]string{"failpoint: data.blockTimeMS: 9223372036854775807: must be ≤ 9223372036854 (the longest time.Duration)"},
		},
		{
			"nothing to do",
			func(c *Config) { c.ErrorCode = 0 },
			[]string{"failpoint: data: errorCode 0, closeConnection false, blockConnection false: must set errorCode, closeConnection or blockConnection, or the failpoint never fires"},
		},
		{
			"every problem at once",
			func(c *Config) {
				*c = Config{Mode: Skip(-1), FailCommands: []string{"fnd"}, ErrorCode: -7,
					ErrorLabels: []string{"x"}, BlockConnection: true}
			},
			[]string{
				"failpoint: mode.skip: -1: must be ≥ 0",
				`failpoint: data.failCommands[0]: "fnd": unknown command; known: ` + knownCommands,
				"failpoint: data.errorCode: -7: not a code the model knows; allowed: " + allowedCodes(),
				`failpoint: data.errorLabels[0]: "x": unknown error label; known: ` + knownLabels,
				"failpoint: data.blockTimeMS: 0: must be > 0 when blockConnection is true",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := valid()
			tc.change(&cfg)
			err := cfg.Validate()
			if err == nil {
				t.Fatalf("Validate(%v) = nil, want errors", cfg)
			}
			if got, want := err.Error(), strings.Join(tc.want, "\n"); got != want {
				t.Errorf("Validate(%v) =\n%s\nwant\n%s", cfg, got, want)
			}
			for _, part := range field.Parts(err) {
				if fe := (*field.Error)(nil); !errors.As(part, &fe) {
					t.Errorf("Validate(%v): %q holds no *field.Error", cfg, part)
				}
			}
			if p, err := New(cfg); p != nil || err == nil {
				t.Errorf("New(%v) = %v, %v; want nil and the validation error", cfg, p, err)
			}
		})
	}
}

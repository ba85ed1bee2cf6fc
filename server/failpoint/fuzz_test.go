package failpoint

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/wire"
)

// naiveFires is the dumb twin of Point for times, skip, alwaysOn and off: it decides from the
// 1-based index k of a command among those the predicate accepted, with no counters.
//
//	alwaysOn: every k;  off: none;  {times: N}: k ≤ max(N, 1);  {skip: N}: k > N
func naiveFires(m Mode, k int64) bool {
	switch m.Kind {
	case ModeAlwaysOn:
		return true
	case ModeTimes:
		return k <= max(m.N, 1)
	case ModeSkip:
		return k > m.N
	}
	return false
}

// naiveMatches is the dumb twin of the data predicate.
func naiveMatches(cfg Config, cmd wire.Command, from Client) bool {
	listed := false
	for _, name := range cfg.FailCommands {
		if name == cmd.String() ||
			(cmd == wire.Hello && (name == "isMaster" || name == "ismaster")) ||
			(cmd == wire.FindAndModify && name == "findandmodify") {
			listed = true
		}
	}
	return listed && (cfg.AppName == "" || cfg.AppName == from.AppName) &&
		(!from.Internal || cfg.FailInternalCommands)
}

// commandFrom turns a fuzz byte into a command (including out-of-range ones) and a client.
func commandFrom(b byte) (wire.Command, Client) {
	cmd := wire.Command(b % byte(wire.NumCommands+2))
	from := Client{AppName: [...]string{"", "app", "other"}[b>>4%3], Internal: b&0x80 != 0}
	return cmd, from
}

// FuzzConfig builds a Config from arbitrary fields. New must never panic; when it accepts the
// config, Evaluate must be deterministic for a seed, match the naive twin in the counting modes,
// and keep TimesFired equal to the number of fires.
func FuzzConfig(f *testing.F) {
	f.Add(uint8(ModeTimes), int64(3), 0.0, "find,insert", 462, "RetryableError", false, false, false, int64(0), "", false, uint64(1), []byte{3, 6, 3, 3, 3})
	f.Add(uint8(ModeSkip), int64(2), 0.0, "find", 2, "", true, false, true, int64(10), "app", false, uint64(2), []byte{0x13, 3, 0x83, 0x13})
	f.Add(uint8(ModeActivationProbability), int64(0), 0.5, "getMore", 0, "", false, true, false, int64(0), "", true, uint64(3), []byte{4, 4, 4, 0x84})
	f.Add(uint8(ModeAlwaysOn), int64(0), 0.0, "isMaster,hello", 0, "", false, true, false, int64(0), "", false, uint64(4), []byte{1, 1})
	f.Add(uint8(0), int64(-1), -1.0, "", -5, "x,", true, true, true, int64(-1), "", true, uint64(5), []byte{})
	f.Fuzz(func(t *testing.T, kind uint8, n int64, p float64, cmds string, code int, labels string,
		hasLabels, closeConn, block bool, blockMS int64, app string, internal bool, seed uint64, seq []byte) {
		cfg := Config{
			Mode:                 Mode{Kind: ModeKind(kind % 8), N: n, P: p},
			ErrorCode:            code,
			HasErrorLabels:       hasLabels,
			CloseConnection:      closeConn,
			BlockConnection:      block,
			BlockTimeMS:          blockMS,
			AppName:              app,
			FailInternalCommands: internal,
		}
		if cmds != "" {
			cfg.FailCommands = strings.Split(cmds, ",")
		}
		if labels != "" {
			cfg.ErrorLabels = strings.Split(labels, ",")
		}
		_ = cfg.String()
		pa, err := New(cfg)
		if err != nil {
			if pa != nil {
				t.Fatalf("New returned a point and an error: %v", err)
			}
			if err.Error() == "" {
				t.Fatalf("New returned an empty error")
			}
			return
		}
		pb, _ := New(cfg)
		ra := rand.New(rand.NewPCG(seed, seed^0xfeed))
		rb := rand.New(rand.NewPCG(seed, seed^0xfeed))
		var matched, fired int64
		for i, b := range seq {
			cmd, from := commandFrom(b)
			a := pa.Evaluate(cmd, from, ra)
			if b := pb.Evaluate(cmd, from, rb); a != b {
				t.Fatalf("step %d: same seed, different actions: %+v and %+v", i, a, b)
			}
			if !a.Fire {
				if a != (Action{}) {
					t.Fatalf("step %d: non-firing action %+v is not zero", i, a)
				}
			} else {
				fired++
				if a.Close && a.Code != wire.OK {
					t.Fatalf("step %d: action %+v both closes and replies with a code", i, a)
				}
			}
			m := cfg.Mode.Kind != ModeOff && naiveMatches(cfg, cmd, from)
			if !m && a.Fire {
				t.Fatalf("step %d: %v from %+v fired but does not match %v", i, cmd, from, cfg)
			}
			if m {
				matched++
				if k := cfg.Mode.Kind; k != ModeActivationProbability {
					if want := naiveFires(cfg.Mode, matched); a.Fire != want {
						t.Fatalf("step %d (matching command %d): Fire = %v, naive twin says %v for %v",
							i, matched, a.Fire, want, cfg.Mode)
					}
				}
			}
		}
		if got := pa.TimesFired(); got != fired {
			t.Fatalf("TimesFired() = %d, counted %d fires", got, fired)
		}
		_ = pa.String()
	})
}

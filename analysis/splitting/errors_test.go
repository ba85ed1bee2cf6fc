package splitting_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/overloadsim/overloadsim/analysis/splitting"
	"github.com/overloadsim/overloadsim/field"
)

// TestConfigErrors: each bad field gives an error that names the field and its value.
func TestConfigErrors(t *testing.T) {
	good := splitting.Config{Levels: []float64{1, 2}, N: 10, Repetitions: 2}
	for _, c := range []struct {
		edit func(*splitting.Config)
		want string
	}{
		{func(c *splitting.Config) { c.Levels = nil }, "Config: Levels: []: must not be empty"},
		{func(c *splitting.Config) { c.Levels = []float64{1, 1} }, "Config: Levels[1]: 1: must be above Levels[0] = 1"},
		{func(c *splitting.Config) { c.Levels = []float64{3, 2} }, "Config: Levels[1]: 2: must be above Levels[0] = 3"},
		{func(c *splitting.Config) { c.Levels = []float64{1, math.NaN()} }, "Config: Levels[1]: NaN"},
		{func(c *splitting.Config) { c.Levels = []float64{math.Inf(-1), 1} }, "Config: Levels[0]: -Inf"},
		{func(c *splitting.Config) { c.N = 0 }, "Config: N: 0"},
		{func(c *splitting.Config) { c.Repetitions = 1 }, "Config: Repetitions: 1"},
		{func(c *splitting.Config) { c.Workers = -1 }, "Config: Workers: -1"},
	} {
		cfg := good
		c.edit(&cfg)
		_, err := splitting.Estimate(context.Background(), cfg, walk{up: 0.4, start: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", cfg, err, c.want)
		}
	}
	// Every problem at once, each a *field.Error.
	bad := splitting.Config{Levels: []float64{2, math.NaN()}, N: 0, Repetitions: 1}
	var fields []string
	for _, p := range field.Parts(bad.Validate()) {
		var fe *field.Error
		if !errors.As(p, &fe) {
			t.Fatalf("part %v holds no *field.Error", p)
		}
		fields = append(fields, fe.Field)
	}
	if want := []string{"Levels[1]", "N", "Repetitions"}; !slices.Equal(fields, want) {
		t.Errorf("%+v.Validate() reports fields %v, want %v", bad, fields, want)
	}
	if _, err := splitting.Estimate(context.Background(), good, nil); err == nil {
		t.Error("nil model accepted")
	}
	for _, c := range []struct {
		n, workers int
		level      float64
		want       string
	}{
		{0, 1, 2, "n: 0"}, {5, -2, 2, "workers: -2"}, {5, 1, math.Inf(1), "level: +Inf"},
	} {
		_, err := splitting.BruteForce(context.Background(), c.n, c.level, 1, c.workers, walk{up: 0.4, start: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("BruteForce(n %d, level %v, workers %d): error %v, want %q", c.n, c.level, c.workers, err, c.want)
		}
	}
	for _, c := range []struct {
		cfg  splitting.PilotConfig
		want string
	}{
		{splitting.PilotConfig{Target: math.NaN(), N: 10, P0: 0.2}, "Target: NaN"},
		{splitting.PilotConfig{Target: 5, N: 1, P0: 0.2}, "N: 1"},
		{splitting.PilotConfig{Target: 5, N: 10, P0: 1}, "P0: 1"},
		{splitting.PilotConfig{Target: 5, N: 10, P0: 0.2, MaxLevels: -1}, "MaxLevels: -1"},
	} {
		_, err := splitting.Pilot(context.Background(), c.cfg, walk{up: 0.4, start: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Pilot(%+v): error %v, want %q", c.cfg, err, c.want)
		}
	}
}

// cancelling cancels its context after a number of runs, as a user pressing Ctrl-C would.
type cancelling struct {
	walk
	after  int64
	n      *atomic.Int64
	cancel context.CancelFunc
}

func (c cancelling) Run(ctx context.Context, p splitting.Path, level float64) (splitting.Stop, error) {
	if c.n.Add(1) == c.after {
		c.cancel()
	}
	return c.walk.Run(ctx, p, level)
}

// TestCancel: a context cancelled before or during the estimate stops it with an error that
// says so and wraps context.Canceled.
func TestCancel(t *testing.T) {
	cfg := splitting.Config{Levels: intLevels(2, 12), N: 100, Repetitions: 5, Workers: 2}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := splitting.Estimate(ctx, cfg, walk{up: 0.3, start: 1}); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("cancelled before: %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	m := cancelling{walk: walk{up: 0.3, start: 1}, after: 700, n: new(atomic.Int64), cancel: cancel}
	_, err := splitting.Estimate(ctx, cfg, m)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during: %v", err)
	}
	if n := m.n.Load(); n > 700+int64(cfg.Workers) {
		t.Errorf("%d runs started after cancellation at run 700", n-700)
	}
	t.Log(err)
	if _, err := splitting.BruteForce(ctx, 100, 3, 1, 1, walk{up: 0.3, start: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("BruteForce cancelled: %v", err)
	}
}

// faulty fails, or breaks the contract, on its first run at level 4.
type faulty struct {
	walk
	fault string
}

var errSim = errors.New("simulator exploded")

func (f faulty) Run(ctx context.Context, p splitting.Path, level float64) (splitting.Stop, error) {
	s, err := f.walk.Run(ctx, p, level)
	if level != 4 {
		return s, err
	}
	switch f.fault {
	case "error":
		return s, errSim
	case "low hit":
		s.Hit, s.Score = true, level-1
	case "early stop":
		l, _ := p.Last()
		s.At = l.At
	case "negative cost":
		s.Cost = -1
	}
	return s, err
}

// TestModelFaults: a model error is returned with the stage, the run and its path; a Stop that
// breaks the contract is refused rather than silently biasing the estimate.
func TestModelFaults(t *testing.T) {
	cfg := splitting.Config{Levels: intLevels(2, 6), N: 50, Repetitions: 2, Workers: 2}
	for fault, want := range map[string]string{
		"error":         "simulator exploded",
		"low hit":       "a hit with Score 3 below the level",
		"early stop":    "not after the branch point",
		"negative cost": "Cost -1",
	} {
		_, err := splitting.Estimate(context.Background(), cfg, faulty{walk{up: 0.4, start: 1}, fault})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "stage 3 (level 4)") {
			t.Errorf("%s: error %v, want %q in stage 3", fault, err, want)
		}
		if fault == "error" && !errors.Is(err, errSim) {
			t.Errorf("the model's error is not wrapped: %v", err)
		}
	}
}

// TestNoHits: when no repetition gets past a stage, the estimate is 0 with the uninformative
// interval [0, 1] and an infinite relative error, not a falsely certain [0, 0].
func TestNoHits(t *testing.T) {
	r, err := splitting.Estimate(context.Background(), splitting.Config{Levels: []float64{2, 3}, N: 10, Repetitions: 3}, walk{up: 0, start: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.P != 0 || r.CILo != 0 || r.CIHi != 1 || !math.IsInf(r.RelErr, 1) || len(r.Stages[0]) != 1 || r.Stages[0][0].Hits != 0 {
		t.Errorf("got %+v", r)
	}
}

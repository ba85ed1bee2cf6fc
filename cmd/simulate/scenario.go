package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
	"github.com/overloadsim/overloadsim/scenarios"
)

// loadScenario resolves a library name or a file path (the default scenario when ref is empty)
// and applies the --set overrides: all of them, in order, then one validation (SetAll), so
// that overrides which only make sense together (--set duration=10s --set warmup=0s on a
// scenario with a 15 s warm-up) are accepted in either order.
//
// The scenarios package's errors already name the override a bad value came from; a problem
// with a value of the file itself (a warm-up that no longer fits a shorter duration) is
// prefixed with the overrides that made it one.
func loadScenario(ref string, sets []string) (*scenarios.Scenario, error) {
	if ref == "" {
		ref = scenarios.Default()
	}
	var sc *scenarios.Scenario
	var err error
	if slices.Contains(scenarios.Names(), ref) {
		sc, err = scenarios.Lookup(ref)
	} else if ref == "-" || fileExists(ref) {
		sc, err = loadFile(ref)
	} else {
		return nil, usageErrorf("%q is neither a library scenario (%s) nor a file", ref, strings.Join(scenarios.Names(), ", "))
	}
	if err != nil {
		return nil, err
	}
	for _, kv := range sets {
		if !strings.Contains(kv, "=") {
			return nil, usageErrorf("--set %q: want path=value", kv)
		}
	}
	if err := sc.SetAll(sets...); err != nil {
		var ps scenarios.Problems
		if errors.As(err, &ps) && slices.ContainsFunc(ps, func(p scenarios.Problem) bool { return p.Override == "" }) {
			labels := make([]string, len(sets))
			for i, kv := range sets {
				path, value, _ := strings.Cut(kv, "=")
				labels[i] = "--set " + strings.TrimSpace(path) + "=" + strings.TrimSpace(value)
			}
			return nil, fmt.Errorf("%s: %w", strings.Join(labels, " "), err)
		}
		return nil, err
	}
	return sc, nil
}

// stdin is where a scenario named "-" is read from.
var stdin io.Reader = os.Stdin

// stdinName is the file name a scenario read from standard input has in messages; its default
// scenario name is "stdin", and the files it names are read relative to the working folder.
const stdinName = "stdin"

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// loadFile reads and validates the scenario file at path, or standard input for "-", with the
// same bounds (scenarios.MaxFileBytes).
func loadFile(path string) (*scenarios.Scenario, error) {
	if path != "-" {
		return scenarios.Load(path)
	}
	data, err := yamlstrict.ReadBounded(stdin, stdinName, scenarios.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	return scenarios.Parse(stdinName, data)
}

// errSeedParameter refuses a sweep or map over the scenario's seed, which would silently change
// nothing: every run's seed derives from the base seed and the run's replication
// (bench.ReplicationSeed), whatever the point's scenario says.
var errSeedParameter = usageErrorf("--vary seed (or a sweep parameter seed): runs take their seeds from the base seed (--seed) and their replication, so varying seed would change nothing; use --replications for independent runs, or --seed for another base")

// seedOf returns the base seed: --seed when it was given, else the scenario's own.
func seedOf(fs *pflag.FlagSet, seed uint64, sc *scenarios.Scenario) uint64 {
	if fs.Changed("seed") {
		return seed
	}
	return sc.Seed
}

// outDir returns the output folder: --out when it was given, else out/<scenario><suffix>.
func outDir(out string, sc *scenarios.Scenario, suffix string) string {
	if out != "" {
		return out
	}
	return filepath.Join("out", sc.Name+suffix)
}

// scenarioArg returns the optional single SCENARIO|FILE argument.
func scenarioArg(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", nil
	case 1:
		return args[0], nil
	}
	return "", usageErrorf("want at most one SCENARIO or FILE, got %d arguments", len(args))
}

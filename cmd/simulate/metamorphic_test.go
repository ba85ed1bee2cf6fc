package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/overloadsim/overloadsim/internal/metamorphic"
	"github.com/overloadsim/overloadsim/results"
)

// metamorphicSeeds is how many generated scenarios TestStudyMetamorphic sweeps.
var metamorphicSeeds = flag.Int("metamorphic.seeds", 3, "generated scenarios TestStudyMetamorphic sweeps")

// TestStudyMetamorphic: for generated scenarios (internal/metamorphic), a small sweep writes the
// same sweep.json, points.csv and manifest with one worker and with two, as two shards merged,
// and stopped by SIGKILL after its first finished run and then resumed.
func TestStudyMetamorphic(t *testing.T) {
	for seed := range uint64(*metamorphicSeeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			base := t.TempDir()
			file := filepath.Join(base, "gen.yaml")
			if err := os.WriteFile(file, metamorphic.Generate(seed), 0o644); err != nil {
				t.Fatal(err)
			}
			sweep := func(dir string, extra ...string) []string {
				return append([]string{"sweep", file, "--vary", "clients[0].count=1,2,3", "--replications", "3", "--out", dir}, extra...)
			}
			want := filepath.Join(base, "workers-1")
			runOK(t, sweep(want, "--workers", "1")...)

			two := filepath.Join(base, "workers-2")
			runOK(t, sweep(two, "--workers", "2")...)
			sameStudy(t, seed, "--workers 2", want, two)

			var shards []string
			for i := range 2 {
				dir := filepath.Join(base, fmt.Sprintf("shard-%d", i))
				runOK(t, sweep(dir, "--shard", fmt.Sprintf("%d/2", i), "--workers", "1")...)
				shards = append(shards, dir)
			}
			merged := filepath.Join(base, "merged")
			runOK(t, append(append([]string{"merge"}, shards...), "--out", merged)...)
			sameStudy(t, seed, "two shards merged", want, merged)

			cut := filepath.Join(base, "resumed")
			status, stderr := signalAfterUnits(t, cut, 1, syscall.SIGKILL, sweep(cut, "--workers", "1")...)
			var out, errb bytes.Buffer
			if s := run(sweep(cut, "--workers", "1"), &out, &errb); s != exitOK {
				t.Fatalf("seed %d: resumed sweep: exit %d\n%s", seed, s, errb.String())
			}
			if status == exitOK {
				t.Logf("seed %d: the sweep finished before it was killed; the resume had nothing to do", seed)
			}
			if status != exitOK && !strings.Contains(errb.String(), "resuming: ") {
				t.Errorf("seed %d: the sweep killed (exit %d, %s) does not resume:\n%s", seed, status, stderr, errb.String())
			}
			sameStudy(t, seed, "killed and resumed", want, cut)
		})
	}
}

// sameStudy fails unless the sweeps in folders a and b wrote the same result files.
func sameStudy(t *testing.T, seed uint64, what, a, b string) {
	t.Helper()
	for _, f := range []string{results.SweepFile, results.PointsFile, results.ManifestFile} {
		x, errx := os.ReadFile(filepath.Join(a, f))
		y, erry := os.ReadFile(filepath.Join(b, f))
		if errx != nil || erry != nil {
			t.Fatalf("seed %d: %s: %v, %v", seed, what, errx, erry)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("seed %d: %s: %s differs from one worker's\n%s", seed, what, f, metamorphic.Generate(seed))
		}
	}
}

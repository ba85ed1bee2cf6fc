package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/internal/golden"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// The sweep folders' files as results writes and reads them, driven through results/sweep: an
// external test, since results/sweep imports results.

// fixturePoints is a sweep of two points, three replications each: the fixture run with its
// counts scaled per replication.
func fixturePoints() []sweep.PointResult {
	var points []sweep.PointResult
	for p, limit := range []string{"300/s", "600/s"} {
		pt := sweep.PointResult{Params: []results.Param{{Path: "topology.nodes[0].requestLimiter.rate", Value: limit}, {Path: "clients[0].policy", Value: "mongodb-2026-03"}}}
		for rep := range 3 {
			s := results.FixtureSeries()
			for i := range s.Groups {
				s.Groups[i].Succeeded += uint64(p*50 + rep*7)
			}
			pt.Replications = append(pt.Replications, results.Summarize(s, time.Second))
		}
		points = append(points, pt)
	}
	return points
}

// TestGoldenSweep: points.csv and sweep.json of a hand-built sweep, byte for byte.
func TestGoldenSweep(t *testing.T) {
	dir := t.TempDir()
	hdr := results.FixtureHeader()
	hdr.Scenario = "golden-sweep"
	if err := sweep.WriteSweepDir(dir, hdr, sweep.Aggregate(fixturePoints()), "", nil); err != nil {
		t.Fatal(err)
	}
	files := results.ReadDir(t, dir)
	for _, name := range []string{results.PointsFile, results.SweepFile, results.ManifestFile} {
		golden.Check(t, filepath.Join("testdata", t.Name(), name), files[name])
	}
}

// TestEmptyBaselineSaysSo pins that an empty baseline file is refused naming the file and what
// it should hold, not with a bare "EOF" (conventions §15: a message names the file and the rule).
func TestEmptyBaselineSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "base.json")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := sweep.LoadBaseline(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "empty") || !strings.Contains(err.Error(), "baseline") {
		t.Errorf("sweep.LoadBaseline(empty file) = %v; want an error naming %s, saying it is empty and that a baseline is expected", err, path)
	}
}

// TestCheckReadsOnlyListedFiles pins that check (ReadChecked) and ReadPoints read only files the
// manifest lists, and so verified (results/sweep package doc, # Check; conventions §15): a folder whose
// manifest leaves out summary.json or sweep.json, which may be another result's, is refused,
// naming the file.
func TestCheckReadsOnlyListedFiles(t *testing.T) {
	for _, c := range []struct{ kind, file string }{
		{results.KindRun, results.SummaryFile},
		{results.KindRun, results.RunFile},
		{results.KindSweep, results.SweepFile},
	} {
		dir := t.TempDir()
		var err error
		if c.kind == results.KindRun {
			err = results.WriteRunDir(dir, results.NewRun(results.FixtureHeader(), results.FixtureSeries()))
		} else {
			err = sweep.WriteSweepDir(dir, results.FixtureHeader(), sweep.Aggregate(fixturePoints()), "", nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := sweep.ReadChecked(dir); err != nil {
			t.Fatalf("ReadChecked of a whole %s: %v", c.kind, err)
		}
		results.DropFromManifest(t, dir, c.file)
		want := "does not list " + c.file
		if _, _, _, err := sweep.ReadChecked(dir); err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, results.ErrNoResult) {
			t.Errorf("ReadChecked of a %s whose manifest leaves out %s = %v; want it refused saying %q", c.kind, c.file, err, want)
		}
		if c.file == results.RunFile {
			continue // ReadPoints does not read run.json
		}
		if _, err := sweep.ReadPoints(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadPoints of a %s whose manifest leaves out %s = %v; want it refused saying %q", c.kind, c.file, err, want)
		}
	}
}

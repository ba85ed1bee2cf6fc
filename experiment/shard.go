package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// Shard is shard Index of Count of a result made of many runs. The runs are its units, numbered
// u = point × replications + replication in the order the unsharded command runs them; shard i of
// n owns the units u with u mod n = i. The units are dealt round-robin, so each shard takes runs
// from every part of the grid (a load sweep's expensive high-load points are spread over all
// shards) and the shards take about the same time.
type Shard struct {
	Index int
	Count int
}

// MaxShards is the most shards a work may be split into (n of --shard i/n): as many as the
// most sweep points a scenario may ask for, far more than a cluster gives one job, and few
// enough that listing the missing shards of a merge stays small.
const MaxShards = 100_000

// ParseShard parses "i/n" (0 ≤ i < n ≤ MaxShards): Slurm's $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT and
// Kubernetes' $JOB_COMPLETION_INDEX/n give it directly.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("shard %q: want i/n, such as 0/4 (shard index i of n shards)", s)
	case n < 1:
		return Shard{}, fmt.Errorf("shard %q: n is %d: there must be at least 1 shard", s, n)
	case n > MaxShards:
		return Shard{}, fmt.Errorf("shard %q: n is %d: there may be at most %d shards", s, n, MaxShards)
	case i < 0 || i >= n:
		return Shard{}, fmt.Errorf("shard %q: index %d is out of range: the shards of %d are numbered 0 to %d", s, i, n, n-1)
	}
	return Shard{Index: i, Count: n}, nil
}

// String returns "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns reports whether unit u belongs to the shard.
func (s Shard) Owns(u int) bool { return u%s.Count == s.Index }

// Units returns the units of total that the shard owns, in order.
func (s Shard) Units(total int) []int {
	var us []int
	for u := s.Index; u < total; u += s.Count {
		us = append(us, u)
	}
	return us
}

// ShardInfo is shard.json: which work the shard belongs to, which shard it is, and everything
// Merge needs to write the work's files without the scenario: the header, the points'
// parameters and, for a map, its trigger and axes.
type ShardInfo struct {
	Header results.Header `json:"header"`
	// Work is the kind of result the shards merge into: results.KindSweep or results.KindMap.
	Work         string `json:"work"`
	Index        int    `json:"index"`
	Count        int    `json:"count"`
	Replications int    `json:"replications"`
	// Units counts the units of the whole work: len(Points) × Replications.
	Units   int               `json:"units"`
	Points  [][]results.Param `json:"points"`
	Trigger string            `json:"trigger,omitempty"`
	Axes    []results.Axis    `json:"axes,omitempty"`
	// Context is a sweep's load context (WriteSweepDir), taken from the scenario.
	Context *sweep.LoadContext `json:"context,omitempty"`
	// Expect is the scenario's expectations, judged when the shards are merged.
	Expect []results.Expectation `json:"expect,omitempty"`
	// Tune is a tuning's search, for Work results.KindTune: its units are the coarse grid's runs, each
	// keeping the tuning's measures in its summary's Expected.
	Tune *results.TuneShard `json:"tune,omitempty"`
}

// Shard returns the shard the info describes.
func (si *ShardInfo) Shard() Shard { return Shard{Index: si.Index, Count: si.Count} }

// UnitName says which run unit u is: "unit 9 (point 3: rate=1500/s, replication 0)".
func (si *ShardInfo) UnitName(u int) string {
	reps := max(si.Replications, 1)
	p := u / reps
	at := ""
	if p < len(si.Points) && len(si.Points[p]) > 0 {
		at = ": " + results.ParamsText(si.Points[p])
	}
	return fmt.Sprintf("unit %d (point %d%s, replication %d)", u, p, at, u%reps)
}

// unitsKey is the key of the units a shard keeps: the work's, the shard's place in it, and the
// work's kind, trigger and, for a tuning, what its units measure.
func (si *ShardInfo) unitsKey() string {
	return results.ScenarioDigest(strings.Join([]string{UnitsKey(si.Header, si.Replications), si.Work, si.Trigger,
		si.Shard().String(), si.Tune.Key()}, "\x00"))
}

// unitFile names unit u's file inside a units folder.
func unitFile(u int) string { return fmt.Sprintf("%08d.gob", u) }

// OpenShard makes dir the folder of the shard info describes and returns its units, with those
// an earlier run of the same shard finished: the folder's manifest goes first (it reads as
// unfinished until FinishShard), then any other result in it, and units of another work or shard
// (OpenUnits); then shard.json is written.
func OpenShard(dir string, info ShardInfo) (*Units, map[int]results.Summary, error) {
	if err := results.ClaimDir(dir, true, results.ShardFile, results.ManifestFile); err != nil {
		return nil, nil, err
	}
	units, kept, err := OpenUnits(dir, info.unitsKey())
	if err != nil {
		return nil, nil, err
	}
	sh := info.Shard()
	for u := range kept {
		if !sh.Owns(u) || u >= info.Units {
			delete(kept, u) // cannot happen under the key; never reuse a unit not ours
		}
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, results.ShardFile), func(w io.Writer) error { return results.WriteJSON(w, info) }); err != nil {
		return nil, nil, err
	}
	return units, kept, nil
}

// FinishShard writes the manifest of a shard whose units have all finished: it lists shard.json,
// the units' key and every unit file with its digest, so that Merge takes no unfinished,
// truncated or altered shard for a finished one.
func FinishShard(dir string, info ShardInfo) error {
	m := results.NewManifest(results.KindShard, info.Header)
	m.Shard = info.Shard().String()
	names := []string{results.ShardFile, filepath.Join(results.UnitsDir, results.UnitsKeyFile)}
	for _, u := range info.Shard().Units(info.Units) {
		names = append(names, filepath.Join(results.UnitsDir, unitFile(u)))
	}
	for _, name := range names {
		d, err := results.DigestFile(dir, name)
		if err != nil {
			return fmt.Errorf("results: shard %s: %w", info.Shard(), err)
		}
		d.Name = filepath.ToSlash(name)
		m.Files = append(m.Files, d)
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, results.ManifestFile), func(w io.Writer) error { return results.WriteJSON(w, m) }); err != nil {
		return err
	}
	return results.RemoveClaim(dir)
}

// ShardResult is one finished shard read back: its description and its units' summaries.
type ShardResult struct {
	Dir   string
	Info  ShardInfo
	Units map[int]results.Summary
}

// ReadShard reads a finished shard folder. The error names the folder, the shard and, for a
// damaged folder, the unit: a folder that is not a shard, a shard that has not finished (with how
// many of its units have), a unit file that is missing, truncated or changed since the shard
// finished.
func ReadShard(dir string) (ShardResult, error) {
	var info ShardInfo
	if err := results.ReadJSON(filepath.Join(dir, results.ShardFile), &info); err != nil {
		var m results.Manifest
		if results.ReadJSON(filepath.Join(dir, results.ManifestFile), &m) == nil && m.Kind == results.KindShard {
			return ShardResult{}, fmt.Errorf("shard %s (%s): %s cannot be read (%v); run the shard again", m.Shard, dir, results.ShardFile, results.PathlessError(errors.Unwrap(err)))
		}
		return ShardResult{}, fmt.Errorf("%s is not a shard folder: %w", dir, err)
	}
	if info.Count > MaxShards {
		return ShardResult{}, fmt.Errorf("%s: %s says count %d: there may be at most %d shards", dir, results.ShardFile, info.Count, MaxShards)
	}
	if info.Count < 1 || info.Index < 0 || info.Index >= info.Count || info.Replications < 1 ||
		info.Units != len(info.Points)*info.Replications || (info.Work != results.KindSweep && info.Work != results.KindMap && info.Work != results.KindTune) ||
		(info.Work == results.KindTune) != (info.Tune != nil) {
		return ShardResult{}, fmt.Errorf("%s: %s describes no valid shard (shard %d/%d of a %q of %d units)", dir, results.ShardFile, info.Index, info.Count, info.Work, info.Units)
	}
	sh := info.Shard()
	name := fmt.Sprintf("shard %s (%s)", sh, dir)
	var m results.Manifest
	if err := results.ReadJSON(filepath.Join(dir, results.ManifestFile), &m); err != nil {
		done := 0
		for _, u := range sh.Units(info.Units) {
			if _, err := os.Stat(filepath.Join(dir, results.UnitsDir, unitFile(u))); err == nil {
				done++
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return ShardResult{}, fmt.Errorf("%s has not finished: %d of its %d units are done; run its command again to finish it", name, done, len(sh.Units(info.Units)))
		}
		return ShardResult{}, fmt.Errorf("%s: %w", name, err)
	}
	if m.Kind != results.KindShard || m.Digest != results.ScenarioDigest(info.Header.Canonical) {
		return ShardResult{}, fmt.Errorf("%s: its %s is not this shard's (kind %q)", name, results.ManifestFile, m.Kind)
	}
	listed := map[int]bool{}
	for _, f := range m.Files {
		what := f.Name
		u, isUnit := unitOfFile(f.Name)
		if isUnit {
			what = info.UnitName(u)
			if u >= info.Units {
				return ShardResult{}, fmt.Errorf("%s holds %s, beyond the %d units of the work", name, f.Name, info.Units)
			}
			if !sh.Owns(u) {
				return ShardResult{}, fmt.Errorf("%s holds %s, which belongs to shard %d/%d: a unit would be counted twice", name, what, u%sh.Count, sh.Count)
			}
			if listed[u] {
				return ShardResult{}, fmt.Errorf("%s lists %s twice", name, what)
			}
			listed[u] = true
		}
		got, err := results.DigestFile(dir, filepath.FromSlash(f.Name))
		if err != nil {
			return ShardResult{}, fmt.Errorf("%s: %s (%s) cannot be read: %v", name, what, f.Name, results.PathlessError(err))
		}
		got.Name = f.Name
		if got != f {
			return ShardResult{}, fmt.Errorf("%s: %s (%s) changed after the shard finished: %d bytes, the manifest says %d (truncated, or written by something else); run the shard again", name, what, f.Name, got.Bytes, f.Bytes)
		}
	}
	r := ShardResult{Dir: dir, Info: info, Units: map[int]results.Summary{}}
	for _, u := range sh.Units(info.Units) {
		if !listed[u] {
			return ShardResult{}, fmt.Errorf("%s lacks %s", name, info.UnitName(u))
		}
		s, err := readUnit(filepath.Join(dir, results.UnitsDir, unitFile(u)), info.unitsKey(), u)
		if err != nil {
			return ShardResult{}, fmt.Errorf("%s: %s cannot be used: %v; run the shard again", name, info.UnitName(u), err)
		}
		r.Units[u] = s
	}
	return r, nil
}

// optionsDiffer compares what, besides the scenario, seed and replications, changes the result
// two shards merge into — the points, a map's axes, a sweep's load context (the --slo of its
// latency knee, today's load, the ceilings) and the expectations judged — and returns the first
// that differs with both values ("" when they agree): shards made with other options would
// merge into a result that depends on the order they were given in.
func optionsDiffer(a, b *ShardInfo) (what, x, y string) {
	if a.Context != nil && b.Context != nil && a.Context.SLO != b.Context.SLO {
		return "latency objective (--slo)", sloText(a.Context.SLO), sloText(b.Context.SLO)
	}
	for _, f := range []struct {
		what string
		x, y any
	}{
		{"points", a.Points, b.Points},
		{"axes", a.Axes, b.Axes},
		{"load context (today's load, ceiling, --slo)", a.Context, b.Context},
		{"expectations", a.Expect, b.Expect},
	} {
		var jx, jy bytes.Buffer
		errx := results.WriteJSON(&jx, f.x)
		erry := results.WriteJSON(&jy, f.y)
		if errx != nil || erry != nil || !bytes.Equal(jx.Bytes(), jy.Bytes()) {
			return f.what, "digest " + results.ScenarioDigest(jx.String())[:12], "digest " + results.ScenarioDigest(jy.String())[:12]
		}
	}
	return "", "", ""
}

// sloText says a latency objective in seconds as --slo gives it: "0.05s", or "none".
func sloText(slo float64) string {
	if slo <= 0 {
		return "none (2 × the p99 at the lowest load)"
	}
	return sweep.FormatDuration(slo)
}

// unitOfFile returns the unit a manifest entry "units/00000012.gob" holds.
func unitOfFile(name string) (int, bool) {
	dir, base := filepath.Split(filepath.FromSlash(name))
	stem, ok := strings.CutSuffix(base, ".gob")
	if !ok || filepath.Clean(dir) != results.UnitsDir {
		return 0, false
	}
	u, err := strconv.Atoi(stem)
	return u, err == nil && u >= 0
}

// maxNamed is the most missing shards a merge's error names one by one.
const maxNamed = 10

// Merge checks that shards are the n shards of one work, each once, from one scenario digest,
// seed, version and replication count, with the same points, axes, load context (--slo) and
// expectations (everything else that changes the merged result), holding every unit once, and
// returns the work's description (shard 0's, which all share) and every unit's summary by unit
// number. The error
// names the shards that differ with both values, a shard given twice, and the missing shards
// with the units they should have held (the first maxNamed of them; the rest are counted).
func Merge(shards []ShardResult) (ShardInfo, []results.Summary, error) {
	if len(shards) == 0 {
		return ShardInfo{}, nil, errors.New("no shard folders given")
	}
	ref := shards[0]
	label := func(s ShardResult) string { return fmt.Sprintf("shard %s (%s)", s.Info.Shard(), s.Dir) }
	byIndex := map[int]ShardResult{}
	for _, s := range shards {
		a, b := &ref.Info, &s.Info
		differ := func(what, x, y string) error {
			return fmt.Errorf("%s and %s are shards of different work: %s %s vs %s", label(ref), label(s), what, x, y)
		}
		switch {
		case a.Header.Version != b.Header.Version:
			return ShardInfo{}, nil, differ("simulator version", a.Header.Version, b.Header.Version)
		case a.Header.Canonical != b.Header.Canonical:
			return ShardInfo{}, nil, differ("scenario digest", results.ScenarioDigest(a.Header.Canonical)[:12], results.ScenarioDigest(b.Header.Canonical)[:12])
		case a.Header.Seed != b.Header.Seed:
			return ShardInfo{}, nil, differ("seed", strconv.FormatUint(a.Header.Seed, 10), strconv.FormatUint(b.Header.Seed, 10))
		case a.Work != b.Work:
			return ShardInfo{}, nil, differ("kind", a.Work, b.Work)
		case a.Trigger != b.Trigger:
			return ShardInfo{}, nil, differ("trigger", a.Trigger, b.Trigger)
		case a.Tune.Key() != b.Tune.Key():
			return ShardInfo{}, nil, differ("tuning (its parameters, objective or constraints)",
				results.ScenarioDigest(a.Tune.Key())[:12], results.ScenarioDigest(b.Tune.Key())[:12])
		case a.Replications != b.Replications:
			return ShardInfo{}, nil, differ("replications", strconv.Itoa(a.Replications), strconv.Itoa(b.Replications))
		case a.Count != b.Count:
			return ShardInfo{}, nil, differ("shard count", strconv.Itoa(a.Count), strconv.Itoa(b.Count))
		case a.Units != b.Units:
			return ShardInfo{}, nil, differ("unit count", strconv.Itoa(a.Units), strconv.Itoa(b.Units))
		}
		if what, x, y := optionsDiffer(a, b); what != "" {
			return ShardInfo{}, nil, differ(what, x, y)
		}
		if prev, dup := byIndex[b.Index]; dup {
			return ShardInfo{}, nil, fmt.Errorf("shard %s is given twice: %s and %s; its units would be counted twice", b.Shard(), prev.Dir, s.Dir)
		}
		byIndex[b.Index] = s
	}
	info := ref.Info
	var missing []string
	nMissing := 0
	for i := 0; i < info.Count; i++ {
		if _, ok := byIndex[i]; !ok {
			if nMissing++; nMissing > maxNamed {
				continue // counted, not named: the message stays a few lines
			}
			sh := Shard{Index: i, Count: info.Count}
			us := sh.Units(info.Units)
			names := make([]string, 0, 3)
			for _, u := range us[:min(len(us), 3)] {
				names = append(names, info.UnitName(u))
			}
			more := ""
			if len(us) > 3 {
				more = fmt.Sprintf(" and %d more", len(us)-3)
			}
			missing = append(missing, fmt.Sprintf("shard %s (its %d units: %s%s)", sh, len(us), strings.Join(names, ", "), more))
		}
	}
	if nMissing > 0 {
		if nMissing > maxNamed {
			missing = append(missing, fmt.Sprintf("and %d more", nMissing-maxNamed))
		}
		return ShardInfo{}, nil, fmt.Errorf("%d of %d shards missing: %s", nMissing, info.Count, strings.Join(missing, "; "))
	}
	out := make([]results.Summary, info.Units)
	for u := range out {
		s := byIndex[u%info.Count]
		sum, ok := s.Units[u]
		if !ok {
			return ShardInfo{}, nil, fmt.Errorf("%s lacks %s", label(s), info.UnitName(u))
		}
		out[u] = sum
	}
	for _, s := range shards {
		for u := range s.Units {
			if !s.Info.Shard().Owns(u) {
				return ShardInfo{}, nil, fmt.Errorf("%s holds %s, which belongs to shard %d/%d", label(s), info.UnitName(u), u%info.Count, info.Count)
			}
		}
	}
	info.Index = 0
	info.Points = slices.Clone(info.Points)
	return info, out, nil
}

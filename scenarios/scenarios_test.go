package scenarios

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/internal/golden"

	"github.com/overloadsim/overloadsim/wire"
)

// TestInvalid reads every scenario in testdata/invalid (each starts with a comment saying what
// it breaks) and compares the problems Parse reports with testdata/TestInvalid.golden.
func TestInvalid(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "invalid", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 40 {
		t.Fatalf("%d invalid scenarios, want at least 40", len(files))
	}
	var out bytes.Buffer
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		gloss, _, _ := strings.Cut(string(data), "\n")
		name := filepath.Base(f)
		sc, err := Parse(name, data)
		switch {
		case err == nil:
			t.Errorf("Parse(%s) = %v, nil; want problems (%s)", name, sc.Name, gloss)
		case !errors.Is(err, ErrInvalid):
			t.Errorf("Parse(%s): %v: want an error matching ErrInvalid", name, err)
		}
		out.WriteString("== " + name + " " + gloss + "\n")
		if err != nil {
			out.WriteString(err.Error() + "\n")
		}
	}
	golden.Check(t, filepath.Join("testdata", t.Name()+".golden"), out.Bytes())
}

const minimal = `
duration: 10s
clients:
  - name: app
    workload: {rate: 100/s}
`

// TestDefaults: a minimal file gets every documented default, and its canonical text is the
// golden reference of the format.
func TestDefaults(t *testing.T) {
	sc, err := Parse("minimal.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		gloss     string
		got, want any
	}{
		{"name from the file name", sc.Name, "minimal"},
		{"seed", sc.Seed, uint64(DefaultSeed)},
		{"interval", sc.Interval, DefaultInterval},
		{"one standalone node named db", len(sc.Topology.Nodes), 1},
		{"node name", sc.Topology.Nodes[0].Name, DefaultNodeName},
		{"node role", sc.Topology.Nodes[0].Role, wire.Standalone},
		{"workers", sc.Topology.Nodes[0].Workers, 8},
		{"reject cost", sc.Topology.Nodes[0].RejectCost, 20 * time.Microsecond},
		{"handshake cost", sc.Topology.Nodes[0].HandshakeCost, 2 * time.Millisecond},
		{"service", sc.Topology.Nodes[0].Service.String(), "exp(1ms)"},
		{"limiter rate", sc.Topology.Nodes[0].RequestLimiter.RatePerSec, float64(DefaultLimiterRate)},
		{"count", sc.Clients[0].Count, 1},
		{"appName from the group", sc.Clients[0].Driver.AppName, "app"},
		{"retryReads", sc.Clients[0].Driver.RetryReads, true},
		{"policy", sc.Clients[0].Driver.RetryPolicy, "mongodb-2026-03"},
		{"maxAdaptiveRetries", sc.Clients[0].Driver.MaxAdaptiveRetries, 2},
		{"arrivals", sc.Clients[0].Workload.Arrivals, "poisson"},
		{"mix", sc.Clients[0].Mix["find"], 1.0},
		{"app attempts", sc.Clients[0].AppRetry.Attempts, 1},
		{"replications", sc.Sweep.Replications, DefaultReplications},
	}
	for i, c := range checks {
		if c.got != c.want {
			t.Errorf("%d: %s = %v, want %v", i, c.gloss, c.got, c.want)
		}
	}
	golden.Check(t, filepath.Join("testdata", t.Name()+".golden"), []byte(sc.String()))
}

// TestZeroIsNotDefault: a value the file gives is kept even when it is zero, so a zero that
// breaks a rule is reported rather than replaced by the default.
func TestZeroIsNotDefault(t *testing.T) {
	sc, err := Parse("z.yaml", []byte(minimal+"    driver: {maxAdaptiveRetries: 2, retryReads: false, localThresholdMS: 0}\nseed: 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := sc.Clients[0].Driver; d.RetryReads || d.LocalThreshold != 0 || sc.Seed != 0 {
		t.Errorf("retryReads %v, localThresholdMS %v, seed %d: want false, 0s, 0 as given", d.RetryReads, d.LocalThreshold, sc.Seed)
	}
	_, err = Parse("z.yaml", []byte(minimal+"    driver: {maxPoolSize: 0}\n"))
	if err == nil || !strings.Contains(err.Error(), "clients[0].driver.maxPoolSize: 0: must be ≥ 1") {
		t.Errorf("maxPoolSize 0: error %v, want it reported", err)
	}
}

// TestRoundTrip: the canonical text reads back to the same canonical text, for a scenario that
// uses every part of the format.
func TestRoundTrip(t *testing.T) {
	src := `
name: everything
description: "every part of the format: quoted, with a colon"
claim: It reads back.
seed: 42
duration: 1m
warmup: auto
interval: 500ms
topology:
  kind: replicaset
  electionTime: 2s
  nodes:
    - name: a
      serviceByCommand: {insert: "lognormal(3ms, 0.5)", find: const(1ms)}
      networkDelay: uniform(100µs, 300µs)
      ingressRequestRateLimiterEnabled: true
      ingressRequestAdmissionRatePerSec: 1500/s
      ingressRequestAdmissionBurstCapacitySecs: 0.5
      ingressRequestRateLimiterApplicationExemptions: [admin, "ops tool"]
      externalClientBaseBackoffMS: 50
    - {name: b, uslSigma: 0.02, uslKappa: 0.0001, inFlightPenalty: 10µs}
    - {name: c, rejectCost: 0s, handshakeCost: 0s, maxQueueDepth: 100}
clients:
  - name: web
    count: 3
    driver:
      timeoutMS: 2000
      readPreference: nearest
      readPreferenceTags: [{dc: ny, rack: "2"}, {}]
      retryPolicy: mongodb-2026-07
      maxAdaptiveRetries: 3
      enableOverloadRetargeting: true
    workload:
      arrivals: fixed
      rate:
        kind: piecewise
        points: [{at: 0s, rate: 10/s}, {at: 5s, rate: 20/s}]
    mix: {find: 0.7, insert: 0.2, aggregate: 0.1}
    timeout: 3s
    appRetry: {attempts: 3, perAttemptTimeout: 1s, backoff: fullJitter, base: 10ms, cap: 1s}
  - name: batch
    workload: {threads: 2, think: exp(10ms)}
  - name: wave
    workload:
      rate: {kind: sine, mean: 50/s, amplitude: 25/s, period: 10s, phase: 1.5707963267948966}
faults:
  - {at: 1s, kind: failPoint, node: a, for: 2s, mode: {activationProbability: 0.25}, data: {failCommands: [find, insert], errorCode: 462, errorLabels: [], appName: web}}
  - {at: 2s, kind: failPoint, node: b, mode: {skip: 3}, data: {failCommands: [find], blockConnection: true, blockTimeMS: 100, closeConnection: true}}
  - {at: 3s, kind: capacity, node: b, workers: 2, speed: 0.5, for: 1s}
  - {at: 4s, kind: networkDelay, node: c, delay: 5ms, for: 1s}
  - {at: 5s, kind: stepDown, successor: c}
  - {at: 6s, kind: down, node: b, for: 3s}
  - {at: 10s, kind: up, node: b}
  - {at: 11s, kind: requestLimiter, node: a, ingressRequestAdmissionRatePerSec: 700}
  - {at: 12s, kind: connLimiter, node: a, ingressConnectionEstablishmentRateLimiterEnabled: true, ingressConnectionEstablishmentRatePerSec: 50/s, ingressConnectionEstablishmentBurstCapacitySecs: 1}
sweep:
  parameters:
    clients[0].count: 1:3:1
    topology.nodes[0].ingressRequestAdmissionRatePerSec: 1000/s:2000/s:500/s
    clients[0].timeout: 1s:2s:500ms
  replications: 2
`
	sc, err := Parse("everything.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	text := sc.String()
	again, err := Parse("everything.yaml", []byte(text))
	if err != nil {
		t.Fatalf("Parse(String()): %v\n%s", err, text)
	}
	if again.String() != text {
		t.Errorf("Parse(String()).String() differs:\n%s\nthen\n%s", text, again.String())
	}
	golden.Check(t, filepath.Join("testdata", t.Name()+".golden"), []byte(text))
}

// TestSet applies overrides: happy paths change the field (and only it), sad paths report the
// override and leave the scenario as it was.
func TestSet(t *testing.T) {
	fresh := func() *Scenario {
		sc, err := Lookup("spike")
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	happy := []struct {
		gloss, path, value string
		check              func(sc *Scenario) bool
	}{
		{"a driver option", "clients[1].driver.adaptiveRetries", "true", func(sc *Scenario) bool { return sc.Clients[1].Driver.AdaptiveRetries }},
		{"a duration", "duration", "1m", func(sc *Scenario) bool { return sc.Duration == time.Minute }},
		{"a rate with its unit", "topology.nodes[0].ingressRequestAdmissionRatePerSec", "2000/s", func(sc *Scenario) bool { return sc.Topology.Nodes[0].RequestLimiter.RatePerSec == 2000 }},
		{"one parameter of a profile", "clients[0].workload.rate.peak", "4000/s", func(sc *Scenario) bool { return sc.Clients[0].Workload.Rate.Peak == 4000 }},
		{"a whole profile, as a flow mapping", "clients[0].workload.rate", "{kind: step, before: 100/s, after: 200/s, at: 5s}", func(sc *Scenario) bool {
			return sc.Clients[0].Workload.Rate.String() == "step(100/s, 200/s, 5s)"
		}},
		{"a field the file leaves out", "topology.nodes[0].uslSigma", "0.1", func(sc *Scenario) bool { return sc.Topology.Nodes[0].USLSigma == 0.1 }},
		{"a map entry", "clients[0].mix.update", "5", func(sc *Scenario) bool { return sc.Clients[0].Mix["update"] == 5 }},
		{"a new list entry, appended", "faults[0]", "{at: 20s, kind: capacity, node: db, speed: 0.5, for: 2s}", func(sc *Scenario) bool {
			return len(sc.Faults) == 1 && sc.Faults[0].Name == "capacity db"
		}},
		{"a sweep", "sweep.parameters", `{"clients[0].count": [1, 2]}`, func(sc *Scenario) bool { return len(sc.Sweep.Parameters) == 1 }},
	}
	for i, c := range happy {
		sc := fresh()
		if err := sc.Set(c.path, c.value); err != nil {
			t.Errorf("%d (%s): Set(%q, %q) = %v", i, c.gloss, c.path, c.value, err)
			continue
		}
		if !c.check(sc) {
			t.Errorf("%d (%s): Set(%q, %q) did not take effect", i, c.gloss, c.path, c.value)
		}
		again, err := Parse("x.yaml", []byte(sc.String()))
		if err != nil || again.String() != sc.String() {
			t.Errorf("%d (%s): the canonical text after Set does not round-trip: %v", i, c.gloss, err)
		}
	}

	sad := []struct {
		gloss, path, value, want string
	}{
		{"a rule broken", "clients[0].driver.maxPoolSize", "-1", "--set clients[0].driver.maxPoolSize=-1: clients[0].driver.maxPoolSize: -1: must be ≥ 1"},
		{"an unknown field", "clients[0].driver.adaptiveRetrie", "true", "--set clients[0].driver.adaptiveRetrie=true: clients[0].driver: adaptiveRetrie: unknown field; did you mean adaptiveRetries?"},
		{"a value of the wrong type", "duration", "[1s]", "--set duration=[1s]: duration: [1s]: must be a single value, not a list"},
		{"an index past the end", "clients[5].count", "1", "scenarios: --set clients[5].count=1: path \"clients[5].count\": clients has 2 entries; index 5 is out of range"},
		{"a field under a scalar", "duration.seconds", "1", "scenarios: --set duration.seconds=1: path \"duration.seconds\": duration is not a mapping"},
		{"a bad path", "clients[x]", "1", "scenarios: --set clients[x]=1: path \"clients[x]\": index \"x\": want an integer ≥ 0"},
		{"unparsable YAML", "duration", "{", "scenarios: --set duration={: value \"{\":"},
	}
	for i, c := range sad {
		sc := fresh()
		before := sc.String()
		err := sc.Set(c.path, c.value)
		if err == nil {
			t.Errorf("%d (%s): Set(%q, %q) = nil, want %q", i, c.gloss, c.path, c.value, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%d (%s): Set(%q, %q) = %q, want %q", i, c.gloss, c.path, c.value, err, c.want)
		}
		if sc.String() != before {
			t.Errorf("%d (%s): a failed Set changed the scenario", i, c.gloss)
		}
	}
	// A change whose consequence breaks another field's rule is reported at that field's line.
	healthy, err := Lookup("healthy")
	if err != nil {
		t.Fatal(err)
	}
	if err := healthy.Set("duration", "2s"); err == nil || err.Error() != "healthy.yaml:10: warmup: 2s: must be in [0s, duration 2s), or auto" {
		t.Errorf("Set(duration, 2s) on healthy = %v, want the warm-up's rule at its line", err)
	}
	sc := fresh()
	if err := sc.Set("faults", "[{at: 50s, kind: down, node: db}]"); err == nil ||
		!strings.Contains(err.Error(), "faults[0].at: 50s: must be in [0s, duration 45s)") {
		t.Errorf("Set(faults, …at 50s) = %v, want the at rule", err)
	}
}

// TestPoints: a sweep's points are every combination, the first sorted path varying slowest,
// each a scenario with the values set and without the sweep's parameters.
func TestPoints(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(minimal+`sweep:
  parameters:
    clients[0].count: 1:3:1
    clients[0].driver.adaptiveRetries: [false, true]
`))
	if err != nil {
		t.Fatal(err)
	}
	points, err := sc.Points()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range points {
		var kv []string
		for _, pr := range p.Params {
			kv = append(kv, pr.Path+"="+pr.Value)
		}
		got = append(got, strings.Join(kv, " "))
		if len(p.Scenario.Sweep.Parameters) != 0 {
			t.Errorf("point %v keeps the sweep's parameters", kv)
		}
	}
	want := []string{
		"clients[0].count=1 clients[0].driver.adaptiveRetries=false",
		"clients[0].count=1 clients[0].driver.adaptiveRetries=true",
		"clients[0].count=2 clients[0].driver.adaptiveRetries=false",
		"clients[0].count=2 clients[0].driver.adaptiveRetries=true",
		"clients[0].count=3 clients[0].driver.adaptiveRetries=false",
		"clients[0].count=3 clients[0].driver.adaptiveRetries=true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Points() = %q, want %q", got, want)
	}
	if c, a := points[5].Scenario.Clients[0].Count, points[5].Scenario.Clients[0].Driver.AdaptiveRetries; c != 3 || !a {
		t.Errorf("point 5: count %d, adaptiveRetries %v; want 3, true", c, a)
	}
	if sc.Clients[0].Count != 1 || len(sc.Sweep.Parameters) != 2 {
		t.Errorf("Points changed the scenario")
	}
}

// TestExpandRange: ranges of integers, numbers, durations and rates include both ends and
// carry no rounding error a reader would see (0.4 + 2·0.1 is written 0.6).
func TestExpandRange(t *testing.T) {
	cases := []struct{ text, want string }{
		{"1:3:1", "1 2 3"},
		{"0.1:0.3:0.1", "0.1 0.2 0.3"},
		{"0.4:0.7:0.1", "0.4 0.5 0.6 0.7"},
		{"1s:2s:250ms", "1s 1.25s 1.5s 1.75s 2s"},
		{"1000/s:2000/s:500/s", "1000/s 1500/s 2000/s"},
		{"5:5:1", "5"},
	}
	for i, c := range cases {
		vals, rule := expandRange(c.text)
		if got := strings.Join(vals, " "); got != c.want || rule != "" {
			t.Errorf("%d: expandRange(%q) = %q, %q; want %q", i, c.text, got, rule, c.want)
		}
	}
}

// TestLookupUnknown: an unknown library name is an error that lists the known ones.
func TestLookupUnknown(t *testing.T) {
	_, err := Lookup("spkie")
	if !errors.Is(err, ErrUnknownScenario) || !strings.Contains(err.Error(), "spike") {
		t.Errorf("Lookup(spkie) = %v, want ErrUnknownScenario listing the names", err)
	}
	if src, err := Source("spike"); err != nil || !bytes.HasPrefix(src, []byte("name: spike")) {
		t.Errorf("Source(spike) = %.20q, %v", src, err)
	}
}

// TestLoad reads a scenario from disk, with an empirical distribution from a file beside it.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	csv := "latency_ms\n1\n2\n3\n"
	if err := os.WriteFile(filepath.Join(dir, "svc.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "load.csv"), []byte("time,rate\n0s,100\n5s,300\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := minimal + "  - {name: trace, workload: {rate: trace(load.csv)}}\n" +
		"topology:\n  nodes: [{name: db, service: empirical(svc.csv)}]\n"
	path := filepath.Join(dir, "disk.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Topology.Nodes[0].Service.String(); got != "empirical(svc.csv)" {
		t.Errorf("service = %s, want empirical(svc.csv)", got)
	}
	if got := sc.Clients[1].Workload.Rate.String(); got != "trace(load.csv)" {
		t.Errorf("rate = %s, want trace(load.csv)", got)
	}
	if r := sc.Clients[1].Workload.Rate.Built().Rate(6 * time.Second); r != 300 {
		t.Errorf("trace rate at 6s = %v, want 300", r)
	}
	if sc.Name != "disk" || sc.File() != path {
		t.Errorf("Name %q File %q, want disk and %s", sc.Name, sc.File(), path)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Errorf("Load(missing) = nil error")
	}
	if _, err := Parse(path, []byte(minimal+"topology:\n  nodes: [{name: db, service: empirical(../x.csv)}]\n")); err == nil ||
		!strings.Contains(err.Error(), "must be a path below the scenario's directory") {
		t.Errorf("empirical(../x.csv) = %v, want refused", err)
	}
}

// FuzzParse: the loader never panics or hangs, and what it accepts reads back from its
// canonical text.
func FuzzParse(f *testing.F) {
	for _, name := range Names() {
		src, _ := Source(name)
		f.Add(src)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "invalid", "*.yaml"))
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Add([]byte(minimal))
	// Texts that read back only when the canonical text quotes them (yamlstrict's
	// TestTextRoundTrip): as values, as keys, in a flow list.
	for _, s := range []string{"<<", "...", "... x", "---", "--- x", "a:b", "\u2028"} {
		f.Add([]byte(strings.ReplaceAll(`duration: 10s
topology: {kind: replicaset, nodes: [{name: a, ingressRequestRateLimiterApplicationExemptions: [Q, x]}, {name: b}]}
clients:
  - name: app
    workload: {rate: 100/s}
    driver: {readPreference: nearest, readPreferenceTags: [{Q: Q}]}
description: Q
claim: Q
`, "Q", strconv.Quote(s))))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// "No hang": an input takes milliseconds; two seconds leaves room for a loaded machine.
		start := time.Now()
		defer func() {
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("parse took %v", d)
			}
		}()
		sc, err := parse("fuzz.yaml", data, noFiles)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse error %v does not match ErrInvalid", err)
			}
			return
		}
		text := sc.String()
		again, err := parse("fuzz.yaml", []byte(text), noFiles)
		if err != nil {
			t.Fatalf("canonical text does not read back: %v\n%s", err, text)
		}
		if again.String() != text {
			t.Fatalf("canonical text does not round-trip:\n%s\nthen\n%s", text, again.String())
		}
	})
}

// TestVary adds sweep parameters as the CLI's --vary does: a range or a comma list; a bad
// value is reported as coming from the override.
func TestVary(t *testing.T) {
	sc, err := Parse("v.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Vary("clients[0].count", "1:3:1"); err != nil {
		t.Fatal(err)
	}
	if err := sc.Vary("clients[0].driver.retryPolicy", "none, mongodb-2026-07"); err != nil {
		t.Fatal(err)
	}
	if err := sc.Vary("clients[0].count", "2,4"); err != nil {
		t.Fatal(err)
	}
	got := sc.Sweep.Parameters
	if len(got) != 2 || !slices.Equal(got["clients[0].count"].Values, []string{"2", "4"}) ||
		!slices.Equal(got["clients[0].driver.retryPolicy"].Values, []string{"none", "mongodb-2026-07"}) {
		t.Errorf("Vary: parameters %+v", got)
	}
	err = sc.Vary("clients[0].count", "1,0")
	want := "--vary clients[0].count=1,0: sweep.parameters.clients[0].count: 0: must be in [1, 1000000]"
	if err == nil || err.Error() != want {
		t.Errorf("Vary(count, 1,0) = %v, want %q", err, want)
	}
	if points, err := sc.Points(); err != nil || len(points) != 4 {
		t.Errorf("Points() = %d points, %v; want 4", len(points), err)
	}
}

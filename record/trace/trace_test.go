package trace_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/bench"
	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/record/trace"
	"github.com/overloadsim/overloadsim/scenarios"
	"github.com/overloadsim/overloadsim/sim"
)

// The run the tests trace: the spike scenario shortened to 5 s, its spike (3× the server's
// request limit, both groups) moved to [1 s, 3 s), traced over that window.
var (
	from    = sim.Time(1 * time.Second)
	to      = sim.Time(3 * time.Second)
	horizon = sim.Time(30 * time.Second) // long after the last arrival (5 s): every traced step ends
)

// run is one traced run.
type run struct {
	world *bench.World
	w     *trace.Writer
	out   []byte
	// before and after are each client's counters at from and at to, taken by events
	// scheduled before the run, so before any other event at the same instant.
	before, after map[*client.Client]client.Stats
}

func spike(t testing.TB) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Lookup("spike")
	if err != nil {
		t.Fatal(err)
	}
	for path, v := range map[string]string{
		"duration":                 "5s",
		"clients[0].workload.rate": "{kind: spike, base: 250/s, peak: 1500/s, start: 1s, duration: 2s}",
		"clients[1].workload.rate": "{kind: spike, base: 250/s, peak: 1500/s, start: 1s, duration: 2s}",
	} {
		if err := sc.Set(path, v); err != nil {
			t.Fatalf("Set(%s, %s): %v", path, v, err)
		}
	}
	return sc
}

func traceSpike(t testing.TB, cfg trace.Config) *run {
	t.Helper()
	sc := spike(t)
	loop := sim.NewLoop()
	world, err := bench.Build(sc, sc.Seed, loop, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := trace.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w.Attach(world.Groups...)
	w.AddMetadata("scenario", sc.Name)
	keepStats(world)
	r := &run{world: world, w: w, before: map[*client.Client]client.Stats{}, after: map[*client.Client]client.Stats{}}
	snap := func(m map[*client.Client]client.Stats) sim.Handler {
		return sim.HandlerFunc(func(sim.Time, int, any) {
			for _, cs := range world.Clients {
				for _, c := range cs {
					m[c] = c.Snapshot()
				}
			}
		})
	}
	loop.At(from, snap(r.before), 0, nil)
	loop.At(to, snap(r.after), 0, nil)
	loop.RunUntil(horizon)
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	r.out = buf.Bytes()
	return r
}

// keepStats gives every client of world counters of its own, which a run's groups do not keep.
func keepStats(world *bench.World) {
	for _, cs := range world.Clients {
		for _, c := range cs {
			c.KeepStats()
		}
	}
}

// traceFile is the file's shape; unknown fields are errors.
type traceFile struct {
	TraceEvents     []traceEvent   `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

type traceEvent struct {
	Name *string        `json:"name"`
	Cat  string         `json:"cat"`
	Ph   *string        `json:"ph"`
	Ts   *json.Number   `json:"ts"`
	Dur  *json.Number   `json:"dur"`
	Pid  *int           `json:"pid"`
	Tid  *int           `json:"tid"`
	S    string         `json:"s"`
	Args map[string]any `json:"args"`

	ts, dur sim.Time // parsed
}

// micros parses a time written in µs with exactly three decimals into nanoseconds.
func micros(t *testing.T, n json.Number) sim.Time {
	t.Helper()
	s := string(n)
	whole, frac, ok := strings.Cut(s, ".")
	if !ok || len(frac) != 3 {
		t.Fatalf("time %q: want µs with three decimals", s)
	}
	us, err1 := strconv.ParseInt(whole, 10, 64)
	ns, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("time %q: not a number", s)
	}
	return sim.Time(us*1000 + ns)
}

func parse(t *testing.T, out []byte) *traceFile {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var f traceFile
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("trace is not the expected JSON: %v", err)
	}
	for i := range f.TraceEvents {
		e := &f.TraceEvents[i]
		if e.Name == nil || e.Ph == nil || e.Ts == nil || e.Pid == nil || e.Tid == nil {
			t.Fatalf("event %d lacks one of name, ph, ts, pid, tid: %+v", i, e)
		}
		e.ts = micros(t, *e.Ts)
		if e.Dur != nil {
			e.dur = micros(t, *e.Dur)
		}
	}
	return &f
}

type thread struct{ pid, tid int }

// checkShape checks what Perfetto needs and what the package promises: the fields of every
// event by phase, metadata first and naming every track, events sorted by start, slices on one
// thread nested, and everything inside the window.
func checkShape(t *testing.T, f *traceFile, cfg trace.Config) {
	t.Helper()
	if f.DisplayTimeUnit != "ms" {
		t.Errorf("displayTimeUnit %q, want ms", f.DisplayTimeUnit)
	}
	procs := map[int]bool{}
	threads := map[thread]string{}
	meta := true
	var last sim.Time
	type open struct {
		end sim.Time
		dbl float64 // the end as a reader that adds ts and dur in doubles computes it
	}
	stacks := map[thread][]open{} // the open slices per thread
	for i, e := range f.TraceEvents {
		name, ph := *e.Name, *e.Ph
		th := thread{*e.Pid, *e.Tid}
		if ph == "C" {
			if len(e.Args) != 1 || !procs[th.pid] || e.ts < cfg.From-sim.Time(time.Second) || e.ts >= cfg.To {
				t.Errorf("event %d: counter %s at %v with args %v", i, name, e.ts, e.Args)
			}
			continue
		}
		if ph == "M" {
			if !meta {
				t.Errorf("event %d: metadata %s after other events", i, name)
			}
			if e.Cat != "__metadata" {
				t.Errorf("event %d: metadata %s in category %q, want __metadata", i, name, e.Cat)
			}
			key := map[string]string{"process_name": "name", "process_labels": "labels", "process_sort_index": "sort_index",
				"thread_name": "name", "thread_sort_index": "sort_index"}[name]
			if key == "" || e.Args[key] == nil {
				t.Errorf("event %d: metadata %s with args %v", i, name, e.Args)
			}
			switch name {
			case "process_name":
				procs[th.pid] = true
			case "thread_name":
				threads[th], _ = e.Args["name"].(string)
			}
			continue
		}
		meta = false
		if e.ts < last {
			t.Errorf("event %d (%s) at %v after one at %v: not sorted", i, name, e.ts, last)
		}
		last = e.ts
		if !procs[th.pid] {
			t.Errorf("event %d (%s): pid %d has no process_name", i, name, th.pid)
		}
		if _, ok := threads[th]; !ok {
			t.Errorf("event %d (%s): thread %v has no thread_name", i, name, th)
		}
		switch ph {
		case "X":
			if e.Dur == nil || e.dur < 0 {
				t.Errorf("event %d (%s): complete event with dur %v", i, name, e.Dur)
			}
			if e.ts >= cfg.To || (e.ts < cfg.From && e.ts+e.dur <= cfg.From) {
				t.Errorf("event %d (%s): [%v, %v] outside the window [%v, %v)", i, name, e.ts, e.ts+e.dur, cfg.From, cfg.To)
			}
			st := stacks[th]
			for len(st) > 0 && st[len(st)-1].end <= e.ts {
				st = st[:len(st)-1]
			}
			tsF, _ := strconv.ParseFloat(string(*e.Ts), 64)
			durF, _ := strconv.ParseFloat(string(*e.Dur), 64)
			if len(st) > 0 && e.ts+e.dur > st[len(st)-1].end {
				t.Errorf("event %d (%s): [%v, %v] overlaps its enclosing slice (ends %v) on thread %v",
					i, name, e.ts, e.ts+e.dur, st[len(st)-1].end, th)
			}
			if len(st) > 0 && tsF+durF > st[len(st)-1].dbl {
				t.Errorf("event %d (%s): ts + dur in doubles is %v, past its enclosing slice's %v on thread %v: a reader would not nest it",
					i, name, tsF+durF, st[len(st)-1].dbl, th)
			}
			stacks[th] = append(st, open{e.ts + e.dur, tsF + durF})
		case "i":
			if e.S != "t" && e.S != "g" {
				t.Errorf("event %d (%s): instant with scope %q", i, name, e.S)
			}
			if e.Dur != nil {
				t.Errorf("event %d (%s): instant with a dur", i, name)
			}
			if e.ts < cfg.From || e.ts >= cfg.To {
				t.Errorf("event %d (%s): instant at %v outside the window [%v, %v)", i, name, e.ts, cfg.From, cfg.To)
			}
		default:
			t.Errorf("event %d (%s): phase %q", i, name, ph)
		}
	}
}

// events returns the non-metadata events.
func events(f *traceFile) []traceEvent {
	var out []traceEvent
	for _, e := range f.TraceEvents {
		if *e.Ph != "M" {
			out = append(out, e)
		}
	}
	return out
}

// clientOf maps each thread to its client's name (lanes "#k" stripped).
func clientOf(f *traceFile) map[thread]string {
	m := map[thread]string{}
	for _, e := range f.TraceEvents {
		if *e.Ph == "M" && *e.Name == "thread_name" {
			name, _, _ := strings.Cut(e.Args["name"].(string), " #")
			m[thread{*e.Pid, *e.Tid}] = name
		}
	}
	return m
}

func TestShape(t *testing.T) {
	cfg := trace.Config{Clients: 2, From: from, To: to}
	r := traceSpike(t, cfg)
	f := parse(t, r.out)
	checkShape(t, f, r.w.Config())
	names := map[string]int{}
	for _, e := range events(f) {
		names[*e.Name]++
	}
	for _, n := range []string{"find", "insert", "attempt", "backoff", "overload"} {
		if names[n] == 0 {
			t.Errorf("no %q events in a spike at 3× the limit (events: %v)", n, names)
		}
	}
	// Two groups, two clients each: both processes and all four clients have tracks.
	if got := len(clientOf(f)); got < 4 {
		t.Errorf("%d threads, want at least 4", got)
	}
	for _, e := range f.TraceEvents {
		if *e.Ph == "M" && *e.Name == "process_name" && *e.Pid != 1 && *e.Pid != 2 {
			t.Errorf("process %d named %v, want pids 1 and 2", *e.Pid, e.Args["name"])
		}
	}
	if f.OtherData["scenario"] != "spike" || f.OtherData["untracedOps"] != json.Number("0") {
		t.Errorf("otherData %v: want scenario spike and no untraced operations", f.OtherData)
	}
}

// TestCountsMatchClientStats: for every traced client, the slices that start in the window
// match its counters over the window: one attempt slice per attempt started, one operation
// slice per operation issued, one backoff slice per retry, planned sleeps adding up to
// BackoffTotal. Untraced clients have no events.
func TestCountsMatchClientStats(t *testing.T) {
	r := traceSpike(t, trace.Config{Clients: 2, From: from, To: to})
	f := parse(t, r.out)
	owner := clientOf(f)
	type counts struct {
		attempts, backoffs, ops uint64
		planned                 time.Duration
	}
	got := map[string]*counts{}
	for _, e := range events(f) {
		if e.ts < from || e.ts >= to {
			continue // overlaps the window but started before it
		}
		c := got[owner[thread{*e.Pid, *e.Tid}]]
		if c == nil {
			c = &counts{}
			got[owner[thread{*e.Pid, *e.Tid}]] = c
		}
		switch *e.Name {
		case "attempt":
			c.attempts++
		case "backoff":
			c.backoffs++
			c.planned += time.Duration(micros(t, e.Args["plannedUs"].(json.Number)))
		case "find", "insert":
			c.ops++
		}
	}
	traced := 0
	for gi, cs := range r.world.Clients {
		for i, c := range cs {
			g := got[c.Name()]
			if i >= 2 {
				if g != nil {
					t.Errorf("%s is not among the first 2 of group %d but has events", c.Name(), gi)
				}
				continue
			}
			traced++
			if g == nil {
				t.Errorf("%s: no events", c.Name())
				continue
			}
			b, a := r.before[c], r.after[c]
			if want := a.AttemptsStarted - b.AttemptsStarted; g.attempts != want || want == 0 {
				t.Errorf("%s: %d attempt slices start in the window, the client started %d attempts", c.Name(), g.attempts, want)
			}
			if want := a.OpsIssued - b.OpsIssued; g.ops != want {
				t.Errorf("%s: %d operation slices start in the window, the client issued %d operations", c.Name(), g.ops, want)
			}
			if want := a.BackoffTotal - b.BackoffTotal; g.planned != want || want == 0 {
				t.Errorf("%s: backoff slices plan %v, the client backed off %v", c.Name(), g.planned, want)
			}
			// Every retry here follows an overload rejection, after which 2026-03 sleeps
			// jitter × 100 ms·2^(k−1) > 0: one backoff slice per retry, starting when the
			// retry is counted.
			if retries := a.Retries - b.Retries; g.backoffs != retries || g.backoffs == 0 {
				t.Errorf("%s: %d backoff slices for %d retries", c.Name(), g.backoffs, retries)
			}
		}
	}
	if traced != 4 {
		t.Errorf("%d clients traced, want 2 of each of 2 groups", traced)
	}
}

// TestCap: with a cap of 50 events the trace keeps 50, adds the "trace truncated" note inside the
// window, and says so in otherData.
func TestCap(t *testing.T) {
	cfg := trace.Config{Clients: 2, From: from, To: to, MaxEvents: 50}
	r := traceSpike(t, cfg)
	f := parse(t, r.out)
	checkShape(t, f, r.w.Config())
	evs := events(f)
	if len(evs) != 51 || r.w.Len() != 50 || r.w.Dropped() == 0 {
		t.Fatalf("%d events (%d kept, %d dropped), want 50 kept and the note", len(evs), r.w.Len(), r.w.Dropped())
	}
	notes := 0
	for _, e := range evs {
		if *e.Name == "trace truncated" {
			notes++
			if e.S != "g" || e.Args["dropped"] != json.Number(strconv.FormatUint(r.w.Dropped(), 10)) {
				t.Errorf("note %+v: want a global instant with the dropped count", e)
			}
		}
	}
	if notes != 1 {
		t.Errorf("%d truncation notes, want 1", notes)
	}
	if s, _ := f.OtherData["truncated"].(string); !strings.Contains(s, "event cap 50 reached") {
		t.Errorf("otherData.truncated = %q", s)
	}
}

// TestDeterministic: the same seed gives the same bytes, and writing twice gives them again.
func TestDeterministic(t *testing.T) {
	cfg := trace.Config{Clients: 3, From: from, To: to}
	a, b := traceSpike(t, cfg), traceSpike(t, cfg)
	if !bytes.Equal(a.out, b.out) {
		t.Fatalf("two runs with seed 1 wrote different traces (%d and %d bytes)", len(a.out), len(b.out))
	}
	var again bytes.Buffer
	a.w.WriteTo(&again)
	if !bytes.Equal(a.out, again.Bytes()) {
		t.Fatal("writing the trace twice gave different bytes")
	}
}

// TestWriteFile: the file holds what WriteTo writes, and no temporary file is left behind.
func TestWriteFile(t *testing.T) {
	r := traceSpike(t, trace.Config{Clients: 1, From: from, To: from + sim.Time(100*time.Millisecond)})
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.w.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, r.out) {
		t.Error("the file differs from WriteTo's output")
	}
	if fi, err := os.Stat(path); err != nil {
		t.Error(err)
	} else if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the directory, want only trace.json", len(entries))
	}
	if err := r.w.WriteFile(filepath.Join(dir, "missing", "trace.json")); err == nil {
		t.Error("WriteFile into a missing directory succeeded")
	}

	// .gz: gzip, the same trace inside, and the same bytes every time (no name or time).
	var gzs [][]byte
	for range 2 {
		gz := filepath.Join(dir, "trace.json.gz")
		if err := r.w.WriteFile(gz); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(gz)
		gzs = append(gzs, b)
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("trace.json.gz is not gzip: %v", err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(plain, r.out) || zr.Name != "" || !zr.ModTime.IsZero() {
			t.Errorf("trace.json.gz holds another trace (%v), or a name %q or time %v", err, zr.Name, zr.ModTime)
		}
	}
	if !bytes.Equal(gzs[0], gzs[1]) {
		t.Error("two writes of the same trace.json.gz differ")
	}
}

// TestAttachClientsIdle: a traced client that has issued nothing still gets a named track, with
// the stable tid of client 0 of process 1.
func TestAttachClientsIdle(t *testing.T) {
	sc := spike(t)
	loop := sim.NewLoop()
	world, err := bench.Build(sc, sc.Seed, loop, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := trace.New(trace.Config{})
	if err != nil {
		t.Fatal(err)
	}
	w.AttachClients("idle", world.Clients[0][:1]) // no workload reaches it before the loop runs
	var buf bytes.Buffer
	w.WriteTo(&buf)
	f := parse(t, buf.Bytes())
	checkShape(t, f, w.Config())
	if names := clientOf(f); len(names) != 1 || names[thread{1, 1_001_000}] != world.Clients[0][0].Name() {
		t.Errorf("threads %v, want client/adaptive/0 as tid 1001000", names)
	}
}

func TestParseWindow(t *testing.T) {
	s := func(d time.Duration) sim.Time { return sim.Time(d) }
	for _, tc := range []struct {
		in       string
		from, to sim.Time
		err      string
	}{
		// Happy paths.
		{"", 0, 0, ""},  // the whole run
		{":", 0, 0, ""}, // the same, spelt as a range
		{"10s:20s", s(10 * time.Second), s(20 * time.Second), ""},
		{"10s:", s(10 * time.Second), 0, ""},         // to the end
		{":1.5s", 0, s(1500 * time.Millisecond), ""}, // from the start
		{"250ms:1s", s(250 * time.Millisecond), s(time.Second), ""},
		// Sad paths.
		{"10s", 0, 0, "want from:to"},
		{"x:20s", 0, 0, "from"},
		{"10s:5s", 0, 0, "must be after from"},
		{"10s:10s", 0, 0, "must be after from"},
		{"-1s:5s", 0, 0, "must be ≥ 0"},
	} {
		from, to, err := trace.ParseWindow(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseWindow(%q) error = %v, want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || from != tc.from || to != tc.to {
			t.Errorf("ParseWindow(%q) = %v, %v, %v, want %v, %v", tc.in, from, to, err, tc.from, tc.to)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	err := trace.Config{Clients: -1, MaxEvents: -2, From: 5, To: 3}.Validate()
	if err := (trace.Config{Clients: trace.MaxClients + 1}).Validate(); err == nil {
		t.Errorf("Validate accepted %d clients, more than thread ids can tell apart", trace.MaxClients+1)
	}
	for _, want := range []string{"clients (-1)", "maxEvents (-2)", "to (3ns) must be after from (5ns)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to report %q", err, want)
		}
	}
	if _, err := trace.New(trace.Config{To: -1}); err == nil {
		t.Error("New accepted a window ending before it starts")
	}
	c := trace.Config{}
	c.EnsureDefaults()
	if got, want := c.String(), fmt.Sprintf("clients=%d window=[0s,end) maxEvents=%d", trace.DefaultClients, trace.DefaultMaxEvents); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestTracingDoesNotChangeTheRun: a tracer only records; every client ends the run with the same
// counters traced or not.
func TestTracingDoesNotChangeTheRun(t *testing.T) {
	stats := func(traced bool) []string {
		sc := spike(t)
		loop := sim.NewLoop()
		world, err := bench.Build(sc, sc.Seed, loop, nil)
		if err != nil {
			t.Fatal(err)
		}
		if traced {
			w, _ := trace.New(trace.Config{Clients: 3, From: from, To: to})
			w.Attach(world.Groups...)
		}
		keepStats(world)
		loop.RunUntil(horizon)
		var out []string
		for _, cs := range world.Clients {
			for _, c := range cs {
				out = append(out, fmt.Sprintf("%s %+v", c.Name(), c.Snapshot()))
			}
		}
		return out
	}
	plain, traced := stats(false), stats(true)
	for i := range plain {
		if plain[i] != traced[i] {
			t.Errorf("untraced: %s\ntraced:   %s", plain[i], traced[i])
		}
	}
}

// TestCounters: AddCounters gives each traced group a goodput counter track, one sample per
// interval at its start with the interval's goodput, and a retry-token track for the group whose
// clients have token buckets (spike's adaptive group) only.
func TestCounters(t *testing.T) {
	sc := spike(t)
	w, err := trace.New(trace.Config{Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := bench.RunWith(sc, sc.Seed, 0, bench.RunOptions{Attach: func(world *bench.World) { w.Attach(world.Groups...) }})
	if err != nil {
		t.Fatal(err)
	}
	w.AddCounters(r.Series)
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	f := parse(t, buf.Bytes())
	checkShape(t, f, w.Config())
	type key struct {
		pid  int
		name string
	}
	n := map[key]int{}
	var first *traceEvent
	for i, e := range f.TraceEvents {
		if *e.Ph == "C" {
			n[key{*e.Pid, *e.Name}]++
			if first == nil && *e.Name == "goodput" && *e.Pid == 1 {
				first = &f.TraceEvents[i]
			}
		}
	}
	intervals := int(sc.Duration / sc.Interval)
	if n[key{1, "goodput"}] != intervals || n[key{2, "goodput"}] != intervals {
		t.Errorf("goodput samples %v, want %d per group", n, intervals)
	}
	if n[key{1, "retry tokens"}] != intervals || n[key{2, "retry tokens"}] != 0 {
		t.Errorf("retry-token samples %v: want %d for adaptive (pid 1), none for plain", n, intervals)
	}
	g := r.Series.Groups[0] // the first interval of the first group, by name: adaptive
	want := float64(g.Succeeded) / g.End.Sub(g.Start).Seconds()
	if first == nil || first.ts != g.Start || fmt.Sprint(first.Args["operations/s"]) != strconv.FormatFloat(want, 'f', -1, 64) {
		t.Errorf("the first goodput sample %+v, want %v at %v", first, want, g.Start)
	}
}

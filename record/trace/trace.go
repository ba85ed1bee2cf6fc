package trace

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/sim"
)

// Defaults and limits.
const (
	// DefaultClients is how many clients of each group a zero Config.Clients traces: two, so
	// that the library's default scenario, traced whole, stays within DefaultMaxEvents (about
	// 100 000 events, 20 MB).
	DefaultClients = 2
	// DefaultMaxEvents is the event cap a zero Config.MaxEvents means.
	DefaultMaxEvents = 200_000
	// MaxClients bounds Config.Clients, so that thread ids stay distinct (see the package
	// documentation).
	MaxClients = 999
	// MaxLanes bounds a client's lanes (operations traced at once); an operation issued while
	// all are busy is not traced, and counted in otherData.untracedOps.
	MaxLanes = 1000
	// maxProcesses keeps thread ids (pid·10⁶ + …) within 31 bits.
	maxProcesses = 2000
)

// Config bounds a trace. The zero value traces the first DefaultClients clients of each group
// over the whole run, up to DefaultMaxEvents events.
type Config struct {
	// Clients is how many clients of each group are traced: the first Clients, in the group's
	// order; at most MaxClients. 0 = DefaultClients.
	Clients int
	// From and To are the window [From, To) in virtual time. A slice is kept when it overlaps
	// the window (starts before To and ends after From, or at From for an empty one), an instant
	// when From ≤ ts < To. To = 0 means no end; otherwise To > From.
	From, To sim.Time
	// MaxEvents caps the events kept, metadata excluded; 0 = DefaultMaxEvents.
	MaxEvents int
}

// EnsureDefaults fills the zero fields: Clients, MaxEvents, and To (sim.Never).
func (c *Config) EnsureDefaults() {
	if c.Clients == 0 {
		c.Clients = DefaultClients
	}
	if c.MaxEvents == 0 {
		c.MaxEvents = DefaultMaxEvents
	}
	if c.To == 0 {
		c.To = sim.Never
	}
}

// Validate reports every invalid field at once.
func (c Config) Validate() error {
	var errs []error
	bad := func(field string, v any, rule string) {
		errs = append(errs, fmt.Errorf("trace: %s (%v) %s", field, v, rule))
	}
	if c.Clients < 0 || c.Clients > MaxClients {
		bad("clients", c.Clients, fmt.Sprintf("must be in [0, %d] (0 = default)", MaxClients))
	}
	if c.MaxEvents < 0 {
		bad("maxEvents", c.MaxEvents, "must be ≥ 0 (0 = default)")
	}
	if c.From < 0 {
		bad("from", c.From, "must be ≥ 0")
	}
	if c.To != 0 && c.To <= c.From {
		bad("to", c.To, fmt.Sprintf("must be after from (%v), or 0 for no end", c.From))
	}
	return errors.Join(errs...)
}

// String returns the configuration as the trace's otherData records it, e.g.
// "clients=5 window=[10s,20s) maxEvents=200000".
func (c Config) String() string {
	to := "end"
	if c.To != 0 && c.To != sim.Never {
		to = c.To.String()
	}
	return fmt.Sprintf("clients=%d window=[%v,%s) maxEvents=%d", c.Clients, c.From, to, c.MaxEvents)
}

// ParseWindow parses a window as the --trace-window flag spells it: "from:to" with durations
// ("10s:20s"); either side may be empty ("10s:" to the end, ":20s" from the start), and so may
// the whole ("" or ":" for the whole run). to = 0 means no end, as in Config.
func ParseWindow(s string) (from, to sim.Time, err error) {
	if strings.TrimSpace(s) == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("trace: window %q: want from:to, e.g. 10s:20s", s)
	}
	parse := func(side, v string) (sim.Time, error) {
		v = strings.TrimSpace(v)
		if v == "" {
			return 0, nil
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, fmt.Errorf("trace: window %q: %s: %w", s, side, err)
		}
		if d < 0 {
			return 0, fmt.Errorf("trace: window %q: %s (%v) must be ≥ 0", s, side, d)
		}
		return sim.Time(d), nil
	}
	if from, err = parse("from", a); err != nil {
		return 0, 0, err
	}
	if to, err = parse("to", b); err != nil {
		return 0, 0, err
	}
	if strings.TrimSpace(b) != "" && to <= from {
		return 0, 0, fmt.Errorf("trace: window %q: to (%v) must be after from (%v)", s, to, from)
	}
	return from, to, nil
}

// Writer collects a trace of the clients attached to it and writes it as Chrome trace-event
// JSON. Attach it after building the world and before running the loop; write it after the
// run. A Writer belongs to one run (one loop): it is not safe for concurrent use.
type Writer struct {
	cfg       Config
	procs     []*process
	events    []event
	dropped   uint64   // events past the cap
	firstDrop sim.Time // where the first dropped event would have been (clamped to the window)
	untraced  uint64   // operations issued while their client's lanes were all busy
	meta      []keyValue
	counters  []counter // AddCounters
}

// counter is one sample of a process's counter track: a value that holds from ts until the
// next sample.
type counter struct {
	ts    sim.Time
	pid   int32
	name  string // the track: "goodput" or "retry tokens"
	key   string // the value's name in args
	value float64
}

// AddCounters adds counter tracks to the group processes the writer traces, from the run's
// interval records: each group's goodput (operations/s) and, for groups whose clients have
// retry token buckets, their mean token level, one sample per interval at its start (so each
// value spans its interval), within the trace's window. Call it once, after the run.
func (w *Writer) AddCounters(s *results.Series) {
	pids := map[string]int32{}
	for _, p := range w.procs {
		pids[p.name] = int32(p.pid)
	}
	for i := range s.Groups {
		g := &s.Groups[i]
		pid, ok := pids[g.Name]
		if !ok || g.End <= w.cfg.From || g.Start >= w.cfg.To {
			continue
		}
		if secs := g.End.Sub(g.Start).Seconds(); secs > 0 {
			w.counters = append(w.counters, counter{g.Start, pid, "goodput", "operations/s", float64(g.Succeeded) / secs})
		}
		if g.TokensN > 0 {
			w.counters = append(w.counters, counter{g.Start, pid, "retry tokens", "mean per client", g.TokensSum / float64(g.TokensN)})
		}
	}
}

type keyValue struct{ key, value string }

// process is one attached group.
type process struct {
	pid    int
	name   string
	total  int // clients in the group
	tracks []*track
}

// New returns a Writer for cfg (defaults filled in).
func New(cfg Config) (*Writer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.EnsureDefaults()
	return &Writer{cfg: cfg}, nil
}

// Config returns the writer's configuration, defaults filled in.
func (w *Writer) Config() Config { return w.cfg }

// Attach traces the first Config.Clients clients of each group, one process per group in the
// order given (pass the world's groups, in scenario order, so that pids are stable). It sets
// each traced client's Tracer, replacing any other.
func (w *Writer) Attach(groups ...*client.Group) {
	for _, g := range groups {
		w.AttachClients(g.Name(), g.Clients())
	}
}

// AttachClients traces the first Config.Clients of clients as one process named name: for
// clients that no Group runs, such as a test's. Each call adds a process.
func (w *Writer) AttachClients(name string, clients []*client.Client) {
	if len(w.procs) == maxProcesses {
		panic(fmt.Sprintf("trace: more than %d processes attached", maxProcesses))
	}
	p := &process{pid: len(w.procs) + 1, name: name, total: len(clients)}
	for i, c := range clients[:min(w.cfg.Clients, len(clients))] {
		t := &track{w: w, pid: p.pid, tid0: p.pid*1_000_000 + (i+1)*1_000, name: c.Name()}
		p.tracks = append(p.tracks, t)
		c.SetTracer(t)
	}
	w.procs = append(w.procs, p)
}

// AddMetadata records key: value in the trace's otherData, after the writer's own entries, in
// call order: for the run's scenario, seed and command line.
func (w *Writer) AddMetadata(key, value string) { w.meta = append(w.meta, keyValue{key, value}) }

// Len returns the number of events kept so far (metadata excluded).
func (w *Writer) Len() int { return len(w.events) }

// Dropped returns the number of events dropped because the cap was reached.
func (w *Writer) Dropped() uint64 { return w.dropped }

// evKind is what an event shows.
type evKind uint8

const (
	evOp        evKind = iota // X: a whole operation
	evCheckout                // X: waiting for a connection
	evAttempt                 // X: a command on the wire
	evBackoff                 // X: a retry's sleep
	evFailure                 // i: a failed checkout or attempt
	evTruncated               // i: the cap was reached (added when writing)
)

// depth orders events that start together with the same duration: an operation before its
// steps, a step before a failure marker at the same instant.
var depth = [...]uint8{evOp: 0, evCheckout: 1, evAttempt: 1, evBackoff: 1, evFailure: 2, evTruncated: 3}

// event is one kept event, formatted when the trace is written.
type event struct {
	ts      sim.Time
	dur     time.Duration
	kind    evKind
	during  evKind // evFailure: the step that failed (evCheckout or evAttempt)
	pid     int32
	tid     int32
	opKind  client.OpKind
	class   client.ErrClass // evOp
	op      uint64
	n       int // evAttempt, evFailure: the attempt; evBackoff: the retry; evOp: attempts
	retries int // evOp
	server  string
	planned time.Duration       // evBackoff
	out     client.TraceOutcome // evCheckout, evAttempt, evFailure; evOp: the error (Failure)
}

// keep reports whether an event spanning [ts, ts+dur] falls in the window.
func (w *Writer) keep(ts sim.Time, dur time.Duration) bool {
	if ts >= w.cfg.To {
		return false
	}
	return ts >= w.cfg.From || ts.Add(dur) > w.cfg.From
}

// add keeps e if it is in the window and under the cap; it reports whether it did.
func (w *Writer) add(e event) bool {
	if !w.keep(e.ts, e.dur) {
		return false
	}
	if len(w.events) >= w.cfg.MaxEvents {
		if w.dropped == 0 {
			w.firstDrop = max(e.ts, w.cfg.From)
		}
		w.dropped++
		return false
	}
	w.events = append(w.events, e)
	return true
}

// track is one traced client: a client.Tracer that puts each operation on a lane.
type track struct {
	w     *Writer
	pid   int
	tid0  int // lane k is thread tid0+k
	name  string
	lanes []lane
}

type lane struct {
	op    uint64   // the operation on the lane; 0 = free
	freed sim.Time // when it was last freed; -1 before its first use
	shown bool     // an event on it was kept: the metadata names it
}

var _ client.Tracer = (*track)(nil)

// laneOf returns the lane of operation id, or -1 when it is not traced.
func (t *track) laneOf(id uint64) int {
	for i := range t.lanes {
		if t.lanes[i].op == id {
			return i
		}
	}
	return -1
}

// add keeps e on lane l.
func (t *track) add(l int, e event) {
	e.pid, e.tid = int32(t.pid), int32(t.tid0+l)
	if t.w.add(e) {
		t.lanes[l].shown = true
	}
}

// failed marks a failed step at now.
func (t *track) failed(now sim.Time, l int, op client.TraceOp, during evKind, server string, attempt int, out client.TraceOutcome) {
	t.add(l, event{ts: now, kind: evFailure, during: during, opKind: op.Kind, op: op.ID, n: attempt, server: server, out: out})
}

// OpIssued implements client.Tracer: the operation takes the lowest lane that is free and was
// not freed at this instant (so that its slices cannot be mistaken for the last one's children).
// An operation issued after the window is not traced at all.
func (t *track) OpIssued(now sim.Time, op client.TraceOp) {
	if now >= t.w.cfg.To { // nothing it does can be kept
		return
	}
	for i := range t.lanes {
		if l := &t.lanes[i]; l.op == 0 && l.freed < now {
			l.op = op.ID
			return
		}
	}
	if len(t.lanes) == MaxLanes {
		t.w.untraced++
		return
	}
	t.lanes = append(t.lanes, lane{op: op.ID, freed: -1})
}

// CheckoutStarted implements client.Tracer.
func (t *track) CheckoutStarted(sim.Time, client.TraceOp, string) {}

// CheckoutEnded implements client.Tracer: a slice unless an idle connection served the checkout
// at once, and a failure marker if it failed.
func (t *track) CheckoutEnded(now sim.Time, op client.TraceOp, server string, start sim.Time, out client.TraceOutcome) {
	l := t.laneOf(op.ID)
	if l < 0 || (out.OK && now == start) {
		return
	}
	t.add(l, event{ts: start, dur: now.Sub(start), kind: evCheckout, opKind: op.Kind, op: op.ID, server: server, out: out})
	if !out.OK {
		t.failed(now, l, op, evCheckout, server, 0, out)
	}
}

// AttemptSent implements client.Tracer.
func (t *track) AttemptSent(sim.Time, client.TraceOp, string, int) {}

// AttemptEnded implements client.Tracer: a slice, and a failure marker if it failed.
func (t *track) AttemptEnded(now sim.Time, op client.TraceOp, server string, attempt int, start sim.Time, out client.TraceOutcome) {
	l := t.laneOf(op.ID)
	if l < 0 {
		return
	}
	t.add(l, event{ts: start, dur: now.Sub(start), kind: evAttempt, opKind: op.Kind, op: op.ID, n: attempt, server: server, out: out})
	if !out.OK {
		t.failed(now, l, op, evAttempt, server, attempt, out)
	}
}

// BackoffStarted implements client.Tracer.
func (t *track) BackoffStarted(sim.Time, client.TraceOp, int, time.Duration) {}

// BackoffEnded implements client.Tracer.
func (t *track) BackoffEnded(now sim.Time, op client.TraceOp, retry int, start sim.Time, d time.Duration) {
	if l := t.laneOf(op.ID); l >= 0 {
		t.add(l, event{ts: start, dur: now.Sub(start), kind: evBackoff, opKind: op.Kind, op: op.ID, n: retry, planned: d})
	}
}

// OpDone implements client.Tracer: the operation's slice, and its lane is free again.
func (t *track) OpDone(now sim.Time, op client.TraceOp, r *client.Result) {
	l := t.laneOf(op.ID)
	if l < 0 {
		return
	}
	t.add(l, event{ts: op.Issued, dur: now.Sub(op.Issued), kind: evOp, opKind: op.Kind, op: op.ID,
		class: r.Class, n: r.Attempts, retries: r.Retries, out: client.TraceOutcome{OK: r.OK, Failure: r.Err}})
	t.lanes[l] = lane{freed: now, shown: t.lanes[l].shown}
}

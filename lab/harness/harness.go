// Package harness runs one experiment against one real driver release: it starts the mock
// servers, starts the release's runner program with the job on its stdin, reads the runner's
// outcome lines, and merges them with the servers' log into a record.
//
// # Runner protocol
//
// The job is one JSON object: {"uri", "operation", "readPreference", "count", "concurrency",
// "database", "collection"}. The runner makes one client from the URI and waits until its
// monitors have discovered every server of the URI (from the driver's topology events: no
// command is sent), so the first operations see the same topology as the last; without that, a
// replica set read with primaryPreferred goes to a secondary while the primary is still unknown.
// Then it runs count operations at most concurrency at a time, tagging operation i with the
// comment "op-i", and writes one JSON line per operation, in any order: {"op", "ok", "code",
// "codeName", "labels", "network", "timeout", "selection", "message"}; then it exits 0. A setup
// failure goes to stderr with exit 1.
package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/lab/experiment"
	"github.com/overloadsim/overloadsim/lab/mock"
	"github.com/overloadsim/overloadsim/lab/record"
)

// Job is what a runner reads on stdin.
type Job struct {
	URI            string `json:"uri"`
	Operation      string `json:"operation"`
	ReadPreference string `json:"readPreference"`
	Count          int    `json:"count"`
	Concurrency    int    `json:"concurrency"`
	Database       string `json:"database"`
	Collection     string `json:"collection"`
}

// Line is one runner output line: what the driver returned for one operation.
type Line struct {
	Op        *int     `json:"op"`
	OK        bool     `json:"ok"`
	Code      int      `json:"code"`
	CodeName  string   `json:"codeName"`
	Labels    []string `json:"labels"`
	Network   bool     `json:"network"`
	Timeout   bool     `json:"timeout"`
	Selection bool     `json:"selection"`
	Message   string   `json:"message"`
}

// Database and Collection are where every job's operations go.
const (
	Database   = "lab"
	Collection = "c"
)

// TimeLimit is how long a runner may take on e before it is killed: generous, since it only
// catches a runner that hangs. Each wave of Concurrency operations may take a server selection
// timeout (5 s) with room for the retries' backoffs, plus its timeoutMS, plus its scripted
// delays over up to 8 attempts.
func TimeLimit(e *experiment.Experiment) time.Duration {
	waves := (e.Count + e.Concurrency - 1) / max(e.Concurrency, 1)
	perOp := 10 * time.Second
	if ms, err := time.ParseDuration(e.URI["timeoutMS"] + "ms"); err == nil && ms > 0 {
		perOp += ms
	}
	var delay float64
	for _, en := range e.Script {
		for _, a := range en.Answers {
			delay = max(delay, a.DelayMS)
		}
	}
	for _, a := range e.Handshake {
		delay = max(delay, a.DelayMS)
	}
	perOp += 8 * time.Duration(delay*float64(time.Millisecond))
	return min(30*time.Second+time.Duration(waves)*perOp, 30*time.Minute)
}

// Result is a run's record with what it was made from.
type Result struct {
	// Record is the merged record.
	Record *record.Record
	// URI is the connection string the runner was given.
	URI string
	// Lines are the runner's outcome lines by operation, messages included.
	Lines []Line
	// Log is the mock servers' log.
	Log []mock.Entry
}

// limitFor is TimeLimit; tests shorten it.
var limitFor = TimeLimit

// Run runs e against r and returns the record (see Execute).
func Run(ctx context.Context, e *experiment.Experiment, r Runner) (*record.Record, error) {
	res, err := Execute(ctx, e, r)
	if err != nil {
		return nil, err
	}
	return res.Record, nil
}

// Execute runs e against r and returns the record with the runner's lines and the servers' log.
// It fails, naming the runner, when the runner
// cannot start, exits non-zero, writes a line that is not an outcome, misses an operation or
// overruns TimeLimit(e) (its process group is then killed), and when the mock servers could
// not read a message the driver sent.
func Execute(ctx context.Context, e *experiment.Experiment, r Runner) (*Result, error) {
	prog, err := r.Program(ctx)
	if err != nil {
		return nil, err
	}
	set, err := mock.Start(e)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	uri := set.URI(nil)
	job, err := json.Marshal(Job{URI: uri, Operation: e.Operation, ReadPreference: readPref(e),
		Count: e.Count, Concurrency: e.Concurrency, Database: Database, Collection: Collection})
	if err != nil {
		return nil, err
	}
	lines, err := runProgram(ctx, prog, r.Release(), e, job)
	if err != nil {
		return nil, err
	}
	set.Close() // the runner has exited: the log is complete
	if err := set.Err(); err != nil {
		return nil, fmt.Errorf("%s on %s: the mock servers could not read the driver's messages: %w", r.Release(), e.Name, err)
	}
	log := set.Log()
	rec, err := merge(e, r, log, lines)
	if err != nil {
		return nil, err
	}
	return &Result{Record: rec, URI: uri, Lines: lines, Log: log}, nil
}

func readPref(e *experiment.Experiment) string {
	if e.ReadPreference == "" {
		return "primary"
	}
	return e.ReadPreference
}

// maxLine bounds one output line: an outcome is small even with a long message.
const maxLine = 1 << 20

// runProgram starts prog with job on stdin and returns its outcome lines by operation.
func runProgram(ctx context.Context, prog Program, release string, e *experiment.Experiment, job []byte) ([]Line, error) {
	if len(prog.Argv) == 0 {
		return nil, fmt.Errorf("%s: no program to run", release)
	}
	limit := limitFor(e)
	runCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(runCtx, prog.Argv[0], prog.Argv[1:]...)
	cmd.Dir = prog.Dir
	cmd.Stdin = bytes.NewReader(job)
	stderr := &tail{max: 8 << 10}
	cmd.Stderr = stderr
	ownGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: starting %s: %w", release, strings.Join(prog.Argv, " "), err)
	}
	lines := make([]Line, e.Count)
	seen := make([]bool, e.Count)
	var bad error
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for n := 1; sc.Scan(); n++ {
		l, err := parseLine(sc.Bytes(), e.Count)
		if err == nil && seen[*l.Op] {
			err = fmt.Errorf("operation %d reported twice", *l.Op)
		}
		if err != nil {
			bad = fmt.Errorf("%s on %s: output line %d: %w: %q", release, e.Name, n, err, clip(sc.Text(), 300))
			cancel() // a runner that breaks the protocol is not worth waiting for
			break
		}
		lines[*l.Op], seen[*l.Op] = l, true
	}
	if bad == nil && sc.Err() != nil {
		bad = fmt.Errorf("%s on %s: reading its output: %w", release, e.Name, sc.Err())
		cancel()
	}
	_, _ = io.Copy(io.Discard, out) // let the runner finish writing before Wait closes the pipe
	werr := cmd.Wait()
	switch {
	case bad != nil:
		return nil, bad
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		return nil, fmt.Errorf("%s on %s: the runner did not finish within %v (the experiment's time limit): its process group was killed%s",
			release, e.Name, limit, stderr.say())
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s on %s: %w", release, e.Name, ctx.Err())
	case werr != nil:
		return nil, fmt.Errorf("%s on %s: the runner failed: %w%s", release, e.Name, werr, stderr.say())
	}
	var missing []int
	for i, ok := range seen {
		if !ok {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s on %s: the runner exited without reporting %d of %d operations (first: op %d)%s",
			release, e.Name, len(missing), e.Count, missing[0], stderr.say())
	}
	return lines, nil
}

// parseLine reads one outcome line strictly: known fields only, an op in range.
func parseLine(b []byte, count int) (Line, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var l Line
	if err := dec.Decode(&l); err != nil {
		return l, fmt.Errorf("not an outcome (%v)", err)
	}
	if dec.More() {
		return l, errors.New("not an outcome (more than one JSON value)")
	}
	if l.Op == nil {
		return l, errors.New("no op")
	}
	if *l.Op < 0 || *l.Op >= count {
		return l, fmt.Errorf("op %d: must be 0 to %d", *l.Op, count-1)
	}
	return l, nil
}

// Classify returns the outcome of a line, classed as the runner protocol says: ok, timeout,
// selection, network, overload (the SystemOverloadedError label), server (another error code),
// other.
func Classify(l Line) record.Outcome {
	if l.OK {
		return record.Outcome{OK: true, Class: "ok"}
	}
	o := record.Outcome{Code: l.Code}
	if len(l.Labels) > 0 {
		o.Labels = slices.Clone(l.Labels)
		slices.Sort(o.Labels)
		o.Labels = slices.Compact(o.Labels)
	}
	switch {
	case l.Timeout:
		o.Class = "timeout"
	case l.Selection:
		o.Class = "selection"
	case l.Network:
		o.Class = "network"
	case slices.Contains(o.Labels, "SystemOverloadedError"):
		o.Class = "overload"
	case l.Code != 0:
		o.Class = "server"
	default:
		o.Class = "other"
	}
	return o
}

// merge builds the record: each operation's attempts in arrival order with times after its first
// attempt, the application handshakes with times after the first handshake.
func merge(e *experiment.Experiment, r Runner, log []mock.Entry, lines []Line) (*record.Record, error) {
	rec := &record.Record{Experiment: e.Name, Runner: r.Name(), Release: r.Release(), Ops: make([]record.Op, e.Count)}
	first := make([]time.Duration, e.Count)
	var hs0 time.Duration
	for _, en := range log {
		a := record.Attempt{Server: en.Node, Answer: en.Answer}
		if en.Op < 0 {
			if len(rec.Handshakes) == 0 {
				hs0 = en.T
			}
			a.AtMS = ms(en.T - hs0)
			rec.Handshakes = append(rec.Handshakes, a)
			continue
		}
		if en.Op >= e.Count {
			return nil, fmt.Errorf("%s on %s: the servers received %s tagged op-%d, but the experiment has %d operations",
				r.Release(), e.Name, en.Command, en.Op, e.Count)
		}
		op := &rec.Ops[en.Op]
		if len(op.Attempts) == 0 {
			first[en.Op] = en.T
		}
		a.AtMS = ms(en.T - first[en.Op])
		op.Attempts = append(op.Attempts, a)
	}
	for i := range rec.Ops {
		rec.Ops[i].Index = i
		if rec.Ops[i].Attempts == nil {
			rec.Ops[i].Attempts = []record.Attempt{}
		}
		rec.Ops[i].Outcome = Classify(lines[i])
	}
	return rec, nil
}

// ms converts to milliseconds, kept to the microsecond.
func ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// tail keeps the last max bytes written: a runner's stderr, for the error that names it.
type tail struct {
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) say() string {
	s := strings.TrimSpace(string(t.b))
	if s == "" {
		return ""
	}
	return "; its stderr ends:\n" + s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

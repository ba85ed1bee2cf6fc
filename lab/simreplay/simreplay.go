// Package simreplay runs a conformance-lab experiment through the simulator as the harness runs
// it through a real driver, and writes the same record.
//
// One loop holds one scripted node per experiment node and ONE simulated MongoClient
// (client.New) whose options come from the experiment's connection-string options and the
// replay's Options (ClientOptions). The client runs the experiment's Count operations, at most
// Concurrency at a time in index order, each starting when another finishes, as a runner does.
// The nodes answer as the mock server does:
//
//   - an operation's attempts (requests that carry the client's operation number, wire.Request.Op,
//     where a real driver carries the comment "op-N") by the experiment's script: the first entry
//     matching (node, command), its k-th answer for the operation's k-th command that entry
//     matched; an answer with P applies with probability P, drawn from a stream seeded by the
//     experiment's Seed, else the command succeeds; DelayMS delays the answer; Close closes the
//     connection (the client sees a network error);
//   - the handshakes of application (authenticated) connections by the experiment's handshake
//     list in arrival order over the whole experiment, then success; the monitoring connections'
//     handshakes and hellos always succeed;
//   - roles by topology: a standalone; a replica set's n0 the primary and the others
//     secondaries; a sharded cluster's nodes all mongos.
//
// Links have no delay, so the time between two attempts of an operation is exactly the
// client's backoff (plus any scripted delay, and any wait for server selection or a connection).
// Times in the record are virtual milliseconds.
//
// The nodes are the simulator's own test kit's (wire/wiretest.Node), with an answer hook that
// reads the experiment's script: the kit already behaves as a node does around the script
// (connection numbering, closing, delayed replies, the role on every reply), and the lab is a
// test apparatus of the simulator, never part of the model.
//
// What the simulator cannot model is refused with an error naming the field, the value and the
// reason: a connection-string option it has no counterpart for, timeoutMS=0, a handshake error
// reply without SystemOverloadedError or with baseBackoffMS (the simulated client takes every
// failed handshake for an overloaded network error, as CMAP labels a failed establishment, and
// keeps only its code, retry.Failure.HandshakeCode), an error label or code the wire model
// lacks. A handshake answered with an overload error is modelled; when it is the error the
// application receives, the replay reports it as the Go driver does, a network error carrying
// the reply's code.
package simreplay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/lab/experiment"
	"github.com/overloadsim/overloadsim/lab/record"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
	"github.com/overloadsim/overloadsim/wire/wiretest"
)

// Runner is the Runner every replay's record names.
const Runner = "sim"

// horizon bounds a replay in virtual time: far past any experiment's operations (5000 of them one
// at a time, each within its retries and server selection), so reaching it means an operation
// never finished.
const horizon = 30 * 24 * time.Hour

// start is when the first operations are issued: the monitors discover every node at 0 (no
// link delay), so the first selections see the whole topology, as a runner's do once its client
// has connected.
const start = sim.Time(time.Millisecond)

// Replay runs e through the simulator with o and returns its record: Runner "sim", Release
// o.Release(). The same e and o give the same record.
func Replay(e *experiment.Experiment, o Options) (*record.Record, error) {
	if e == nil {
		return nil, fmt.Errorf("experiment: nil")
	}
	if err := e.Check(); err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	opts, err := ClientOptions(e, o)
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	kind, kindOK := opKinds[e.Operation]
	if !kindOK {
		return nil, fmt.Errorf("experiment %s: operation: %q: the replay has no client operation for it", e.Name, e.Operation)
	}
	script, err := convertScript(e)
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	r := newReplayer(e, o, kind, script)
	topo, roles := topology(e.Topology.Kind)
	nodes := make([]client.Node, e.Topology.Nodes)
	for i := range nodes {
		n := wiretest.NewNode(r.loop, roles(i))
		name := experiment.NodeName(i)
		n.AnswerFunc = func(now sim.Time, q *wire.Request) (wiretest.Answer, bool) { return r.answer(now, name, q) }
		nodes[i] = client.Node{Address: name, Handler: n, Link: wire.NewLink(nil, nil)}
	}
	r.client, err = client.New(r.loop, opts, topo, nodes, o.Seed, "client/lab/0")
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	r.loop.At(start, sim.HandlerFunc(func(now sim.Time, _ int, _ any) {
		for range e.Concurrency {
			r.issue(now)
		}
	}), 0, nil)
	r.loop.RunUntil(sim.Time(horizon))
	if r.err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, r.err)
	}
	if r.finished < e.Count {
		return nil, fmt.Errorf("experiment %s: %d of %d operations still running after %v of virtual time",
			e.Name, e.Count-r.finished, e.Count, horizon)
	}
	return r.record(), nil
}

// opKinds maps the experiment's operations to the client's.
var opKinds = map[string]client.OpKind{
	"find": client.Find, "insertOne": client.Insert, "runCommand": client.RunCommand,
	"aggregateOut": client.AggregateOut,
}

// topology returns the client's topology kind for an experiment's and each node's role.
func topology(kind string) (selection.TopologyKind, func(i int) wire.Role) {
	switch kind {
	case "replicaset":
		return selection.ReplicaSet, func(i int) wire.Role {
			if i == 0 {
				return wire.Primary
			}
			return wire.Secondary
		}
	case "sharded":
		return selection.Sharded, func(int) wire.Role { return wire.Mongos }
	}
	return selection.Single, func(int) wire.Role { return wire.Standalone }
}

// answer is one experiment answer as a node gives it, with its description for the record.
type answer struct {
	wiretest.Answer
	p    float64 // the probability it applies, 0 for always (experiment.Answer.P)
	desc string
}

// script is the experiment's handshake list in the wire model's terms.
type script struct {
	handshake []answer
	times     []int // each handshake answer's Times (≥ 1)
}

// handshakeAnswer returns the answer to the k-th (0-based) application handshake: the answer
// covering k, counting each answer's Times, or success once the list is used up.
func (s *script) handshakeAnswer(k int) answer {
	for i, t := range s.times {
		if k < t {
			return s.handshake[i]
		}
		k -= t
	}
	return answer{desc: "ok"}
}

// convertScript converts e's answers, refusing those the wire model cannot carry. The script's
// entries are converted again as each command is answered (experiment.Entry.Lookup), so that
// every answer is checked once here and no error can arise mid-replay.
func convertScript(e *experiment.Experiment) (*script, error) {
	s := &script{}
	for i, en := range e.Script {
		for j, a := range en.Answers {
			if _, err := convert(a, fmt.Sprintf("script[%d].answers[%d]", i, j)); err != nil {
				return nil, err
			}
		}
	}
	for j, a := range e.Handshake {
		f := fmt.Sprintf("handshake[%d]", j)
		if a.Error != nil && !slices.Contains(a.Error.Labels, "SystemOverloadedError") {
			return nil, fmt.Errorf("%s.error: code %d without SystemOverloadedError: the simulated client takes every failed handshake for an overloaded one (CMAP labels a failed establishment SystemOverloadedError and RetryableError), so it cannot model another handshake error", f, a.Error.Code)
		}
		if a.Error != nil && a.Error.BaseBackoffMS != 0 {
			return nil, fmt.Errorf("%s.error.baseBackoffMS: %d: the simulated client's failed handshake carries no baseBackoffMS, so it cannot model one", f, a.Error.BaseBackoffMS)
		}
		w, err := convert(a, f)
		if err != nil {
			return nil, err
		}
		s.handshake, s.times = append(s.handshake, w), append(s.times, max(a.Times, 1))
	}
	return s, nil
}

// convert returns a as a scripted node's answer; f names it in errors.
func convert(a experiment.Answer, f string) (answer, error) {
	w := answer{p: a.P, desc: a.Describe()}
	w.Delay = time.Duration(math.Round(a.DelayMS * float64(time.Millisecond)))
	switch {
	case a.Close:
		w.Close = true
	case a.Error != nil:
		if a.Error.Code <= 0 || a.Error.Code > math.MaxInt32 {
			return w, fmt.Errorf("%s.error.code: %d: must be 1 to %d", f, a.Error.Code, math.MaxInt32)
		}
		w.Code = wire.Code(a.Error.Code)
		for k, name := range a.Error.Labels {
			l, ok := wire.ParseLabel(name)
			if !ok {
				return w, fmt.Errorf("%s.error.labels[%d]: %q: the simulator has no such label (it has %v)", f, k, name, wire.LabelNames())
			}
			w.Labels |= l
		}
		if a.Error.BaseBackoffMS < 0 {
			return w, fmt.Errorf("%s.error.baseBackoffMS: %d: must be ≥ 0", f, a.Error.BaseBackoffMS)
		}
		w.BaseBackoffMS = int64(a.Error.BaseBackoffMS)
	}
	return w, nil
}

// replayer is one replay's state: the loop, the client, the nodes' counters and the record
// being written.
type replayer struct {
	e    *experiment.Experiment
	o    Options
	kind client.OpKind
	// command is the command every attempt is, as the script names it: runCommand's attempts
	// are the {find: ...} a runner sends, whatever wire command the simulated client uses.
	command string
	script  *script
	loop    *sim.Loop
	client  *client.Client
	draw    *rand.Rand // the script's P draws

	// counts[op][entry] is how many commands of operation op entry has matched.
	counts     [][]int
	handshakes int // application handshakes received so far
	issued     int
	finished   int

	ops        []record.Op
	first      []sim.Time // per operation, when its first attempt arrived
	hsAt       []sim.Time
	handshakeR []record.Attempt
	err        error // a request the replay cannot place (reported once)
}

func newReplayer(e *experiment.Experiment, o Options, kind client.OpKind, s *script) *replayer {
	loop := sim.NewLoop()
	r := &replayer{e: e, o: o, kind: kind, command: experiment.Command(e.Operation), script: s,
		loop: loop, draw: loop.NewStream(e.Seed, "lab/script"),
		counts: make([][]int, e.Count), ops: make([]record.Op, e.Count), first: make([]sim.Time, e.Count)}
	for i := range r.ops {
		r.ops[i] = record.Op{Index: i, Attempts: []record.Attempt{}}
	}
	return r
}

// issue starts the next operation, if any is left.
func (r *replayer) issue(now sim.Time) {
	if r.issued == r.e.Count {
		return
	}
	r.client.Execute(now, client.Spec{Kind: r.kind}, &opDone{r: r, index: r.issued})
	r.issued++
}

// opDone hears one operation's end.
type opDone struct {
	r     *replayer
	index int
}

// OperationDone records the outcome and starts the next operation in the same instant, in an
// event of its own (so that it does not run inside the client's bookkeeping of this one).
func (d *opDone) OperationDone(now sim.Time, res *client.Result) {
	r := d.r
	r.ops[d.index].Outcome = outcome(res)
	r.finished++
	if r.finished == r.e.Count {
		r.loop.Stop()
		return
	}
	r.loop.At(now, sim.HandlerFunc(func(now sim.Time, _ int, _ any) { r.issue(now) }), 0, nil)
}

// answer is every node's answer hook: the handshakes of application connections and the
// operations' attempts are the experiment's; everything else (monitoring, hellos) is left to the
// node, which answers with success.
func (r *replayer) answer(now sim.Time, node string, q *wire.Request) (wiretest.Answer, bool) {
	switch {
	case q.Cmd == wire.Connect && q.Conn != nil && q.Conn.Authenticated:
		a := r.applies(r.script.handshakeAnswer(r.handshakes))
		r.handshakes++
		r.hsAt = append(r.hsAt, now)
		r.handshakeR = append(r.handshakeR, record.Attempt{Server: node, Answer: a.desc})
		return a.Answer, true
	case q.Op == 0:
		return wiretest.Answer{}, false
	}
	i := int(q.Op) - 1
	if i < 0 || i >= r.e.Count {
		if r.err == nil {
			r.err = fmt.Errorf("node %s received %v for operation %d, beyond the experiment's %d", node, q.Cmd, q.Op, r.e.Count)
		}
		return wiretest.Answer{}, false
	}
	a := answer{desc: "ok"}
	if en := r.e.Match(node, r.command); en >= 0 {
		if r.counts[i] == nil {
			r.counts[i] = make([]int, len(r.e.Script))
		}
		k := r.counts[i][en]
		r.counts[i][en]++
		w, _ := convert(r.e.Script[en].Lookup(k), "") // checked by convertScript
		a = r.applies(w)
	}
	op := &r.ops[i]
	if len(op.Attempts) == 0 {
		r.first[i] = now
	}
	op.Attempts = append(op.Attempts, record.Attempt{Server: node, AtMS: ms(now.Sub(r.first[i])), Answer: a.desc})
	return a.Answer, true
}

// applies returns a, or success when a has a probability and the draw says it does not apply.
func (r *replayer) applies(a answer) answer {
	if a.p > 0 && a.p < 1 && r.draw.Float64() >= a.p {
		return answer{desc: "ok"}
	}
	return a
}

// record returns the replay's record.
func (r *replayer) record() *record.Record {
	rec := &record.Record{Experiment: r.e.Name, Runner: Runner, Release: r.o.Release(), Ops: r.ops}
	for i, h := range r.handshakeR {
		h.AtMS = ms(r.hsAt[i].Sub(r.hsAt[0]))
		rec.Handshakes = append(rec.Handshakes, h)
	}
	return rec
}

// ms returns d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// outcome classifies a result as the harness classifies a real driver's (in its order: timeout,
// selection, network, overload, server, other), with the code and sorted labels of the error the
// application receives.
func outcome(res *client.Result) record.Outcome {
	if res.OK {
		return record.Outcome{OK: true, Class: "ok"}
	}
	f := res.Err
	o := record.Outcome{Code: int(f.Code), Labels: f.Labels.Names()}
	if f.Handshake && f.HandshakeCode != 0 {
		o.Code = int(f.HandshakeCode) // the driver wraps the handshake's error reply
	}
	slices.Sort(o.Labels)
	switch {
	case res.Class == client.ErrTimeout:
		o.Class = "timeout"
	case res.Class == client.ErrServerSelection:
		o.Class = "selection"
	case f.Network:
		o.Class = "network"
	case f.Labels.Has(wire.SystemOverloadedError):
		o.Class = "overload"
	case f.Code != 0:
		o.Class = "server"
	default:
		o.Class = "other"
	}
	return o
}

// Package experiment defines the conformance lab's experiments: a topology of mock servers, the
// driver options, one operation run many times, and a script that says how the servers answer
// each attempt of each operation. The same definition drives the mock server in front of a real
// driver and the simulator's replay, so their records can be compared rule by rule.
//
// Experiments are JSON files in lab/experiments; Load reads and checks one, naming the file, the
// field, the value and the rule of every problem.
package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Experiment is one named experiment.
type Experiment struct {
	// Name is the experiment's name, the file's base name without ".json".
	Name string `json:"name"`
	// Doc says what the experiment shows, in a sentence or two.
	Doc string `json:"doc"`
	// Rules are the comparisons that apply to it (see Rules).
	Rules []string `json:"rules"`
	// Topology is the servers the driver talks to.
	Topology Topology `json:"topology"`
	// URI holds extra connection-string options, e.g. {"retryReads": "false", "timeoutMS":
	// "500", "maxAdaptiveRetries": "3"}. The harness always adds serverMonitoringMode=poll
	// (one monitoring connection per server) and, for a standalone, directConnection=true.
	URI map[string]string `json:"uri,omitempty"`
	// Operation is what each operation does: one of Operations.
	Operation string `json:"operation"`
	// ReadPreference is the read preference mode of reads ("primary" when empty).
	ReadPreference string `json:"readPreference,omitempty"`
	// Count is how many operations run, Concurrency how many at a time.
	Count       int `json:"count"`
	Concurrency int `json:"concurrency"`
	// Script says how the servers answer the operations' commands. Commands no entry matches
	// succeed at once.
	Script []Entry `json:"script"`
	// Handshake, if not empty, answers the handshakes (the first hello) of application
	// connections, in arrival order over the whole experiment; the monitoring connection (each
	// server's first) always succeeds. After the list, handshakes succeed.
	Handshake []Answer `json:"handshake,omitempty"`
	// Seed seeds the servers' random answers (Answer.P).
	Seed uint64 `json:"seed,omitempty"`
}

// Topology is the experiment's servers.
type Topology struct {
	// Kind is "standalone", "replicaset" (node n0 is the primary, the others secondaries) or
	// "sharded" (every node is a mongos).
	Kind string `json:"kind"`
	// Nodes is the number of servers, named n0, n1, ...; 1 for a standalone.
	Nodes int `json:"nodes"`
}

// Entry is one script entry: the answers to one command at some nodes.
type Entry struct {
	// Node is the node the entry applies to ("n0"), or "" for every node.
	Node string `json:"node,omitempty"`
	// Command is the command name the entry answers ("find", "insert", ...).
	Command string `json:"command"`
	// Answers answer an operation's matching commands in order: the k-th command of one
	// operation that this entry matches gets the answer covering k, counting each answer's
	// Times. The last answer repeats forever.
	Answers []Answer `json:"answers"`
}

// Answer is how a server answers one command.
type Answer struct {
	// Times is how many consecutive commands this answer covers (default 1).
	Times int `json:"times,omitempty"`
	// OK is success.
	OK bool `json:"ok,omitempty"`
	// Error is an error reply.
	Error *Error `json:"error,omitempty"`
	// Close closes the connection instead of answering: the driver sees a network error.
	Close bool `json:"close,omitempty"`
	// DelayMS delays the answer (or the close).
	DelayMS float64 `json:"delayMS,omitempty"`
	// P, when in (0, 1), makes the answer apply with probability P (drawn per command from the
	// experiment's Seed); otherwise the command succeeds. 0 means always.
	P float64 `json:"p,omitempty"`
}

// Error is an error reply's fields.
type Error struct {
	Code     int      `json:"code"`
	CodeName string   `json:"codeName,omitempty"`
	Labels   []string `json:"labels,omitempty"`
	// BaseBackoffMS is the reply's baseBackoffMS field, 0 for none.
	BaseBackoffMS int `json:"baseBackoffMS,omitempty"`
}

// Operations are the operations an experiment can run: find (a read), insertOne (a retryable
// write), runCommand (a find sent through the generic command helper), aggregateOut (an
// aggregate with a $out stage: a write).
var Operations = []string{"find", "insertOne", "runCommand", "aggregateOut"}

// Command returns the command an operation sends.
func Command(operation string) string {
	switch operation {
	case "insertOne":
		return "insert"
	case "aggregateOut":
		return "aggregate"
	}
	return "find" // find, and runCommand's {find: ...}
}

// Rules are the comparisons an experiment can ask for:
//   - attempts: each operation's number of attempts, exactly;
//   - outcome: each operation's outcome class and code, exactly;
//   - servers: which server each attempt went to (by position), exactly;
//   - gaps: the gaps before retry 1, 2, ... as distributions (two-sample KS test);
//   - handshakes: the number of application handshakes, exactly.
var Rules = []string{"attempts", "outcome", "servers", "gaps", "handshakes"}

// Overloaded is the label set of the ingress rate limiter's rejection (error 462).
var Overloaded = []string{"RetryableError", "SystemOverloadedError"}

// Load reads and checks the experiment in file.
func Load(file string) (*Experiment, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var e Experiment
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if want := strings.TrimSuffix(filepath.Base(file), ".json"); e.Name != want {
		return nil, fmt.Errorf("%s: name: %q: must be the file's base name %q", file, e.Name, want)
	}
	if err := e.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &e, nil
}

// LoadDir reads every *.json experiment in dir, sorted by name.
func LoadDir(dir string) ([]*Experiment, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []*Experiment
	var errs []error
	for _, f := range files {
		e, err := Load(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, e)
	}
	if len(files) == 0 {
		errs = append(errs, fmt.Errorf("%s: no experiments (*.json)", dir))
	}
	return out, errors.Join(errs...)
}

// Check reports every problem of e as "field: value: rule".
func (e *Experiment) Check() error {
	var errs []error
	bad := func(field string, value any, rule string) {
		errs = append(errs, fmt.Errorf("%s: %v: %s", field, value, rule))
	}
	if e.Doc == "" {
		bad("doc", `""`, "say what the experiment shows")
	}
	if len(e.Rules) == 0 {
		bad("rules", "[]", "name at least one of "+strings.Join(Rules, ", "))
	}
	for i, r := range e.Rules {
		if !slices.Contains(Rules, r) {
			bad(fmt.Sprintf("rules[%d]", i), r, "must be one of "+strings.Join(Rules, ", "))
		}
	}
	switch e.Topology.Kind {
	case "standalone":
		if e.Topology.Nodes != 1 {
			bad("topology.nodes", e.Topology.Nodes, "a standalone has 1 node")
		}
	case "replicaset", "sharded":
		if e.Topology.Nodes < 1 || e.Topology.Nodes > 7 {
			bad("topology.nodes", e.Topology.Nodes, "must be 1 to 7")
		}
	default:
		bad("topology.kind", e.Topology.Kind, "must be standalone, replicaset or sharded")
	}
	if !slices.Contains(Operations, e.Operation) {
		bad("operation", e.Operation, "must be one of "+strings.Join(Operations, ", "))
	}
	switch e.ReadPreference {
	case "", "primary", "primaryPreferred", "secondary", "secondaryPreferred", "nearest":
	default:
		bad("readPreference", e.ReadPreference, "must be a read preference mode")
	}
	if e.Count < 1 || e.Count > 5000 {
		bad("count", e.Count, "must be 1 to 5000")
	}
	if e.Concurrency < 1 || e.Concurrency > e.Count || e.Concurrency > 100 {
		bad("concurrency", e.Concurrency, "must be 1 to min(count, 100)")
	}
	for i, en := range e.Script {
		f := fmt.Sprintf("script[%d]", i)
		if en.Node != "" && !e.hasNode(en.Node) {
			bad(f+".node", en.Node, fmt.Sprintf("no such node (n0 to n%d)", e.Topology.Nodes-1))
		}
		if en.Command == "" {
			bad(f+".command", `""`, "name the command the entry answers")
		}
		if len(en.Answers) == 0 {
			bad(f+".answers", "[]", "give at least one answer")
		}
		for j, a := range en.Answers {
			a.check(fmt.Sprintf("%s.answers[%d]", f, j), bad)
		}
	}
	for j, a := range e.Handshake {
		a.check(fmt.Sprintf("handshake[%d]", j), bad)
	}
	return errors.Join(errs...)
}

func (e *Experiment) hasNode(name string) bool {
	for i := range e.Topology.Nodes {
		if name == NodeName(i) {
			return true
		}
	}
	return false
}

func (a Answer) check(f string, bad func(string, any, string)) {
	n := 0
	for _, set := range []bool{a.OK, a.Error != nil, a.Close} {
		if set {
			n++
		}
	}
	if n != 1 {
		bad(f, "{...}", "exactly one of ok, error, close")
	}
	if a.Times < 0 {
		bad(f+".times", a.Times, "must be ≥ 1 (0 = 1)")
	}
	if a.DelayMS < 0 || a.DelayMS > 60000 {
		bad(f+".delayMS", a.DelayMS, "must be 0 to 60000")
	}
	if a.P < 0 || a.P >= 1 {
		bad(f+".p", a.P, "must be in [0, 1): 0 = always")
	}
	if a.Error != nil && a.Error.Code <= 0 {
		bad(f+".error.code", a.Error.Code, "must be > 0")
	}
}

// NodeName returns node i's name: "n0", "n1", ...
func NodeName(i int) string { return fmt.Sprintf("n%d", i) }

// Lookup returns the answer to the k-th (0-based) command of one operation that entry en matches.
func (en *Entry) Lookup(k int) Answer {
	for _, a := range en.Answers {
		t := max(a.Times, 1)
		if k < t {
			return a
		}
		k -= t
	}
	return en.Answers[len(en.Answers)-1]
}

// Match returns the index of the first script entry answering command at node, or -1.
func (e *Experiment) Match(node, command string) int {
	for i, en := range e.Script {
		if en.Command == command && (en.Node == "" || en.Node == node) {
			return i
		}
	}
	return -1
}

// Describe names an answer as records spell it: "ok", "error 462", "close".
func (a Answer) Describe() string {
	switch {
	case a.Close:
		return "close"
	case a.Error != nil:
		return fmt.Sprintf("error %d", a.Error.Code)
	}
	return "ok"
}

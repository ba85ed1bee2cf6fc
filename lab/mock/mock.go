// Package mock is the conformance lab's mock MongoDB server: one listener per node of an
// experiment's topology on 127.0.0.1, speaking enough of the wire protocol (a legacy OP_QUERY
// hello, OP_MSG commands) for a real driver to connect, monitor and run the experiment's
// operations, answered as the experiment's script says.
//
// A connection's first command is its handshake. A node's first connection is the driver's
// monitoring connection (serverMonitoringMode=poll opens exactly one) and is always answered with
// success; every later connection is an application connection, whose handshake takes the next
// answer of the experiment's handshake list. A later connection whose next command is hello (a
// monitor that reconnected) or endSessions (the client closing) was no application connection
// after all: its handshake leaves the log, unless it took an answer from the list. A command whose comment is "op-N" is an attempt of
// operation N: the first script entry matching its node and command answers it, with the answer
// indexed by how many earlier commands of operation N that entry matched. Every other command
// gets a plausible success.
//
// The set logs every application handshake and every attempt with the time it arrived, so a
// record can say when and where each attempt went and how it was answered.
package mock

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/overloadsim/overloadsim/lab/experiment"
)

// Entry is one logged command: an application connection's handshake or an operation's attempt.
type Entry struct {
	// Node is the node's name, "n0", "n1", ...
	Node string
	// Conn is the connection's number at its node in accept order; 0 is the monitoring
	// connection, so logged entries have Conn ≥ 1.
	Conn int
	// T is when the command arrived, after the set started (monotonic clock).
	T time.Duration
	// Op is the operation's index (from the comment "op-N"), -1 for a handshake.
	Op int
	// Command is the command's name: "find", "insert", "hello", "isMaster", ...
	Command string
	// Answer is how it was answered (experiment.Answer.Describe): "ok", "error 462", "close".
	Answer string
}

// Set is the running mock servers of one experiment.
type Set struct {
	e     *experiment.Experiment
	start time.Time
	nodes []*node
	done  chan struct{}
	wg    sync.WaitGroup
	reqID atomic.Int32

	mu         sync.Mutex
	closed     bool
	log        []Entry
	rng        *rand.Rand
	matched    map[[2]int]int  // (op, script entry) → commands of the op the entry matched
	handshakes int             // application handshakes so far
	hsEntry    map[connKey]int // a connection's handshake entry in log, while it may be a monitor's
	dropped    map[int]bool    // log entries found to be a monitor's handshake
	connID     int32
	conns      map[net.Conn]struct{}
	problems   []error
}

type node struct {
	index    int
	name     string
	addr     string
	ln       net.Listener
	accepted int // connections accepted so far; guarded by Set.mu
}

// maxProblems bounds the protocol problems kept: the first few say what went wrong.
const maxProblems = 10

// Start checks e and starts its nodes, each listening on 127.0.0.1 at a port of its own.
func Start(e *experiment.Experiment) (*Set, error) {
	if e == nil {
		return nil, errors.New("mock: no experiment")
	}
	if err := e.Check(); err != nil {
		return nil, fmt.Errorf("mock: experiment %q: %w", e.Name, err)
	}
	s := &Set{
		e:       e,
		done:    make(chan struct{}),
		rng:     rand.New(rand.NewPCG(e.Seed, 0)),
		matched: map[[2]int]int{},
		hsEntry: map[connKey]int{},
		dropped: map[int]bool{},
		conns:   map[net.Conn]struct{}{},
	}
	// Every listener exists before any serves: a replica set's hello lists all of them.
	for i := range e.Topology.Nodes {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			for _, n := range s.nodes {
				_ = n.ln.Close()
			}
			return nil, fmt.Errorf("mock: node %s: %w", experiment.NodeName(i), err)
		}
		s.nodes = append(s.nodes, &node{index: i, name: experiment.NodeName(i), addr: ln.Addr().String(), ln: ln})
	}
	s.start = time.Now()
	for _, n := range s.nodes {
		s.wg.Add(1)
		go s.accept(n)
	}
	return s, nil
}

// Addrs returns the nodes' addresses ("127.0.0.1:port") in node order.
func (s *Set) Addrs() []string {
	var a []string
	for _, n := range s.nodes {
		a = append(a, n.addr)
	}
	return a
}

// URI returns the connection string for the set: every node's address, then the options
// serverMonitoringMode=poll (one monitoring connection per node), heartbeatFrequencyMS=500 and
// serverSelectionTimeoutMS=5000 (a server marked Unknown is checked again soon and a lost one
// fails fast), directConnection=true for a standalone or replicaSet=rs0 for a replica set, then
// the experiment's URI options, then extra; a later option replaces an earlier one of the same
// name.
func (s *Set) URI(extra map[string]string) string {
	type opt struct{ k, v string }
	opts := []opt{{"serverMonitoringMode", "poll"}, {"heartbeatFrequencyMS", "500"}, {"serverSelectionTimeoutMS", "5000"}}
	switch s.e.Topology.Kind {
	case "standalone":
		opts = append(opts, opt{"directConnection", "true"})
	case "replicaset":
		opts = append(opts, opt{"replicaSet", setName})
	}
	add := func(m map[string]string) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			i := slices.IndexFunc(opts, func(o opt) bool { return strings.EqualFold(o.k, k) })
			if i >= 0 {
				opts = slices.Delete(opts, i, i+1)
			}
			opts = append(opts, opt{k, m[k]})
		}
	}
	add(s.e.URI)
	add(extra)
	var b strings.Builder
	b.WriteString("mongodb://")
	b.WriteString(strings.Join(s.Addrs(), ","))
	b.WriteString("/")
	for i, o := range opts {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(o.k) + "=" + url.QueryEscape(o.v))
	}
	return b.String()
}

// Log returns a copy of the log so far, in arrival order.
func (s *Set) Log() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Entry, 0, len(s.log))
	for i, e := range s.log {
		if !s.dropped[i] {
			out = append(out, e)
		}
	}
	return out
}

// connKey names a connection: its node's index and its number there.
type connKey struct{ node, conn int }

// Err returns the protocol problems met so far (messages the mock could not read), nil if none:
// a run with problems did not test what it meant to.
func (s *Set) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.problems...)
}

// Close stops the listeners, closes every connection and waits for the set's goroutines.
// It is safe to call more than once.
func (s *Set) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.done)
	for _, n := range s.nodes {
		_ = n.ln.Close()
	}
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *Set) problem(n *node, conn int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.problems) < maxProblems {
		s.problems = append(s.problems, fmt.Errorf("node %s connection %d: %w", n.name, conn, err))
	}
}

func (s *Set) accept(n *node) {
	defer s.wg.Done()
	for {
		c, err := n.ln.Accept()
		if err != nil {
			select {
			case <-s.done: // closed
			default: // the node stops answering: say so, or the run would only look slow
				s.problem(n, n.accepted, fmt.Errorf("accept: %w", err))
			}
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		no := n.accepted
		n.accepted++
		s.connID++
		id := s.connID
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(n, c, no, id)
	}
}

// protocolError is a message the mock could not read, as opposed to the peer going away.
type protocolError struct{ error }

// serve answers one connection's commands in order until it closes or an answer closes it.
func (s *Set) serve(n *node, c net.Conn, no int, id int32) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = c.Close()
	}()
	br := bufio.NewReader(c)
	for first := true; ; first = false {
		req, err := readRequest(br)
		if err != nil {
			var pe protocolError
			if errors.As(err, &pe) {
				s.problem(n, no, err)
			}
			return
		}
		at := time.Since(s.start)
		a := s.decide(n, no, req, first, at)
		if a.DelayMS > 0 {
			t := time.NewTimer(time.Duration(a.DelayMS * float64(time.Millisecond)))
			select {
			case <-t.C:
			case <-s.done:
				t.Stop()
				return
			}
		}
		if a.Close {
			return
		}
		if req.noReply {
			continue
		}
		var doc []byte
		if a.Error != nil {
			doc, err = errorReply(a.Error)
		} else {
			doc, err = s.success(n, req, id)
		}
		if err != nil {
			s.problem(n, no, fmt.Errorf("reply to %s: %w", req.name(), err))
			return
		}
		if _, err := c.Write(encodeReply(req, s.reqID.Add(1), doc)); err != nil {
			return
		}
	}
}

// isHello says whether a command is a hello in any of its spellings.
func isHello(name string) bool {
	return name == "hello" || strings.EqualFold(name, "isMaster")
}

// decide picks the answer to req and logs it when it is an application handshake or an attempt.
func (s *Set) decide(n *node, conn int, req *request, first bool, at time.Duration) experiment.Answer {
	name := req.name()
	ok := experiment.Answer{OK: true}
	s.mu.Lock()
	defer s.mu.Unlock()
	if first && isHello(name) {
		if conn == 0 { // the monitoring connection
			return ok
		}
		a := ok
		scripted := s.handshakes < len(s.e.Handshake)
		if scripted {
			a = s.draw(s.e.Handshake[s.handshakes])
		}
		s.handshakes++
		if !scripted {
			s.hsEntry[connKey{n.index, conn}] = len(s.log)
		}
		s.log = append(s.log, Entry{Node: n.name, Conn: conn, T: at, Op: -1, Command: name, Answer: a.Describe()})
		return a
	}
	k := connKey{n.index, conn}
	op, tagged := opIndex(req)
	if !tagged {
		// Two connections' handshakes are no application handshakes, found out by the command
		// after them: a monitor's whose connection was closed (a driver may close it when an
		// application connection fails during a check) and that reconnects sends hello again;
		// a connection the client opens only to end its sessions as it closes sends endSessions.
		// Only a handshake answered with success past the script is taken back.
		if i, found := s.hsEntry[k]; found && (isHello(name) || name == "endSessions") {
			s.dropped[i] = true
			s.handshakes--
			delete(s.hsEntry, k)
		}
		return ok
	}
	delete(s.hsEntry, k) // an application connection for sure
	a := ok
	if i := s.e.Match(n.name, name); i >= 0 {
		k := [2]int{op, i}
		a = s.draw(s.e.Script[i].Lookup(s.matched[k]))
		s.matched[k]++
	}
	s.log = append(s.log, Entry{Node: n.name, Conn: conn, T: at, Op: op, Command: name, Answer: a.Describe()})
	return a
}

// draw applies a's probability: with P in (0, 1) the answer holds with probability P, else the
// command succeeds at once. The caller holds s.mu, so draws follow arrival order.
func (s *Set) draw(a experiment.Answer) experiment.Answer {
	if a.P > 0 && a.P < 1 && s.rng.Float64() >= a.P {
		return experiment.Answer{OK: true}
	}
	return a
}

// opIndex reads the operation's index from the command's comment "op-N".
func opIndex(req *request) (int, bool) {
	c, ok := req.body.Lookup("comment").StringValueOK()
	if !ok {
		return 0, false
	}
	digits, ok := strings.CutPrefix(c, "op-")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(digits)
	if err != nil || i < 0 {
		return 0, false
	}
	return i, true
}

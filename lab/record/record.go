// Package record is the conformance lab's result: what one runner (a real driver against the
// mock server, or the simulator replaying the same experiment) did, operation by operation. Every
// runner writes the same JSON, so the comparison never needs to know where a record came from.
package record

// Record is one experiment run by one runner.
type Record struct {
	// Experiment is the experiment's name (experiment.Experiment.Name).
	Experiment string `json:"experiment"`
	// Runner is "go", "node" or "sim".
	Runner string `json:"runner"`
	// Release names what ran: "go-2.10.0", "node-7.9.0", or for the simulator the preset or
	// policy it replayed, e.g. "sim:go-2.10.0" or "sim:mongodb-2026-07".
	Release string `json:"release"`
	// Ops are the application's operations in index order.
	Ops []Op `json:"ops"`
	// Handshakes are the application connections' handshakes the servers received, in arrival
	// order (monitoring connections excluded).
	Handshakes []Attempt `json:"handshakes,omitempty"`
}

// Op is one operation: every attempt a server received for it, and what the application saw.
type Op struct {
	// Index is the operation's number, 0-based; the runner tags each attempt with it (the
	// command's comment "op-<index>").
	Index int `json:"index"`
	// Attempts are the commands servers received for this operation, in arrival order.
	Attempts []Attempt `json:"attempts"`
	// Outcome is what the driver returned to the application.
	Outcome Outcome `json:"outcome"`
}

// Attempt is one command (or handshake) a server received.
type Attempt struct {
	// Server is the node's name in the experiment: "n0", "n1", ...
	Server string `json:"server"`
	// AtMS is when the server received it, in milliseconds after the operation's first attempt
	// (for handshakes, after the first handshake).
	AtMS float64 `json:"atMS"`
	// Answer is how the server answered, in the experiment's words: "ok", "error 462",
	// "close", "hang".
	Answer string `json:"answer"`
}

// Outcome is the result an operation surfaced to the application.
type Outcome struct {
	// OK says the operation succeeded.
	OK bool `json:"ok"`
	// Class is "ok", or the class of the error: "overload" (SystemOverloadedError), "network",
	// "timeout" (the client's own deadline or timeoutMS), "server" (any other error reply),
	// "selection" (no server could be selected), "other".
	Class string `json:"class"`
	// Code is the server's error code, 0 when there is none.
	Code int `json:"code,omitempty"`
	// Labels are the error's labels, sorted.
	Labels []string `json:"labels,omitempty"`
}

// Gaps returns the times between op's consecutive attempts in milliseconds: gap k is between
// attempt k and attempt k+1, so the backoff before retry k+1 plus the round trip of attempt k.
func (op Op) Gaps() []float64 {
	var g []float64
	for i := 1; i < len(op.Attempts); i++ {
		g = append(g, op.Attempts[i].AtMS-op.Attempts[i-1].AtMS)
	}
	return g
}

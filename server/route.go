package server

import (
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Router is a mongos's routing layer: the server-internal client that sends the commands a
// mongos admits on to the shards, retrying them by the server's own strategies. A mongos node
// runs a command's ingress path as any node does (connection limiter, ingress request limiter,
// failCommand) and then, instead of queueing it for a worker, calls Route.
type Router interface {
	// Route starts routing req at now. The router reads req (command, read preference,
	// maxTimeMS) but must not keep it past the answer: it answers exactly once, through
	// back.Done, unless the node went down first (Done then does nothing).
	Route(now sim.Time, req *wire.Request, back RouteToken)
}

// RouteToken is how a router answers the command it was handed.
type RouteToken struct {
	s   *Server
	j   *job
	gen uint64
}

// Done answers the routed command with r's code and labels (a network error if r.NetErr). A
// token whose command is gone (the mongos went down meanwhile, which answered it already) is
// ignored, so a router need not track the node's state.
func (t RouteToken) Done(now sim.Time, r wire.Reply) {
	s, j := t.s, t.j
	if s == nil || j.gen != t.gen || j.state != jsRouted {
		return
	}
	if s.paused {
		// A paused mongos sends nothing: the answer waits, in order with everything else that
		// reached the node, until it resumes. A routed job's own outcome fields are unused.
		j.code, j.labels, j.closeConn = r.Code, r.Labels, r.NetErr
		s.held = append(s.held, heldEvent{evRouteDone, j})
		return
	}
	s.answerRouted(now, j, r)
}

// answerRouted replies to the routed command j with the router's answer r.
func (s *Server) answerRouted(now sim.Time, j *job, r wire.Reply) {
	s.stats.RoutedAnswered++
	switch {
	case r.NetErr:
		s.replyNetErr(now, j)
	case r.Code == wire.OK:
		s.stats.Completed++
		s.reply(now, j, wire.OK, 0)
	default:
		s.stats.RoutedErrors++
		s.reply(now, j, r.Code, r.Labels)
	}
}

// route hands an admitted command to the node's router.
func (s *Server) route(now sim.Time, j *job) {
	j.state = jsRouted
	s.stats.Routed++
	s.cfg.Router.Route(now, j.req, RouteToken{s: s, j: j, gen: j.gen})
}

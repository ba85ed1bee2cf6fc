// Package wire is the protocol between clients and nodes: the commands a client sends, the
// replies a node returns (error codes and labels as MongoDB defines them), the connections they
// travel on and the network links that delay them.
//
// Neither side calls the other. A client delivers a Request by scheduling an event for the node
// (a sim.Handler) with kind EvRequest at now + the link's one-way delay; the node answers by
// scheduling an event for Request.ReplyTo with kind Request.ReplyKind at now + a delay drawn from
// the same link. Between those two events the node owns the Request; after the reply event the
// client owns it again, so request records can be pooled and a run allocates nothing per attempt.
//
// Codes and labels follow MongoDB's src/mongo/base/error_codes.yml and the drivers' specs; the
// names are MongoDB's, so a planner can match them to server logs.
package wire

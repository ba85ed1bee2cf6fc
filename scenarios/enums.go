package scenarios

import (
	"reflect"
	"strings"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/wire"
)

// enum is how a scenario spells the values of a model type with a fixed set of names: the
// decoder reads the name into the typed value with the model's own parse function, and the
// canonical text writes the name back, so that the rest of the package works with the type.
type enum struct {
	parse func(name string) (any, bool)
	name  func(v any) string
	rule  string // the rule an unknown name breaks
}

// enumOf makes the enum of type T from its parse and name functions.
func enumOf[T any](parse func(string) (T, bool), name func(T) string, rule string) enum {
	return enum{
		parse: func(s string) (any, bool) { v, ok := parse(s); return v, ok },
		name:  func(v any) string { return name(v.(T)) },
		rule:  rule,
	}
}

// topologyKinds are the scenario names of the topology kinds, which are the clients' view of
// them (selection.TopologyKind spells them single, replicaSet and sharded).
var topologyKinds = []struct {
	name string
	kind selection.TopologyKind
}{{"standalone", selection.Single}, {"replicaset", selection.ReplicaSet}, {"sharded", selection.Sharded}}

func parseTopologyKind(name string) (selection.TopologyKind, bool) {
	for _, k := range topologyKinds {
		if k.name == name {
			return k.kind, true
		}
	}
	return 0, false
}

func topologyKindName(kind selection.TopologyKind) string {
	for _, k := range topologyKinds {
		if k.kind == kind {
			return k.name
		}
	}
	return kind.String()
}

// parseRole is wire.ParseRole, with "" for a role not given (wire.Unknown), which
// EnsureDefaults fills.
func parseRole(name string) (wire.Role, bool) {
	if name == "" {
		return wire.Unknown, true
	}
	return wire.ParseRole(name)
}

func roleName(r wire.Role) string {
	if r == wire.Unknown {
		return ""
	}
	return r.String()
}

// faultKindNames lists the fault kinds' names: the servers', then load.
func faultKindNames() []string {
	var out []string
	for _, k := range server.FaultKinds() {
		out = append(out, k.String())
	}
	return append(out, faultKindName(loadKind))
}

// enums holds the enum of every such type a scenario field has.
var enums = map[reflect.Type]enum{
	reflect.TypeFor[selection.TopologyKind](): enumOf(parseTopologyKind, topologyKindName,
		"must be standalone, replicaset or sharded"),
	reflect.TypeFor[wire.Role](): enumOf(parseRole, roleName,
		"must be standalone, primary, secondary or mongos"),
	reflect.TypeFor[server.Flavor](): enumOf(server.ParseFlavor, server.Flavor.String,
		"must be mongodb or couchbase"),
	reflect.TypeFor[server.RejectOrder](): enumOf(server.ParseRejectOrder, server.RejectOrder.String,
		"must be ahead or fifo"),
	reflect.TypeFor[server.Execution](): enumOf(server.ParseExecution, server.Execution.String,
		"must be tickets or shared"),
	reflect.TypeFor[selection.Mode](): enumOf(selection.ParseMode, selection.Mode.String,
		"must be primary, primaryPreferred, secondary, secondaryPreferred or nearest"),
	reflect.TypeFor[client.BackoffKind](): enumOf(client.ParseBackoffKind, client.BackoffKind.String,
		"must be none, exponential or fullJitter"),
	reflect.TypeFor[client.Assign](): enumOf(client.ParseAssign, client.Assign.String,
		"must be roundRobin or random"),
	reflect.TypeFor[server.FaultKind](): enumOf(parseFaultKind, faultKindName,
		"must be one of "+strings.Join(faultKindNames(), ", ")),
}

package selection

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/field"
)

// TopologyKind is the type of deployment a client is connected to, as server discovery
// determines it. The zero value is Single.
type TopologyKind uint8

// Topology kinds. ReplicaSet stands for both ReplicaSetWithPrimary and ReplicaSetNoPrimary:
// their selection rules are the same, the presence of a primary among the servers tells them
// apart.
const (
	Single     TopologyKind = iota // a direct connection to one server
	ReplicaSet                     // a replica set: one primary (or none) and secondaries
	Sharded                        // a sharded cluster, reached through mongos routers
	numKinds
)

var kindNames = [numKinds]string{Single: "single", ReplicaSet: "replicaSet", Sharded: "sharded"}

// String returns the kind's name: single, replicaSet or sharded.
func (k TopologyKind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "topologyKind(" + strconv.Itoa(int(k)) + ")"
}

// ParseTopologyKind returns the kind with the given name (single, replicaSet, sharded).
func ParseTopologyKind(name string) (TopologyKind, bool) {
	for i, n := range kindNames {
		if n == name {
			return TopologyKind(i), true
		}
	}
	return 0, false
}

// Mode is a read preference mode. The zero value is Primary, the default mode.
type Mode uint8

// Read preference modes, as the server selection specification defines them.
const (
	Primary            Mode = iota // only the primary
	PrimaryPreferred               // the primary if there is one, else eligible secondaries
	Secondary                      // eligible secondaries only
	SecondaryPreferred             // eligible secondaries if any, else the primary
	Nearest                        // the eligible primary and secondaries
	numModes
)

var modeNames = [numModes]string{
	Primary: "primary", PrimaryPreferred: "primaryPreferred", Secondary: "secondary",
	SecondaryPreferred: "secondaryPreferred", Nearest: "nearest",
}

// String returns the mode's name as a connection string spells it, e.g. secondaryPreferred.
func (m Mode) String() string {
	if m < numModes {
		return modeNames[m]
	}
	return "mode(" + strconv.Itoa(int(m)) + ")"
}

// ParseMode returns the mode with the given name (primary, primaryPreferred, secondary,
// secondaryPreferred, nearest).
func ParseMode(name string) (Mode, bool) {
	for i, n := range modeNames {
		if n == name {
			return Mode(i), true
		}
	}
	return 0, false
}

// ReadPreference says which servers may serve a read. The zero value is mode primary with no
// tag sets, the default read preference.
type ReadPreference struct {
	// Mode says whether primaries, secondaries or both are candidates.
	Mode Mode
	// TagSets is the ordered tag set list. A server matches a tag set if it has every tag of
	// the set, so the empty set matches every server. The first set that matches at least one
	// candidate selects the eligible servers; nil (or an empty list) makes every candidate
	// eligible, like the list holding only the empty set. Only replica-set secondaries, and
	// the primary under Nearest, are filtered by tags: a Single topology ignores them and a
	// Sharded one forwards them to mongos.
	TagSets []map[string]string
}

// invalid is the error for one invalid read preference setting: a *field.Error after
// "selection: ".
func invalid(name, value, rule string) error {
	return fmt.Errorf("selection: %w", &field.Error{Field: name, Value: value, Rule: rule})
}

// hasTags reports whether some tag set of rp is non-empty: the list [{}] is the default and
// restricts nothing.
func (rp ReadPreference) hasTags() bool {
	for _, set := range rp.TagSets {
		if len(set) > 0 {
			return true
		}
	}
	return false
}

// Validate reports every setting of rp that makes no sense on a topology of the given kind,
// each as a *field.Error (fields readPreference.mode, readPreference.tagSets and topology),
// joined with errors.Join. It returns nil if rp is valid. The rules:
// the mode and kind must be known values, and a non-empty tag set is an error with mode
// primary (the specification requires drivers to raise it) and on a Single topology (whose
// selection would silently ignore it).
func (rp ReadPreference) Validate(kind TopologyKind) error {
	var errs []error
	if kind >= numKinds {
		errs = append(errs, invalid("topology", kind.String(), "must be single, replicaSet or sharded"))
	}
	if rp.Mode >= numModes {
		errs = append(errs, invalid("readPreference.mode", rp.Mode.String(),
			"must be primary, primaryPreferred, secondary, secondaryPreferred or nearest"))
	}
	if rp.hasTags() {
		tags := describeTagSets(rp.TagSets)
		if rp.Mode == Primary {
			errs = append(errs, invalid("readPreference.tagSets", tags, "must be empty when readPreference.mode is primary"))
		}
		if kind == Single {
			errs = append(errs, invalid("readPreference.tagSets", tags,
				"must be empty on a single topology, which ignores the read preference"))
		}
	}
	return errors.Join(errs...)
}

// String returns rp canonically, e.g. "nearest tagSets=[{dc=ny,rack=2},{}]": the mode, then
// the tag sets if any, each set's tags sorted by key.
func (rp ReadPreference) String() string {
	if len(rp.TagSets) == 0 {
		return rp.Mode.String()
	}
	return rp.Mode.String() + " tagSets=" + describeTagSets(rp.TagSets)
}

// describeTagSets renders a tag set list with sorted keys, so that the text is stable.
func describeTagSets(sets []map[string]string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, set := range sets {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for j, k := range keys {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k)
			b.WriteByte('=')
			b.WriteString(set[k])
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.String()
}

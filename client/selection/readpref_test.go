package selection

import (
	"errors"
	"testing"

	"github.com/overloadsim/overloadsim/field"
)

// TestValidate checks every rule of ReadPreference.Validate with its exact message. Reference:
// server-selection.md, tag_sets: "Clients MUST raise an error if a non-empty tag set is given
// in tag_sets and the mode field is 'primary'"; topology type Single ignores read preference,
// so tags there are refused rather than silently dropped.
func TestValidate(t *testing.T) {
	ny := map[string]string{"dc": "ny"}
	cases := []struct {
		gloss string
		rp    ReadPreference
		kind  TopologyKind
		want  string // "" for valid
	}{
		// Valid.
		{gloss: "the zero value (primary, no tags) is valid everywhere", kind: Single},
		{gloss: "the zero value on a replica set", kind: ReplicaSet},
		{gloss: "a non-primary mode on a single topology is ignored, not refused",
			rp: ReadPreference{Mode: Secondary}, kind: Single},
		{gloss: "mode primary with the default tag set list [{}] restricts nothing",
			rp: ReadPreference{TagSets: []map[string]string{{}}}, kind: ReplicaSet},
		{gloss: "tags with nearest on a replica set",
			rp: ReadPreference{Mode: Nearest, TagSets: []map[string]string{ny, {}}}, kind: ReplicaSet},
		{gloss: "tags on a sharded cluster are forwarded to mongos",
			rp: ReadPreference{Mode: SecondaryPreferred, TagSets: []map[string]string{ny}}, kind: Sharded},
		{gloss: "the empty tag set on a single topology restricts nothing",
			rp: ReadPreference{Mode: Secondary, TagSets: []map[string]string{{}}}, kind: Single},

		// Invalid.
		{gloss: "tags with mode primary",
			rp: ReadPreference{TagSets: []map[string]string{ny}}, kind: ReplicaSet,
			want: "selection: readPreference.tagSets: [{dc=ny}]: must be empty when readPreference.mode is primary"},
		{gloss: "tags on a single topology, keys sorted in the message",
			rp:   ReadPreference{Mode: Secondary, TagSets: []map[string]string{{"rack": "2", "dc": "ny"}, {}}},
			kind: Single,
			want: "selection: readPreference.tagSets: [{dc=ny,rack=2},{}]: must be empty on a single topology, which ignores the read preference"},
		{gloss: "tags with mode primary on a single topology break both rules",
			rp: ReadPreference{TagSets: []map[string]string{ny}}, kind: Single,
			want: "selection: readPreference.tagSets: [{dc=ny}]: must be empty when readPreference.mode is primary\n" +
				"selection: readPreference.tagSets: [{dc=ny}]: must be empty on a single topology, which ignores the read preference"},
		{gloss: "an undefined mode",
			rp: ReadPreference{Mode: Mode(9)}, kind: ReplicaSet,
			want: "selection: readPreference.mode: mode(9): must be primary, primaryPreferred, secondary, secondaryPreferred or nearest"},
		{gloss: "an undefined topology kind",
			kind: TopologyKind(7),
			want: "selection: topology: topologyKind(7): must be single, replicaSet or sharded"},
	}
	for _, tc := range cases {
		err := tc.rp.Validate(tc.kind)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: ReadPreference{%v}.Validate(%v) = %q, want %q", tc.gloss, tc.rp, tc.kind, got, tc.want)
		}
		for _, part := range field.Parts(err) {
			var fe *field.Error
			if !errors.As(part, &fe) {
				t.Errorf("%s: Validate error %v holds no *field.Error", tc.gloss, part)
			}
		}
	}
}

func TestModeNames(t *testing.T) {
	for m := range numModes {
		got, ok := ParseMode(m.String())
		if !ok || got != m {
			t.Errorf("ParseMode(%q) = %v, %v, want %v, true", m.String(), got, ok, m)
		}
	}
	if got := SecondaryPreferred.String(); got != "secondaryPreferred" {
		t.Errorf("SecondaryPreferred.String() = %q, want secondaryPreferred", got)
	}
	for _, name := range []string{"", "Primary", "mode(9)", "secondary_preferred"} {
		if m, ok := ParseMode(name); ok {
			t.Errorf("ParseMode(%q) = %v, true, want false", name, m)
		}
	}
}

func TestTopologyKindNames(t *testing.T) {
	for k := range numKinds {
		got, ok := ParseTopologyKind(k.String())
		if !ok || got != k {
			t.Errorf("ParseTopologyKind(%q) = %v, %v, want %v, true", k.String(), got, ok, k)
		}
	}
	if got := TopologyKind(7).String(); got != "topologyKind(7)" {
		t.Errorf("TopologyKind(7).String() = %q, want topologyKind(7)", got)
	}
	if k, ok := ParseTopologyKind("replicaset"); ok {
		t.Errorf("ParseTopologyKind(%q) = %v, true, want false", "replicaset", k)
	}
}

func TestReadPreferenceString(t *testing.T) {
	for _, tc := range []struct {
		rp   ReadPreference
		want string
	}{
		{ReadPreference{}, "primary"},
		{ReadPreference{Mode: Nearest, TagSets: []map[string]string{{"rack": "2", "dc": "ny"}, {}}}, "nearest tagSets=[{dc=ny,rack=2},{}]"},
	} {
		if got := tc.rp.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

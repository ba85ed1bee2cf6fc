package metamorphic

import (
	"bytes"
	"flag"
	"fmt"
	"slices"
	"testing"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/scenarios"
)

// seeds is how many generated scenarios each metamorphic test checks.
var seeds = flag.Int("metamorphic.seeds", 24, "generated scenarios each metamorphic test checks")

// parse parses and validates the scenario Generate gives for seed.
func parse(t testing.TB, seed uint64) *scenarios.Scenario {
	t.Helper()
	src := Generate(seed)
	sc, err := scenarios.Parse(fmt.Sprintf("gen-%d.yaml", seed), src)
	if err != nil {
		t.Fatalf("seed %d: the generated scenario is not valid:\n%v\n%s", seed, err, src)
	}
	return sc
}

// TestGenerateValid: every generated scenario passes the validator, and the same seed gives the
// same text.
func TestGenerateValid(t *testing.T) {
	for seed := range uint64(500) {
		parse(t, seed)
		if !bytes.Equal(Generate(seed), Generate(seed)) {
			t.Fatalf("seed %d: two texts", seed)
		}
	}
}

// TestGenerateCoversPolicies: the generator's policy lists are the registry's, so that a policy
// added to the registry joins the generated scenarios.
func TestGenerateCoversPolicies(t *testing.T) {
	got := slices.Sorted(slices.Values(append(slices.Clone(MongoDBPolicies), CouchbasePolicies...)))
	want := slices.Sorted(slices.Values(retry.Names()))
	if !slices.Equal(got, want) {
		t.Errorf("generated policies %v, the registry's %v", got, want)
	}
}

package scenarios

import (
	"slices"
	"strings"
	"testing"
)

// TestLibraryWellFormed checks what every library scenario must have: a name matching its
// file, a description, a one-sentence claim, a canonical text that reads back to itself.
func TestLibraryWellFormed(t *testing.T) {
	if len(Names()) < 10 {
		t.Errorf("Names() = %d scenarios, want at least 10", len(Names()))
	}
	if !slices.Contains(Names(), Default()) {
		t.Errorf("Default() = %q, not in Names() %v", Default(), Names())
	}
	for _, name := range Names() {
		sc, err := Lookup(name)
		if err != nil {
			t.Errorf("Lookup(%q): %v", name, err)
			continue
		}
		if sc.Name != name {
			t.Errorf("Lookup(%q).Name = %q, want the file's name", name, sc.Name)
		}
		if sc.Description == "" || sc.Claim == "" {
			t.Errorf("%s: description %q, claim %q: want both", name, sc.Description, sc.Claim)
		}
		if n := strings.Count(strings.TrimSuffix(sc.Claim, "."), ". "); n > 0 || !strings.HasSuffix(sc.Claim, ".") {
			t.Errorf("%s: claim %q: want one sentence ending with a full stop", name, sc.Claim)
		}
		text := sc.String()
		again, err := parseFS(library, "library/"+name+".yaml", name+".yaml", []byte(text))
		if err != nil {
			t.Errorf("%s: canonical text does not read back: %v\n%s", name, err, text)
			continue
		}
		if again.String() != text {
			t.Errorf("%s: String() does not round-trip:\n%s\nthen\n%s", name, text, again.String())
		}
	}
}

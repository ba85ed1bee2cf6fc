// Package golden is the repository's one golden-file mechanism for tests: the single -update
// flag that rewrites golden files, a check that compares output with its golden file and names
// the first line that differs, and transcripts (Transcript): golden files of commands, each
// followed by the output it must produce, that the same flag rewrites. Only tests import it.
//
//	go test ./results/... -update   # rewrite, then review the diff like code
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

// Updating reports whether the test run was asked to rewrite golden files.
func Updating() bool { return *update }

// Check compares got with the golden file at path. Under -update it writes got there instead
// (creating folders as needed). A mismatch fails the test, naming the first differing line.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeFile(path, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	line, g, w := firstDifference(got, want)
	t.Errorf("%s differs from the golden file at line %d:\n got: %s\nwant: %s\n(review the change, then rerun with -update)", path, line, g, w)
}

// firstDifference returns the 1-based number of the first line where a and b differ, and
// that line of each ("" past the end).
func firstDifference(a, b []byte) (line int, la, lb string) {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(al), len(bl)) {
		la, lb = "", ""
		if i < len(al) {
			la = al[i]
		}
		if i < len(bl) {
			lb = bl[i]
		}
		if la != lb {
			return i + 1, la, lb
		}
	}
	return 0, "", ""
}

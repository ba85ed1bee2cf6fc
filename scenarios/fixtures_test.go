package scenarios

import (
	"os"
	"path/filepath"
)

// The scenarios below are shared with bench's tests, which read the same files: one text, so
// the two packages' tests cannot drift apart.
var (
	// pauseScenario has two overlapping pauses of its one node, db: 1.5 s at 2 s and 1 s at 3 s.
	pauseScenario = readFixture("pause.yaml")
	// hostileBase is a valid scenario that the hostile cases add to or spoil. Its first line is
	// "duration: 10s", which some cases replace or cut.
	hostileBase = readFixture("hostile-base.yaml")
)

// readFixture returns the text of testdata/name; it panics if the file cannot be read, since
// every test that uses it would fail anyway.
func readFixture(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

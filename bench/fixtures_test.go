package bench

import (
	"os"
	"path/filepath"
)

// The scenarios below are scenarios' test fixtures, read from its testdata: one text shared by
// the two packages' tests, so they cannot drift apart.
var (
	// pauseScenario has two overlapping pauses of its one node, db: 1.5 s at 2 s and 1 s at 3 s.
	pauseScenario = readFixture("pause.yaml")
	// hostileBase is a valid scenario that the cost cases add to or change, as scenarios' hostile
	// cases do: 100/s for 10 s from one client on one node.
	hostileBase = readFixture("hostile-base.yaml")
)

// readFixture returns the text of scenarios/testdata/name; it panics if the file cannot be
// read, since every test that uses it would fail anyway.
func readFixture(name string) string {
	b, err := os.ReadFile(filepath.Join("..", "scenarios", "testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

package experiment

import (
	"strings"
	"testing"
)

// TestLibraryLoads: every shipped experiment is valid and named for its file.
func TestLibraryLoads(t *testing.T) {
	es, err := LoadDir("../experiments")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) < 10 {
		t.Errorf("%d experiments, want the lab's set", len(es))
	}
}

// TestCheckNamesEveryProblem: a bad experiment's every problem is named by field and value.
func TestCheckNamesEveryProblem(t *testing.T) {
	e := &Experiment{Name: "x", Rules: []string{"speed"}, Topology: Topology{Kind: "ring"},
		Operation: "drop", Count: 0, Concurrency: 2,
		Script: []Entry{{Node: "n9", Command: "find", Answers: []Answer{{OK: true, Close: true, P: 1}}}}}
	err := e.Check()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"doc:", "rules[0]: speed", "topology.kind: ring", "operation: drop",
		"count: 0", "concurrency: 2", "script[0].node: n9", "script[0].answers[0]: {...}: exactly one", "script[0].answers[0].p: 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestLookup: answers cover Times commands each and the last repeats.
func TestLookup(t *testing.T) {
	en := Entry{Command: "find", Answers: []Answer{{Error: &Error{Code: 462}, Times: 2}, {Close: true}, {OK: true}}}
	var got []string
	for k := range 6 {
		got = append(got, en.Lookup(k).Describe())
	}
	if s := strings.Join(got, ","); s != "error 462,error 462,close,ok,ok,ok" {
		t.Errorf("got %s", s)
	}
}

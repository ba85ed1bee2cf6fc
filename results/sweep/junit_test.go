package sweep

import (
	"bytes"
	"encoding/xml"
	"math"
	"testing"
)

// TestWriteJUnit: a check's JUnit report has one test case per comparison, named by point and
// metric, a failure carrying the regression's line on each that regressed, the counts on the
// suite and the report, and the notes as the suite's output; it reads back as XML.
func TestWriteJUnit(t *testing.T) {
	cmps := []Comparison{
		{Regression{Metric: "total.goodput", Baseline: 1000, Got: 1001, Limit: 950}, true},
		{Regression{Metric: "total.latency_ok_p99", Baseline: 0.0112, Got: 0.0216, Limit: 0.01232}, false},
		{Regression{Point: "rate=300/s", Baseline: math.NaN(), Got: math.NaN(), Limit: math.NaN()}, false},
	}
	var b bytes.Buffer
	if err := WriteJUnit(&b, "out/run against base.json", []Note{{Text: "the configuration differs", Items: []string{"seed: baseline 1, result 2"}}}, cmps); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	if got.Tests != 3 || got.Fails != 2 || len(got.Suites) != 1 || got.Suites[0].Tests != 3 || got.Suites[0].Fails != 2 ||
		got.Suites[0].Name != "out/run against base.json" || got.Suites[0].Stdout != "note: the configuration differs\n  seed: baseline 1, result 2" {
		t.Fatalf("report %+v", got)
	}
	cs := got.Suites[0].Cases
	if cs[0].Class != "run" || cs[0].Name != "total.goodput" || cs[0].Failure != nil {
		t.Errorf("passed case %+v", cs[0])
	}
	if f := cs[1].Failure; f == nil || f.Message != "run: total.latency_ok_p99 = 21.6 ms, above the limit 12.32 ms (baseline 11.2 ms, +93 %)" {
		t.Errorf("failed case %+v", cs[1])
	}
	if cs[2].Class != "rate=300/s" || cs[2].Name != "point" || cs[2].Failure == nil {
		t.Errorf("missing point %+v", cs[2])
	}
}

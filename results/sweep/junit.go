package sweep

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML, the test report CI systems read (GitHub Actions, GitLab, Jenkins): one test suite
// for a check, one test case for each comparison it made (Compare), a failed case carrying its
// regression's line as the message, so that a CI job shows each regressed metric by name.
type (
	junitSuites struct {
		XMLName xml.Name     `xml:"testsuites"`
		Tests   int          `xml:"tests,attr"`
		Fails   int          `xml:"failures,attr"`
		Suites  []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name   string      `xml:"name,attr"`
		Tests  int         `xml:"tests,attr"`
		Fails  int         `xml:"failures,attr"`
		Cases  []junitCase `xml:"testcase"`
		Stdout string      `xml:"system-out,omitempty"`
	}
	junitCase struct {
		Class   string        `xml:"classname,attr"`
		Name    string        `xml:"name,attr"`
		Failure *junitFailure `xml:"failure"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// WriteJUnit writes the comparisons of a check as a JUnit XML report: the suite named suite
// ("RESULT against BASELINE"), a test case per comparison — class the point ("run" for a
// single run), name the gated value ("total.goodput", "total.failure_share"; "point" for a
// missing point) — failed where it regressed, and the notes (the configuration's differences,
// what is not gated, a partial sweep) as the suite's output, as check prints them.
func WriteJUnit(w io.Writer, suite string, notes []Note, cmps []Comparison) error {
	var out []string
	for _, n := range notes {
		out = append(out, n.String())
	}
	s := junitSuite{Name: suite, Tests: len(cmps), Stdout: strings.Join(out, "\n")}
	for _, c := range cmps {
		tc := junitCase{Class: c.Point, Name: c.Metric}
		if tc.Class == "" {
			tc.Class = "run"
		}
		if tc.Name == "" {
			tc.Name = "point"
		}
		if !c.Pass {
			line := c.Regression.String()
			tc.Failure = &junitFailure{Message: line, Type: "regression", Text: line}
			s.Fails++
		}
		s.Cases = append(s.Cases, tc)
	}
	b, err := xml.MarshalIndent(junitSuites{Tests: s.Tests, Fails: s.Fails, Suites: []junitSuite{s}}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", xml.Header, b)
	return err
}

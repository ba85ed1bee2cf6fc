package scenarios

import (
	"errors"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/internal/fileinfo"
	"github.com/overloadsim/overloadsim/internal/yamlstrict"
)

// Limits on a scenario's input, checked before it is decoded, so that a hostile or broken file
// is a Problem in milliseconds rather than a process that grows until the machine gives out:
// these, and those of strict YAML (internal/yamlstrict: nesting, keys, tokens, characters).
// (yamlstrict.MaxNodes bounds the decoded tree; maxCount and maxSweepPoints, in validate.go,
// what the scenario asks to simulate; bench.Estimate what a valid one costs.)
const (
	// MaxFileBytes is the largest scenario file Load and Parse read: 1 MiB, some 500 times the
	// largest scenario of the library (2 KB). The YAML lexer allocates some 25–50 bytes per
	// byte of input before it finds anything wrong, so the limit also bounds what a hostile
	// file can cost to about 50 MB.
	MaxFileBytes = 1 << 20
	// MaxDataFileBytes is the largest file a scenario names (empirical(file.csv),
	// trace(file.csv)) that Parse and Load read: 64 MiB, some four million samples — a trace of
	// 46 days at one sample a second. Reading one costs the file and 8–16 bytes per sample.
	MaxDataFileBytes = 64 << 20
)

// fileProblem turns a refusal of yamlstrict.ReadFileBounded into the scenario file's problem, and reports
// whether err was one.
func fileProblem(file string, err error) (Problems, bool) {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return nil, false
	}
	switch {
	case errors.Is(err, yamlstrict.ErrNotRegular):
		return Problems{{File: file, Path: "(file)", Value: fe.Value, Rule: "a scenario is a regular file, not a directory, device, pipe or socket"}}, true
	case errors.Is(err, yamlstrict.ErrTooLarge):
		return Problems{{File: file, Path: "(file)", Value: fe.Value, Rule: scenarioFile.SizeRule()}}, true
	}
	return nil, false
}

// dataFileError is the error a file a scenario names gives when yamlstrict.ReadFileBounded
// refuses it: its value and a rule about such files, without the path, which the message
// names already.
func dataFileError(err error) error {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return err
	}
	switch {
	case errors.Is(err, yamlstrict.ErrNotRegular):
		return &field.Error{Value: fe.Value, Rule: "a file a scenario names must be a regular file", Err: err}
	case errors.Is(err, yamlstrict.ErrTooLarge):
		return &field.Error{Value: fe.Value, Rule: "a file a scenario names holds at most " + fileinfo.Size(MaxDataFileBytes), Err: err}
	}
	return err
}

// scenarioFile is a scenario file as yamlstrict bounds it and names it in its rules.
var scenarioFile = yamlstrict.Input{What: "a scenario file", MaxBytes: MaxFileBytes}

// parseTree parses a scenario file into a node tree, within the limits above and
// yamlstrict's; a problem is the scenario file's. An empty document is an empty mapping.
func parseTree(file string, data []byte) (*yamlstrict.Node, error) {
	n, errs := scenarioFile.Parse(data)
	if errs != nil {
		return nil, yamlProblems(file, errs)
	}
	return n, nil
}

// canonicalTree parses the canonical text of a scenario (Scenario.String), which this package
// wrote from a scenario that was read within the limits (yamlstrict.Input.ParseCanonical).
func canonicalTree(file, text string) (*yamlstrict.Node, error) {
	n, errs := scenarioFile.ParseCanonical([]byte(text))
	if errs != nil {
		return nil, yamlProblems(file, errs)
	}
	return n, nil
}

// yamlProblems are errs, problems of strict YAML, as problems of the scenario file.
func yamlProblems(file string, errs []*yamlstrict.Error) Problems {
	ps := make(Problems, len(errs))
	for i, e := range errs {
		ps[i] = Problem{File: file, Line: e.Line, Col: e.Col, Override: e.Override, Path: e.Path, Value: e.Value, Rule: e.Rule}
	}
	return ps
}

package scenarios

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/goccy/go-yaml/token"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/internal/fileinfo"
	"github.com/overloadsim/overloadsim/internal/yamlstrict"
)

// Limits on a scenario's input, checked before it is decoded, so that a hostile or broken file
// is a Problem in milliseconds rather than a process that grows until the machine gives out:
// these, and those of strict YAML (internal/yamlstrict: nesting, keys, tokens, characters).
// (maxNodes, in tree.go, bounds the decoded tree; maxCount and maxSweepPoints, in validate.go,
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
		return Problems{{File: file, Path: "(file)", Value: fe.Value, Rule: sizeRule}}, true
	}
	return nil, false
}

// sizeRule is the rule a scenario file larger than MaxFileBytes breaks.
var sizeRule = fmt.Sprintf("a scenario file holds at most %s (%d bytes)", fileinfo.Size(MaxFileBytes), MaxFileBytes)

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

// checkSize refuses data longer than MaxFileBytes.
func checkSize(file string, data []byte) Problems {
	if len(data) <= MaxFileBytes {
		return nil
	}
	return Problems{{File: file, Path: "(file)", Value: strconv.Itoa(len(data)) + " bytes", Rule: sizeRule}}
}

// boundInput checks data against the limits above before the parser runs: its size, then
// yamlstrict.Prescan's.
func boundInput(file string, data []byte) Problems {
	if ps := checkSize(file, data); ps != nil {
		return ps
	}
	return yamlProblem(file, yamlstrict.Prescan(data, "a scenario file"))
}

// checkNesting is yamlstrict.CheckTokens, its problem the scenario file's.
func checkNesting(file string, tokens token.Tokens) Problems {
	return yamlProblem(file, yamlstrict.CheckTokens(tokens))
}

// yamlProblem is e, a problem of strict YAML, as a problem of the scenario file; nil for nil.
func yamlProblem(file string, e *yamlstrict.Error) Problems {
	if e == nil {
		return nil
	}
	return Problems{{File: file, Line: e.Line, Col: e.Col, Path: e.Path, Value: e.Value, Rule: e.Rule}}
}

package scenarios

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
)

// decoder reads a node tree into the scenario types with yamlstrict's strict decoder, adding
// the scenario's vocabulary as its hooks: its value syntaxes (customDecoder), its enumerations,
// its defaults, a driver's retry policy block (policyblock.go), and the tag options ms (a bare
// number is milliseconds) and rate (a number of operations per second, optionally written
// N/s). Problems, positioned at their values, are the embedded Decoder's Errors.
type decoder struct {
	*yamlstrict.Decoder
	schema
	file  string
	files fileReader
	// extraBlocks holds each policy option block given beside the one a driver holds, for
	// validation to report (policyblock.go).
	extraBlocks []givenBlock
}

// newDecoder returns a decoder of the scenario file named file, reading the files it names
// with files and recording positions into at (a new map when nil).
func newDecoder(file string, files fileReader, at map[string]yamlstrict.Pos) *decoder {
	d := &decoder{file: file, files: files}
	d.Decoder = yamlstrict.NewDecoder(d, at)
	return d
}

// problems returns the problems found so far, as the scenario file's.
func (d *decoder) problems() Problems {
	ps := make(Problems, len(d.Errors))
	for i, e := range d.Errors {
		ps[i] = Problem{File: d.file, Line: e.Line, Col: e.Col, Override: e.Override, Path: e.Path, Value: e.Value, Rule: e.Rule}
	}
	return ps
}

// fileReader reads a file named in the scenario (empirical(file), trace(file)), relative to
// the scenario.
type fileReader func(name string) ([]byte, error)

// customDecoder is implemented by types whose YAML form is not a plain field-by-field mapping.
type customDecoder interface {
	decodeYAML(d *decoder, n *yamlstrict.Node, path string)
}

// customEncoder is implemented by the same types, for the canonical text.
type customEncoder interface {
	encodeYAML() *yamlstrict.Node
}

// defaulter is implemented by the scenario types: setDefaults sets every field to its
// documented default before the fields a file gives are read over it.
type defaulter interface {
	setDefaults()
}

// Defaults sets v to its defaults: a scenario type's, or those of retry's option blocks and
// the blocks nested in them.
func (d *decoder) Defaults(v reflect.Value) {
	switch df := v.Addr().Interface().(type) {
	case defaulter:
		df.setDefaults()
	case interface{ SetDefaults() }:
		df.SetDefaults()
	}
}

// Read reads the values whose syntax is the scenario's: a retry policy block, the types with a
// syntax of their own and the enumerations.
func (d *decoder) Read(n *yamlstrict.Node, v reflect.Value, path string, f yamlstrict.Field) bool {
	if f.Has("block") {
		d.decodeBlock(n, v, path, f.Name)
		return true
	}
	if v.CanAddr() {
		if cd, ok := v.Addr().Interface().(customDecoder); ok {
			cd.decodeYAML(d, n, path)
			return true
		}
	}
	if e, ok := enums[v.Type()]; ok {
		d.decodeEnum(n, v, path, e)
		return true
	}
	return false
}

// ReadScalar parses the durations tagged ms and the numbers tagged rate.
func (d *decoder) ReadScalar(v reflect.Value, text string, f yamlstrict.Field) (string, bool) {
	switch {
	case v.Type() == durationType && f.Has("ms"):
		dur, rule := parseDuration(text, true)
		if rule == "" {
			v.SetInt(int64(dur))
		}
		return rule, true
	case v.Kind() == reflect.Float64 && f.Has("rate"):
		x, rule := parseNumber(text, true)
		if rule == "" {
			v.SetFloat(x)
		}
		return rule, true
	}
	return "", false
}

// decodeEnum reads the name n holds into v, a value of the enum's type. null reads as "".
func (d *decoder) decodeEnum(n *yamlstrict.Node, v reflect.Value, path string, e enum) {
	text := n.Text
	switch n.Kind {
	case yamlstrict.NullKind:
		text = ""
	case yamlstrict.MapKind, yamlstrict.SeqKind:
		d.Problem(n, path, yamlstrict.Describe(n), e.rule)
		return
	}
	x, ok := e.parse(text)
	if !ok {
		d.Problem(n, path, strconv.Quote(text), e.rule)
		return
	}
	v.Set(reflect.ValueOf(x))
}

// schema is the scenario's part of the canonical text: the fields of a driver's retry policy
// block, the types with a syntax of their own, the enumerations' names and rates written N/s.
type schema struct{}

// Expand lists a retry policy block's fields (tag option block), one per key.
func (schema) Expand(_ reflect.StructField, i int, opts []string) ([]yamlstrict.Field, bool) {
	if !slices.Contains(opts, "block") {
		return nil, false
	}
	return blockFields(i), true
}

// Write writes the values whose syntax is the scenario's.
func (schema) Write(v reflect.Value, f yamlstrict.Field) (*yamlstrict.Node, bool) {
	if f.Has("block") {
		return encodeBlock(v, f.Name), true
	}
	if v.CanAddr() {
		if ce, ok := v.Addr().Interface().(customEncoder); ok {
			return ce.encodeYAML(), true
		}
	}
	if ce, ok := v.Interface().(customEncoder); ok {
		return ce.encodeYAML(), true
	}
	if e, ok := enums[v.Type()]; ok {
		return yamlstrict.NewScalar(e.name(v.Interface())), true
	}
	if v.Kind() == reflect.Float64 && f.Has("rate") {
		return yamlstrict.NewScalar(yamlstrict.FormatFloat(v.Float()) + "/s"), true
	}
	return nil, false
}

// encode is the canonical node tree of v, field f.
func encode(v reflect.Value, f yamlstrict.Field) *yamlstrict.Node {
	return yamlstrict.Encode(v, f, schema{})
}

var durationType = reflect.TypeFor[time.Duration]()

// parseDuration reads a duration with its unit (250ms, 1m30s); with ms, a bare number is
// milliseconds, as in a connection string.
func parseDuration(text string, ms bool) (time.Duration, string) {
	dur, rule := yamlstrict.ParseDuration(text)
	if rule == "" || !ms {
		return dur, rule
	}
	if x, err := strconv.ParseFloat(text, 64); err == nil && !math.IsNaN(x) && math.Abs(x) < float64(math.MaxInt64)/1e6 {
		return time.Duration(math.Round(x * 1e6)), ""
	}
	return 0, "must be a duration such as 250ms, or a number of milliseconds"
}

// parseNumber reads a decimal number; with rate, N/s is N operations per second.
func parseNumber(text string, rate bool) (float64, string) {
	if !rate {
		return yamlstrict.ParseNumber(text)
	}
	x, rule := yamlstrict.ParseNumber(strings.TrimSuffix(text, "/s"))
	if rule != "" {
		return 0, "must be a rate such as 2000/s"
	}
	return x, ""
}

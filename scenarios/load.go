package scenarios

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/internal/yamlstrict"
)

// source is where a scenario came from: the file name used in messages, its node tree (with the
// overrides applied so far), the reader for the files it names, and where each field's value
// sits in the file.
type source struct {
	file string
	tree *yamlstrict.Node
	read fileReader
	at   map[string]yamlstrict.Pos
}

// Load reads and validates the scenario file at path. Files it names (empirical(file.csv),
// trace(file.csv)) are read relative to the scenario file's directory.
//
// path must be a regular file of at most MaxFileBytes: a directory, a device such as /dev/zero
// or a named pipe is a Problem (path "(file)") without being read, and so is a larger file,
// of which Load reads no more than MaxFileBytes+1 bytes (see ReadFileBounded). A file that
// cannot be read at all (missing, no permission) is the os package's error after "scenarios: ".
func Load(path string) (*Scenario, error) {
	data, err := yamlstrict.ReadFileBounded(path, MaxFileBytes)
	if err != nil {
		if ps, ok := fileProblem(path, err); ok {
			return nil, ps
		}
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	return Parse(path, data)
}

// Parse reads and validates a scenario from data. name is the file name used in messages and,
// without its extension, the default scenario name; files the scenario names are read relative
// to name's directory, with ReadFileBounded (regular files of at most MaxDataFileBytes). The
// error, if any, is Problems: every problem found. data longer than MaxFileBytes is a problem
// without being parsed.
func Parse(name string, data []byte) (*Scenario, error) {
	dir := filepath.Dir(name)
	return parse(name, data, func(file string) ([]byte, error) {
		if !filepath.IsLocal(file) && !filepath.IsAbs(file) {
			return nil, fmt.Errorf("file name %q: must be a path below the scenario's directory or an absolute path", file)
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		data, err := yamlstrict.ReadFileBounded(file, MaxDataFileBytes)
		if err != nil {
			return nil, dataFileError(err)
		}
		return data, nil
	})
}

// parseFS reads a scenario whose files are in fsys, relative to name's directory there.
func parseFS(fsys fs.FS, name, display string, data []byte) (*Scenario, error) {
	dir := path.Dir(name)
	return parse(display, data, func(file string) ([]byte, error) {
		p := path.Join(dir, file)
		if !fs.ValidPath(p) || !fs.ValidPath(file) || strings.Contains(file, "..") {
			return nil, fmt.Errorf("file name %q: must be a file of the library", file)
		}
		return fs.ReadFile(fsys, p)
	})
}

func parse(file string, data []byte, read fileReader) (*Scenario, error) {
	tree, err := parseTree(file, data)
	if err != nil {
		return nil, err
	}
	return decodeScenario(file, tree, read)
}

// decodeScenario decodes, completes and validates a scenario from its tree.
func decodeScenario(file string, tree *yamlstrict.Node, read fileReader) (*Scenario, error) {
	d := newDecoder(file, read, nil)
	sc := &Scenario{}
	if tree.Kind != yamlstrict.MapKind && tree.Kind != yamlstrict.NullKind {
		d.Problem(tree, "(top level)", yamlstrict.Describe(tree), "a scenario is a mapping of fields (name, duration, topology, clients, …)")
		return nil, d.problems().sorted()
	}
	d.Decode(tree, sc)
	if params := tree.Get("sweep").Get("parameters"); params != nil {
		for _, k := range params.Keys {
			sc.Sweep.order = append(sc.Sweep.order, k.Text)
		}
	}
	if sc.Name == "" && d.At["name"] == (yamlstrict.Pos{}) {
		base := filepath.Base(file)
		sc.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	sc.src = &source{file: file, tree: tree, read: read, at: d.At}
	sc.EnsureDefaults()
	sc.validate(d, true)
	if len(d.Errors) > 0 {
		return nil, d.problems().sorted()
	}
	return sc, nil
}

// Validate checks every rule and reports every broken one at once, as Problems positioned in
// the scenario's file. Parse and Load have already called it; call it again after changing
// fields in code. Call EnsureDefaults first.
func (s *Scenario) Validate() error { return s.check(true) }

// ValidateBuild is Validate without trying the sweep's values on the scenario, which costs a
// decode per value: the rules of the scenario as it stands, which building it needs (bench.Build
// checks them), as Parse and Load have tried the values already.
func (s *Scenario) ValidateBuild() error { return s.check(false) }

// check validates s, trying the sweep's values on it when trySweep is set.
func (s *Scenario) check(trySweep bool) error {
	d := newDecoder(s.Name, noFiles, nil)
	if s.src != nil {
		d = newDecoder(s.src.file, s.src.read, s.src.at)
	}
	s.validate(d, trySweep)
	if len(d.Errors) > 0 {
		return d.problems().sorted()
	}
	return nil
}

func noFiles(name string) ([]byte, error) {
	return nil, fmt.Errorf("file %q: this scenario reads no files", name)
}

// Set applies one override, path=value, such as Set("clients[0].driver.adaptiveRetries",
// "true"): it replaces the value at path in the scenario's YAML (creating the fields on the
// way; an index equal to a list's length appends), then decodes and validates the whole
// scenario again. value is YAML: a scalar (3, 250ms, 2000/s, true) or a flow collection
// ({kind: step, before: 1000/s, after: 3000/s, at: 10s}, [a, b]). On error s is unchanged and
// the error is Problems (a bad override) or a path error.
//
// Set works on the scenario's text: fields changed in code since Parse are not carried over.
// To apply several overrides that only make sense together (a shorter duration and a shorter
// warm-up), use SetAll.
func (s *Scenario) Set(path, value string) error {
	next, err := s.setting(path, value)
	if err != nil {
		return err
	}
	*s = *next
	return nil
}

// SetAll applies several overrides, each "path=value" as the CLI's --set takes it (path and
// value trimmed), in order, and then decodes and validates the scenario once: the overrides
// are checked together, not one by one, so that their order does not matter to what is valid.
// SetAll("duration=10s", "warmup=0s") works on a file whose warm-up is 15 s, as does
// SetAll("warmup=0s", "duration=10s"); a later override of the same path wins. A problem with
// a value from an override names that override (Problem.Override, "--set path=value"); a value
// that does not parse, a path that does not fit, or an override without "=" is an error naming
// the override, before anything is validated. On error s is unchanged; without overrides
// SetAll does nothing.
func (s *Scenario) SetAll(overrides ...string) error {
	if len(overrides) == 0 {
		return nil
	}
	src := s.source()
	tree := src.tree.Clone()
	for _, kv := range overrides {
		path, value, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("scenarios: --set %s: want path=value", field.Quote(kv))
		}
		if err := setOverride(tree, strings.TrimSpace(path), strings.TrimSpace(value)); err != nil {
			return err
		}
	}
	next, err := decodeScenario(src.file, tree, src.read)
	if err != nil {
		return err
	}
	*s = *next
	return nil
}

// setting returns the scenario Set(path, value) makes of s, leaving s unchanged.
func (s *Scenario) setting(path, value string) (*Scenario, error) {
	src := s.source()
	tree := src.tree.Clone()
	if err := setOverride(tree, path, value); err != nil {
		return nil, err
	}
	return decodeScenario(src.file, tree, src.read)
}

// setOverride puts the override path=value into tree, its nodes positioned at the override. A
// value that does not parse or a path that does not fit is an *overrideError.
func setOverride(tree *yamlstrict.Node, path, value string) error {
	label := "--set " + path + "=" + value
	v, err := parseValue(label, value)
	if err != nil {
		return &overrideError{label: label, err: err}
	}
	if err := tree.Set(path, v); err != nil {
		return &overrideError{label: label, err: err}
	}
	return nil
}

// parseValue reads the value of an override (yamlstrict.Input.ParseValue), and positions
// every node of it at the override, set.
func parseValue(set, value string) (*yamlstrict.Node, error) {
	v, rule := scenarioFile.ParseValue(value)
	if rule != "" {
		return nil, fmt.Errorf("value %s: %s", field.Quote(value), rule)
	}
	v.MarkOverride(set)
	return v, nil
}

// overrideError is an override that could not be applied, before any validation: its value
// does not parse, or its path does not fit the scenario.
type overrideError struct {
	label string // --set path=value
	err   error
}

func (e *overrideError) Error() string {
	return "scenarios: " + field.ShowN(e.label, field.MaxFieldRunes) + ": " + e.err.Error()
}

func (e *overrideError) Unwrap() error { return e.err }

// With returns a copy of s with the field at path set to value, as Set does, and leaves s
// unchanged: a tipping-point search tries many values of one field on one scenario.
func (s *Scenario) With(path, value string) (*Scenario, error) {
	c := s.clone()
	if err := c.Set(path, value); err != nil {
		return nil, err
	}
	return c, nil
}

// source returns where s came from; for a scenario built in code, its canonical text.
func (s *Scenario) source() *source {
	if s.src != nil {
		return s.src
	}
	tree, err := canonicalTree(s.Name, s.String())
	if err != nil {
		panic("scenarios: canonical text does not parse: " + err.Error())
	}
	return &source{file: s.Name, tree: tree, read: noFiles}
}

// clone returns a copy of s decoded again from its text (its file with the overrides applied
// so far), so that a sweep point can be set without touching s.
func (s *Scenario) clone() *Scenario {
	if s.src == nil {
		tree, err := canonicalTree(s.Name, s.String())
		if err != nil {
			panic("scenarios: clone: canonical text does not read back: " + err.Error())
		}
		c, err := decodeScenario(s.Name, tree, noFiles)
		if err != nil {
			panic("scenarios: clone: canonical text does not read back: " + err.Error())
		}
		return c
	}
	c, err := decodeScenario(s.src.file, s.src.tree.Clone(), s.src.read)
	if err != nil {
		// s was valid when decoded from this tree; it decodes the same way again.
		panic("scenarios: clone: " + err.Error())
	}
	return c
}

// File returns the file name the scenario was read from ("" for one built in code).
func (s *Scenario) File() string {
	if s.src == nil {
		return ""
	}
	return s.src.file
}

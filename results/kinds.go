package results

import (
	"io"
	"strings"
)

// The files of a study's result whose record lives in a package of its own (results/tune):
// they are written and read as every result's are, through these.

// OutputFile is one file of a result and how to write it.
type OutputFile struct {
	Name  string
	Write func(io.Writer) error
}

// WriteResult replaces whatever result dir holds with a new one of kind, for the scenario in
// hdr: each file atomically in order, then the manifest listing them (marked partial when
// partial is not ""), last (see WriteRunDir).
func WriteResult(dir, kind string, hdr Header, partial string, files []OutputFile) error {
	m := NewManifest(kind, hdr)
	m.Partial = partial
	out := make([]outputFile, len(files))
	for i, f := range files {
		out[i] = outputFile{f.Name, f.Write}
	}
	return writeResult(dir, m, out)
}

// WriteJSON writes v as every result's JSON file is written.
func WriteJSON(w io.Writer, v any) error { return writeJSON(w, v) }

// ReadJSON reads the JSON file at path into v, bounded as every result's file is.
func ReadJSON(path string, v any) error { return readJSON(path, v) }

// FormatFloat writes x as every float in every output file is written: six significant digits,
// and the empty string for NaN and ±Inf ("no value").
func FormatFloat(x float64) string { return formatFloat(x) }

// JoinAnd joins words as a sentence lists them: "a", "a and b", "a, b and c".
func JoinAnd(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

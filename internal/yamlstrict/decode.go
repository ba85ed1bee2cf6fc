package yamlstrict

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Field is one field of a struct as YAML sees it: its key, where it is in the struct
// (reflect.Value.FieldByIndex) and the options of its yaml tag after the name. The elements of
// a list or a mapping are read and written with the options of the field that holds them.
//
// The package knows the options inline (the fields of an embedded struct, in its place) and
// omitzero (left out of the canonical text when zero); any other option is the caller's, for
// its Hooks to read.
type Field struct {
	Name    string
	Index   []int
	Options []string
}

// Has reports whether the field's tag has option opt.
func (f Field) Has(opt string) bool { return slices.Contains(f.Options, opt) }

// elem is the field of an element of a list or mapping f holds.
func (f Field) elem() Field { return Field{Options: f.Options} }

// Schema is what a caller's types and tag options mean beyond what the package knows, to read
// a struct's fields and write the canonical text.
type Schema interface {
	// Expand returns the fields that struct field sf, at index i of its struct and with tag
	// options opts, stands for, when the caller's options say so (a slot written under one of
	// several keys); ok is false for a field the package lists itself.
	Expand(sf reflect.StructField, i int, opts []string) (fields []Field, ok bool)
	// Write returns the node of v, field f, when v's type or f's options are the caller's to
	// write (nil to leave the field out); ok is false for a value the package writes itself.
	Write(v reflect.Value, f Field) (n *Node, ok bool)
}

// Hooks are a Schema and what a caller adds to the decoder.
type Hooks interface {
	Schema
	// Defaults sets struct v (addressable) to its defaults, before the fields a mapping gives
	// are read over them.
	Defaults(v reflect.Value)
	// Read reads n into v, field f at path, when v's type or f's options are the caller's to
	// read (a syntax of its own, an enumeration), reporting problems to the Decoder; it reports
	// whether it did.
	Read(n *Node, v reflect.Value, path string, f Field) bool
	// ReadScalar parses text into the scalar v, field f, when v's type or f's options are the
	// caller's to parse, returning the rule text broke or ""; ok is false for a scalar the
	// package parses itself.
	ReadScalar(v reflect.Value, text string, f Field) (rule string, ok bool)
}

// Fields lists the YAML fields of struct type t in declaration order: the exported fields
// with a yaml tag, an inline struct's flattened in place, those s expands expanded.
func Fields(t reflect.Type, s Schema) []Field {
	var out []Field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("yaml")
		if !ok || !f.IsExported() {
			continue
		}
		name, optText, _ := strings.Cut(tag, ",")
		opts := strings.Split(optText, ",")
		if fs, ok := s.Expand(f, i, opts); ok {
			out = append(out, fs...)
			continue
		}
		if slices.Contains(opts, "inline") {
			for _, sub := range Fields(f.Type, s) {
				sub.Index = append([]int{i}, sub.Index...)
				out = append(out, sub)
			}
			continue
		}
		out = append(out, Field{Name: name, Index: []int{i}, Options: opts})
	}
	return out
}

func fieldNames(fields []Field) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names
}

var durationType = reflect.TypeFor[time.Duration]()

// Decoder reads a node tree into Go values, strictly: an unknown field, or a value of the
// wrong shape, is an *Error at its line (and, for a key, its column). It records where every
// value came from, so that a caller's later checks can report a rule broken by a value on
// that value's line (ProblemAt).
type Decoder struct {
	// Errors are the problems found, in the order found.
	Errors []*Error
	// At maps each field path read to the position of its value.
	At map[string]Pos

	hooks Hooks
	bad   map[string]bool // paths whose value failed
	// badBelow holds every path with a failed path under it (clients[0] and clients for
	// clients[0].count), so that a rule about a whole can tell at once that a part of it
	// failed.
	badBelow map[string]bool
}

// NewDecoder returns a decoder with the caller's hooks, recording positions into at (a new
// map when nil).
func NewDecoder(h Hooks, at map[string]Pos) *Decoder {
	if at == nil {
		at = map[string]Pos{}
	}
	return &Decoder{At: at, hooks: h, bad: map[string]bool{}, badBelow: map[string]bool{}}
}

// Problem records a problem with the value at path, positioned at n (nil: no position).
func (d *Decoder) Problem(n *Node, path, value, rule string) {
	e := &Error{Path: path, Value: value, Rule: rule}
	if n != nil {
		e.Line, e.Override = n.Pos.Line, n.Pos.Override
	}
	d.Errors = append(d.Errors, e)
	d.bad[path] = true
	for q := ParentPath(path); q != "" && !d.badBelow[q]; q = ParentPath(q) {
		d.badBelow[q] = true
	}
}

// ProblemAt records a problem whose position is the closest ancestor of path that the input
// has (the field itself when present), unless the value at path already failed to decode (one
// problem per field). Such problems carry a line but no column.
func (d *Decoder) ProblemAt(path, value, rule string) {
	if d.bad[path] {
		return
	}
	e := &Error{Path: path, Value: value, Rule: rule}
	for q := path; q != ""; q = ParentPath(q) {
		if at, ok := d.At[q]; ok {
			e.Line, e.Override = at.Line, at.Override
			break
		}
	}
	d.Errors = append(d.Errors, e)
}

// Failed reports whether the value at path failed to decode.
func (d *Decoder) Failed(path string) bool { return d.bad[path] }

// FailedUnder reports whether a value under path (not path itself) failed to decode.
func (d *Decoder) FailedUnder(path string) bool { return d.badBelow[path] }

// Describe returns n as a problem shows a value: a scalar's text ("" quoted), a collection in
// flow style.
func Describe(n *Node) string {
	if n == nil {
		return "null"
	}
	if n.Kind == ScalarKind {
		if n.Text == "" {
			return `""`
		}
		return n.Text
	}
	return Flow(n)
}

// Decode reads the tree n into the value v points to, from the top level (path "").
func (d *Decoder) Decode(n *Node, v any) {
	d.DecodeValue(n, reflect.ValueOf(v).Elem(), "", Field{})
}

// DecodeStruct reads mapping n into struct v (addressable), at path, starting from v's
// defaults (Hooks.Defaults). null leaves the defaults.
func (d *Decoder) DecodeStruct(n *Node, v reflect.Value, path string) {
	d.hooks.Defaults(v)
	if n.Kind == NullKind {
		return
	}
	if n.Kind != MapKind {
		d.Problem(n, path, Describe(n), "must be a mapping of fields")
		return
	}
	fields := Fields(v.Type(), d.hooks)
	for i, k := range n.Keys {
		val := n.Vals[i]
		at := slices.IndexFunc(fields, func(f Field) bool { return f.Name == k.Text })
		if at < 0 {
			d.unknownField(k, path, fields)
			continue
		}
		f := fields[at]
		fp := JoinPath(path, f.Name)
		d.At[fp] = val.Pos
		d.DecodeValue(val, v.FieldByIndex(f.Index), fp, f)
	}
}

// unknownField reports key k, which struct fields do not have.
func (d *Decoder) unknownField(k *Node, path string, fields []Field) {
	rule := "unknown field"
	if near := nearest(k.Text, fieldNames(fields)); near != "" {
		rule += "; did you mean " + near + "?"
	} else {
		rule += "; known: " + strings.Join(fieldNames(fields), ", ")
	}
	if path == "" {
		path = "(top level)"
	}
	d.Problem(k, path, k.Text, rule)
	d.Errors[len(d.Errors)-1].Col = k.Pos.Col
}

// nearest returns the name closest to s when it is a plausible misspelling of it.
func nearest(s string, names []string) string {
	limit := max(1, min(3, len(s)/3))
	best, bestD := "", math.MaxInt
	ls := strings.ToLower(s)
	for _, n := range names {
		ln := strings.ToLower(n)
		if abs(len(ls)-len(ln)) > limit {
			// The distance is at least the difference in length: n is no candidate, and
			// editDistance, quadratic, would take long on a long s.
			continue
		}
		dist := editDistance(ls, ln)
		if dist < bestD {
			best, bestD = n, dist
		}
	}
	if bestD <= limit {
		return best
	}
	return ""
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// editDistance is the optimal-string-alignment distance between a and b, in bytes: the
// Levenshtein distance with a swap of two adjacent characters counted as one edit.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// DecodeValue reads n into v, field f at path: through the hooks when they read it, else a
// pointer (null for nil), a struct, a list, a mapping with string keys or a scalar.
func (d *Decoder) DecodeValue(n *Node, v reflect.Value, path string, f Field) {
	if d.hooks.Read(n, v, path, f) {
		return
	}
	if v.Kind() == reflect.Pointer {
		if n.Kind == NullKind {
			v.SetZero()
			return
		}
		nv := reflect.New(v.Type().Elem())
		before := len(d.Errors)
		d.DecodeValue(n, nv.Elem(), path, f)
		if len(d.Errors) == before {
			v.Set(nv)
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.DecodeStruct(n, v, path)
		return
	case reflect.Slice:
		if n.Kind == NullKind {
			v.SetZero()
			return
		}
		if n.Kind != SeqKind {
			d.Problem(n, path, Describe(n), "must be a list")
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Items), len(n.Items))
		for i, it := range n.Items {
			ip := path + "[" + strconv.Itoa(i) + "]"
			d.At[ip] = it.Pos
			d.DecodeValue(it, s.Index(i), ip, f.elem())
		}
		v.Set(s)
		return
	case reflect.Map:
		if n.Kind == NullKind {
			v.SetZero()
			return
		}
		if n.Kind != MapKind {
			d.Problem(n, path, Describe(n), "must be a mapping")
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.Keys))
		for i, k := range n.Keys {
			kp := JoinPath(path, k.Text)
			d.At[kp] = n.Vals[i].Pos
			ev := reflect.New(v.Type().Elem()).Elem()
			d.DecodeValue(n.Vals[i], ev, kp, f.elem())
			m.SetMapIndex(reflect.ValueOf(k.Text), ev)
		}
		v.Set(m)
		return
	}
	if n.Kind == NullKind {
		v.SetZero()
		return
	}
	if n.Kind != ScalarKind {
		d.Problem(n, path, Describe(n), "must be a single value, not a "+map[Kind]string{MapKind: "mapping", SeqKind: "list"}[n.Kind])
		return
	}
	if rule := d.setScalar(v, n.Text, f); rule != "" {
		d.Problem(n, path, Describe(n), rule)
	}
}

// setScalar parses text into the scalar v and returns "" or the rule text broke.
func (d *Decoder) setScalar(v reflect.Value, text string, f Field) string {
	if rule, ok := d.hooks.ReadScalar(v, text, f); ok {
		return rule
	}
	if v.Type() == durationType {
		dur, rule := ParseDuration(text)
		if rule == "" {
			v.SetInt(int64(dur))
		}
		return rule
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Bool:
		switch text {
		case "true":
			v.SetBool(true)
		case "false":
			v.SetBool(false)
		default:
			return "must be true or false"
		}
	case reflect.Int, reflect.Int64:
		i, err := strconv.ParseInt(text, 10, v.Type().Bits())
		if err != nil {
			return "must be an integer"
		}
		v.SetInt(i)
	case reflect.Uint64:
		u, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return "must be an integer ≥ 0"
		}
		v.SetUint(u)
	case reflect.Float64:
		x, rule := ParseNumber(text)
		if rule == "" {
			v.SetFloat(x)
		}
		return rule
	default:
		return "unsupported field type " + v.Type().String()
	}
	return ""
}

// ParseDuration reads a duration with its unit (250ms, 1m30s), or says the rule text breaks.
func ParseDuration(text string) (time.Duration, string) {
	if dur, err := time.ParseDuration(text); err == nil {
		return dur, ""
	}
	return 0, "must be a duration with a unit, such as 250ms or 1m30s"
}

// ParseNumber reads a finite decimal number, or says the rule text breaks.
func ParseNumber(text string) (float64, string) {
	x, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, "must be a finite number"
	}
	return x, ""
}

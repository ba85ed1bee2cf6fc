package scenarios

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// decoder reads a node tree into the scenario types, strictly: an unknown field, or a value of
// the wrong shape, is a Problem at its line and column. It records where every value came from,
// so that validation can report a rule broken by a value on that value's line.
type decoder struct {
	file  string
	files fileReader
	probs Problems
	at    map[string]pos // field path → position of its value
	bad   map[string]bool
	// extraBlocks holds each policy option block given beside the one a driver holds, for
	// validation to report (policyblock.go).
	extraBlocks []givenBlock
	// badBelow holds every path with a field under it in bad (clients[0] and clients for
	// clients[0].count), so that a rule about a whole can tell at once that a part of it
	// failed.
	badBelow map[string]bool
}

// fileReader reads a file named in the scenario (empirical(file), trace(file)), relative to
// the scenario.
type fileReader func(name string) ([]byte, error)

// customDecoder is implemented by types whose YAML form is not a plain field-by-field mapping.
type customDecoder interface {
	decodeYAML(d *decoder, n *node, path string)
}

// customEncoder is implemented by the same types, for the canonical text.
type customEncoder interface {
	encodeYAML() *node
}

// problem records a problem with the value at path, positioned at n.
func (d *decoder) problem(n *node, path, value, rule string) {
	p := Problem{File: d.file, Path: path, Value: value, Rule: rule}
	if n != nil {
		p.Line, p.Override = n.pos.line, n.pos.set
	}
	d.probs = append(d.probs, p)
	d.bad[path] = true
	if d.badBelow == nil {
		d.badBelow = map[string]bool{}
	}
	for q := parentPath(path); q != "" && !d.badBelow[q]; q = parentPath(q) {
		d.badBelow[q] = true
	}
}

// problemAt records a problem whose position is the closest ancestor of path that the file
// has (the field itself when present). Such problems carry a line but no column.
func (d *decoder) problemAt(path, value, rule string) {
	if d.bad[path] {
		return // the value already failed to decode; one problem per field
	}
	p := Problem{File: d.file, Path: path, Value: value, Rule: rule}
	for q := path; q != ""; q = parentPath(q) {
		if at, ok := d.at[q]; ok {
			p.Line, p.Override = at.line, at.set
			break
		}
	}
	d.probs = append(d.probs, p)
}

// parentPath strips the last field or index from a path.
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

func describe(n *node) string {
	if n == nil {
		return "null"
	}
	if n.kind == scalarNode {
		if n.text == "" {
			return `""`
		}
		return n.text
	}
	return flowText(n)
}

// fieldInfo is one field of a scenario struct as YAML sees it.
type fieldInfo struct {
	name     string
	index    []int
	omitzero bool
	ms       bool // a bare number is milliseconds (fields named …MS)
	rate     bool // a number of operations per second, optionally written N/s
	block    bool // a retry policy's option block, under its key (policyblock.go)
}

// fieldsOf lists the YAML fields of struct type t in declaration order, inline structs
// flattened in place.
func fieldsOf(t reflect.Type) []fieldInfo {
	var out []fieldInfo
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("yaml")
		if !ok || !f.IsExported() {
			continue
		}
		name, optText, _ := strings.Cut(tag, ",")
		opts := strings.Split(optText, ",")
		if slices.Contains(opts, "block") {
			out = append(out, blockFields(i)...)
			continue
		}
		if slices.Contains(opts, "inline") {
			for _, sub := range fieldsOf(f.Type) {
				sub.index = append([]int{i}, sub.index...)
				out = append(out, sub)
			}
			continue
		}
		out = append(out, fieldInfo{
			name: name, index: []int{i},
			omitzero: slices.Contains(opts, "omitzero"),
			ms:       slices.Contains(opts, "ms"),
			rate:     slices.Contains(opts, "rate"),
		})
	}
	return out
}

func fieldNames(fields []fieldInfo) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

var durationType = reflect.TypeFor[time.Duration]()

// defaulter is implemented by the scenario types: setDefaults sets every field to its
// documented default before the fields a file gives are read over it.
type defaulter interface {
	setDefaults()
}

// decodeStruct reads mapping n into struct v, starting from v's defaults.
func (d *decoder) decodeStruct(n *node, v reflect.Value, path string) {
	switch df := v.Addr().Interface().(type) {
	case defaulter:
		df.setDefaults()
	case interface{ SetDefaults() }: // retry's option blocks and the blocks nested in them
		df.SetDefaults()
	}
	if n.kind == nullNode {
		return
	}
	if n.kind != mapNode {
		d.problem(n, path, describe(n), "must be a mapping of fields")
		return
	}
	fields := fieldsOf(v.Type())
	for i, k := range n.keys {
		val := n.vals[i]
		at := slices.IndexFunc(fields, func(f fieldInfo) bool { return f.name == k.text })
		if at < 0 {
			d.unknownField(k, path, fields)
			continue
		}
		f := fields[at]
		fp := joinPath(path, f.name)
		d.at[fp] = val.pos
		d.decodeValue(val, v.FieldByIndex(f.index), fp, f)
	}
}

// unknownField reports key k, which struct fields do not have.
func (d *decoder) unknownField(k *node, path string, fields []fieldInfo) {
	rule := "unknown field"
	if near := nearest(k.text, fieldNames(fields)); near != "" {
		rule += "; did you mean " + near + "?"
	} else {
		rule += "; known: " + strings.Join(fieldNames(fields), ", ")
	}
	if path == "" {
		path = "(top level)"
	}
	d.problem(k, path, k.text, rule)
	d.probs[len(d.probs)-1].Col = k.pos.col
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

// decodeValue reads n into v, whose field options are f.
func (d *decoder) decodeValue(n *node, v reflect.Value, path string, f fieldInfo) {
	if f.block {
		d.decodeBlock(n, v, path, f.name)
		return
	}
	if v.CanAddr() {
		if cd, ok := v.Addr().Interface().(customDecoder); ok {
			cd.decodeYAML(d, n, path)
			return
		}
	}
	if v.Kind() == reflect.Pointer {
		if n.kind == nullNode {
			v.SetZero()
			return
		}
		nv := reflect.New(v.Type().Elem())
		before := len(d.probs)
		d.decodeValue(n, nv.Elem(), path, f)
		if len(d.probs) == before {
			v.Set(nv)
		}
		return
	}
	if e, ok := enums[v.Type()]; ok {
		d.decodeEnum(n, v, path, e)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.decodeStruct(n, v, path)
		return
	case reflect.Slice:
		if n.kind == nullNode {
			v.SetZero()
			return
		}
		if n.kind != seqNode {
			d.problem(n, path, describe(n), "must be a list")
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.items), len(n.items))
		for i, it := range n.items {
			ip := path + "[" + strconv.Itoa(i) + "]"
			d.at[ip] = it.pos
			d.decodeValue(it, s.Index(i), ip, fieldInfo{ms: f.ms, rate: f.rate})
		}
		v.Set(s)
		return
	case reflect.Map:
		if n.kind == nullNode {
			v.SetZero()
			return
		}
		if n.kind != mapNode {
			d.problem(n, path, describe(n), "must be a mapping")
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.keys))
		for i, k := range n.keys {
			kp := joinPath(path, k.text)
			d.at[kp] = n.vals[i].pos
			ev := reflect.New(v.Type().Elem()).Elem()
			d.decodeValue(n.vals[i], ev, kp, fieldInfo{ms: f.ms, rate: f.rate})
			m.SetMapIndex(reflect.ValueOf(k.text), ev)
		}
		v.Set(m)
		return
	}
	if n.kind == nullNode {
		v.SetZero()
		return
	}
	if n.kind != scalarNode {
		d.problem(n, path, describe(n), "must be a single value, not a "+map[nodeKind]string{mapNode: "mapping", seqNode: "list"}[n.kind])
		return
	}
	if rule := setScalar(v, n.text, f); rule != "" {
		d.problem(n, path, describe(n), rule)
	}
}

// decodeEnum reads the name n holds into v, a value of the enum's type. null reads as "".
func (d *decoder) decodeEnum(n *node, v reflect.Value, path string, e enum) {
	text := n.text
	switch n.kind {
	case nullNode:
		text = ""
	case mapNode, seqNode:
		d.problem(n, path, describe(n), e.rule)
		return
	}
	x, ok := e.parse(text)
	if !ok {
		d.problem(n, path, strconv.Quote(text), e.rule)
		return
	}
	v.Set(reflect.ValueOf(x))
}

// setScalar parses text into the scalar v and returns "" or the rule text broke.
func setScalar(v reflect.Value, text string, f fieldInfo) string {
	if v.Type() == durationType {
		dur, rule := parseDuration(text, f.ms)
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
		x, rule := parseNumber(text, f.rate)
		if rule == "" {
			v.SetFloat(x)
		}
		return rule
	default:
		return "unsupported field type " + v.Type().String()
	}
	return ""
}

// parseDuration reads a duration with its unit (250ms, 1m30s); with ms, a bare number is
// milliseconds, as in a connection string.
func parseDuration(text string, ms bool) (time.Duration, string) {
	if dur, err := time.ParseDuration(text); err == nil {
		return dur, ""
	}
	if ms {
		if x, err := strconv.ParseFloat(text, 64); err == nil && !math.IsNaN(x) && math.Abs(x) < float64(math.MaxInt64)/1e6 {
			return time.Duration(math.Round(x * 1e6)), ""
		}
		return 0, "must be a duration such as 250ms, or a number of milliseconds"
	}
	return 0, "must be a duration with a unit, such as 250ms or 1m30s"
}

// parseNumber reads a decimal number; with rate, N/s is N operations per second.
func parseNumber(text string, rate bool) (float64, string) {
	t := text
	if rate {
		t = strings.TrimSuffix(t, "/s")
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		if rate {
			return 0, "must be a rate such as 2000/s"
		}
		return 0, "must be a finite number"
	}
	return x, ""
}

// encode builds the canonical node tree of v: struct fields in declaration order, map keys
// sorted, omitzero fields left out when zero, nil pointers left out.
func encode(v reflect.Value, f fieldInfo) *node {
	if f.block {
		return encodeBlock(v, f.name)
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		return encode(v.Elem(), f)
	}
	if v.CanAddr() {
		if ce, ok := v.Addr().Interface().(customEncoder); ok {
			return ce.encodeYAML()
		}
	}
	if ce, ok := v.Interface().(customEncoder); ok {
		return ce.encodeYAML()
	}
	if e, ok := enums[v.Type()]; ok {
		return scalar(e.name(v.Interface()))
	}
	if v.Type() == durationType {
		return scalar(time.Duration(v.Int()).String())
	}
	switch v.Kind() {
	case reflect.Struct:
		m := &node{kind: mapNode}
		for _, fi := range fieldsOf(v.Type()) {
			fv := v.FieldByIndex(fi.index)
			if fi.omitzero && fv.IsZero() {
				continue
			}
			c := encode(fv, fi)
			if c == nil {
				continue
			}
			m.keys = append(m.keys, scalar(fi.name))
			m.vals = append(m.vals, c)
		}
		return m
	case reflect.Slice:
		s := &node{kind: seqNode}
		for i := 0; i < v.Len(); i++ {
			s.items = append(s.items, encode(v.Index(i), fieldInfo{ms: f.ms, rate: f.rate}))
		}
		return s
	case reflect.Map:
		m := &node{kind: mapNode}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			m.keys = append(m.keys, scalar(k.String()))
			m.vals = append(m.vals, encode(v.MapIndex(k), fieldInfo{ms: f.ms, rate: f.rate}))
		}
		return m
	case reflect.String:
		return scalar(v.String())
	case reflect.Bool:
		return scalar(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int64:
		return scalar(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint64:
		return scalar(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float64:
		s := formatFloat(v.Float())
		if f.rate {
			s += "/s"
		}
		return scalar(s)
	}
	panic("scenarios: encode: unsupported type " + v.Type().String())
}

func scalar(s string) *node { return &node{kind: scalarNode, text: s} }

// formatFloat prints x in the fewest digits that read back exactly, without an exponent
// between 1e-4 and 1e21.
func formatFloat(x float64) string {
	if a := math.Abs(x); a == 0 || a >= 1e-4 && a < 1e21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// writeBlock prints n as block-style YAML at the given indentation.
func writeBlock(b *strings.Builder, n *node, indent int) {
	pad := strings.Repeat("  ", indent)
	switch n.kind {
	case mapNode:
		for i, k := range n.keys {
			b.WriteString(pad)
			b.WriteString(quoteIfNeeded(k.text, false))
			b.WriteString(":")
			writeChild(b, n.vals[i], indent)
		}
	case seqNode:
		for _, it := range n.items {
			b.WriteString(pad)
			b.WriteString("-")
			if it.kind == mapNode && len(it.keys) > 0 {
				// The first field goes on the dash's line, the rest under it.
				var sub strings.Builder
				writeBlock(&sub, it, indent+1)
				b.WriteString(" ")
				b.WriteString(strings.TrimPrefix(sub.String(), pad+"  "))
				continue
			}
			writeChild(b, it, indent)
		}
	default:
		b.WriteString(pad)
		b.WriteString(inline(n))
		b.WriteString("\n")
	}
}

// maxFlow is the longest collection of scalars written on one line, in flow style.
const maxFlow = 72

// flowFits reports whether n is a short collection of scalars, written in flow style.
func flowFits(n *node) bool {
	for _, c := range append(slices.Clone(n.vals), n.items...) {
		if c.kind != scalarNode {
			return false
		}
	}
	return len(flowText(n)) <= maxFlow
}

// writeChild writes the value after "key:" or "-".
func writeChild(b *strings.Builder, v *node, indent int) {
	switch {
	case (v.kind == mapNode && len(v.keys) > 0 || v.kind == seqNode && len(v.items) > 0) && !flowFits(v):
		b.WriteString("\n")
		writeBlock(b, v, indent+1)
	default:
		b.WriteString(" ")
		b.WriteString(inline(v))
		b.WriteString("\n")
	}
}

func inline(n *node) string {
	switch n.kind {
	case nullNode:
		return "null"
	case mapNode:
		return flowText(n)
	case seqNode:
		return flowText(n)
	}
	return quoteIfNeeded(n.text, false)
}

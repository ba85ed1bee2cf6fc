package serverstatus

import (
	"cmp"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/internal/fileinfo"
)

// Limits on what ReadFile and Read take, checked before anything is decoded, so that a wrong or
// hostile file is refused in milliseconds rather than filling the machine.
const (
	// MaxDocumentFileBytes bounds a file of serverStatus or getParameter documents: 64 MiB, some
	// 500 serverStatus documents of 130 KB (the size of a busy 8.0 primary's, wiredTiger section
	// included), a day of snapshots every three minutes.
	MaxDocumentFileBytes = 64 << 20
	// MaxLogFileBytes bounds a structured mongod log: 256 MiB, some 300 000 slow-query lines of
	// 900 bytes. A log that holds more is cut before it is read, to the lines calibration
	// reads (see LogCutHint).
	MaxLogFileBytes = 256 << 20
	// maxDocumentBytes bounds one document or log line: 16 MiB, the server's own limit on a
	// BSON document (its JSON may be a little larger; no serverStatus comes near it).
	maxDocumentBytes = 16 << 20
	// maxDepth bounds the nesting of a document; the server nests user documents at most 180
	// deep, so a slow-query line's command fits.
	maxDepth = 256
	// maxValues bounds the values of one document: a serverStatus holds 3 000 to 6 000, a
	// getParameter: '*' some 1 500; decoding costs some 100 bytes a value.
	maxValues = 500_000
	// maxProblems is the most problems a read reports; past it, it stops.
	maxProblems = 100
)

// LogCutHint is how a log larger than MaxLogFileBytes is cut to the lines calibration reads
// (slow operations, id 51803, and client metadata, id 51800), which the refusal quotes.
const LogCutHint = `grep -E '"id":(51803|51800),' mongod.log > calibrate.log`

// Errors a refused file matches under errors.Is.
var (
	// ErrNotRegular is a path that is not a regular file: a directory, a device, a named pipe.
	ErrNotRegular = errors.New("serverstatus: not a regular file")
	// ErrTooLarge is a file larger than the limit of its kind.
	ErrTooLarge = errors.New("serverstatus: file too large")
)

// Structured log message ids that ReadFile keeps (docs: "Log Messages").
const (
	LogSlowQuery      = 51803 // "Slow query"
	LogClientMetadata = 51800 // "client metadata"
)

// File is what ReadFile found in one file, in file order: serverStatus documents, getParameter
// outputs and the kept log entries. Skipped counts the log lines of other ids, which are read
// (and checked for t, id and msg) but not kept.
type File struct {
	Path    string
	Status  []Doc
	Params  []Params
	Log     []LogEntry
	Skipped int
}

// ReadFile reads the file at path: one document, several (concatenated, one per line, or
// pretty-printed one after another), a JSON array of documents, or a structured mongod log
// (JSON lines). Each top-level document is a serverStatus (it has host, process and uptime, or
// opcounters), a getParameter output (it has one of Params' parameters) or a log line (it has
// t, id and msg); anything else is a problem.
//
// The path must name a regular file, checked before it is opened: a directory, a device or a
// named pipe is refused without blocking. A file of documents holds at most
// MaxDocumentFileBytes, a log (a file whose first document is a log line) MaxLogFileBytes; a
// larger one is refused from its size alone, naming the file, the size, the limit and how to
// cut it. One document holds at most 16 MiB, 500 000 values, 256 levels deep.
//
// Every problem is a *field.Error whose Field is "FILE:LINE: path.in.document"
// (prod/rs0a.json:3: opcounters.query), whose Value is the offending text and whose Rule says
// what it must be; all of a file's problems are returned, joined with errors.Join, in file
// order (up to 100). A file with any problem returns a nil *File.
//
// Per document ReadFile checks types and signs: counters are integers ≥ 0, a serverStatus names
// its host and has localTime or uptimeMillis, a slow-query line's times are integers ≥ 0, a log
// line's t is a date. What involves several documents (two snapshots of one host at one time,
// a counter that went backwards) is the caller's to check.
func ReadFile(path string) (*File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, openError(path, err)
	}
	if err := checkFile(path, fi); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, openError(path, err)
	}
	if err := checkFile(path, fi); err != nil {
		return nil, err
	}
	return read(f, path, fi.Size(), defaultLimits)
}

// Read reads documents or a log from r as ReadFile reads a file, naming it name in problems
// ("-" for standard input, say). Without a size to check first, the limits are checked as r is
// read.
func Read(r io.Reader, name string) (*File, error) {
	return read(r, name, -1, defaultLimits)
}

// openError is a file that cannot be opened or examined.
func openError(path string, err error) error {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	return &field.Error{Field: path, Rule: "cannot be read: " + msg, Err: err}
}

// checkFile refuses a file that is not regular.
func checkFile(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return &field.Error{Field: path, Value: fileinfo.Kind(fi.Mode()),
			Rule: "must be a regular file (a serverStatus, getParameter or mongod log file)", Err: ErrNotRegular}
	}
	return nil
}

func tooLarge(path, size, rule string) error {
	return &field.Error{Field: path, Value: size, Rule: rule, Err: ErrTooLarge}
}

// limits are the sizes a read refuses beyond (tests read with smaller ones).
type limits struct {
	docFile, logFile int64
}

var defaultLimits = limits{docFile: MaxDocumentFileBytes, logFile: MaxLogFileBytes}

// read reads the documents of r, named name, of size bytes (< 0: unknown).
func read(r io.Reader, name string, size int64, lim limits) (*File, error) {
	rd := reader{file: name, out: &File{Path: name}, lim: lim}
	if size > lim.logFile {
		return nil, tooLarge(name, strconv.FormatInt(size, 10)+" bytes", rd.rule(lim.logFile))
	}
	sp := newSplitter(r, lim.logFile)
	for len(rd.errs) < maxProblems {
		pc, ok := sp.next()
		if !ok {
			break
		}
		if pc.overLimit && pc.data == nil {
			rd.overLimit(sp)
			break
		}
		rd.piece(pc)
		if sp.limit == lim.logFile && (rd.seen && !rd.isLog || !rd.seen && sp.total > lim.docFile) {
			// Not a log (its first document is not a log line, or nothing it holds is a
			// document): the smaller limit of a file of documents applies.
			if size > lim.docFile {
				return nil, tooLarge(name, strconv.FormatInt(size, 10)+" bytes", rd.rule(lim.docFile))
			}
			sp.limit = lim.docFile
			pc.overLimit = pc.overLimit || sp.over()
		}
		if pc.overLimit {
			rd.overLimit(sp)
			break
		}
	}
	if err := sp.readErr(); err != nil && len(rd.errs) < maxProblems {
		rd.errs = append(rd.errs, &field.Error{Field: name, Rule: "cannot be read: " + err.Error(), Err: err})
	}
	if len(rd.errs) >= maxProblems {
		rd.errs = append(rd.errs[:maxProblems], &field.Error{Field: name, Value: "more problems",
			Rule: "only the first " + strconv.Itoa(maxProblems) + " problems are listed"})
	}
	if len(rd.errs) > 0 {
		return nil, errors.Join(rd.errs...)
	}
	return rd.out, nil
}

// rule is the rule a file over limit breaks: a log's (with how to cut it) or a document file's.
func (rd *reader) rule(limit int64) string {
	if limit == rd.lim.logFile {
		return "a mongod log read for calibration holds at most " + fileinfo.Size(limit) +
			": keep the slow-query and client-metadata lines, " + LogCutHint
	}
	return "a file of serverStatus or getParameter documents holds at most " + fileinfo.Size(limit) +
		": split it, a file per node or per hour"
}

// reader decodes the documents of one file.
type reader struct {
	lim   limits
	file  string
	out   *File
	errs  []error
	isLog bool // the first document was a log line
	seen  bool // a document was classified
}

// overLimit reports a stream that ran past its limit while it was read.
func (rd *reader) overLimit(sp *splitter) {
	rd.errs = append(rd.errs, tooLarge(rd.file, "more than "+strconv.FormatInt(sp.limit, 10)+" bytes", rd.rule(sp.limit)))
}

// problem records that the value at path, on line, breaks rule.
func (rd *reader) problem(line int, path, value, rule string) {
	f := rd.file + ":" + strconv.Itoa(line)
	if path != "" {
		f += ": " + path
	}
	rd.errs = append(rd.errs, &field.Error{Field: f, Value: value, Rule: rule})
}

// piece parses and decodes one document the splitter cut.
func (rd *reader) piece(pc piece) {
	switch {
	case pc.tooLarge:
		rd.problem(pc.line, "", "more than "+strconv.Itoa(maxDocumentBytes)+" bytes",
			"a document or log line holds at most "+fileinfo.Size(maxDocumentBytes))
		return
	case pc.deepLine > 0:
		rd.problem(pc.deepLine, "", "more than "+strconv.Itoa(maxDepth)+" levels",
			"a document nests at most "+strconv.Itoa(maxDepth)+" levels deep")
		return
	}
	v, serr := parseDocument(pc.data, pc.line)
	if serr != nil {
		rd.problem(serr.line, serr.path, serr.value, serr.rule)
		return
	}
	if v.kind == kindArray {
		for i, el := range v.kids {
			if len(rd.errs) >= maxProblems {
				break
			}
			rd.document(el, "["+strconv.Itoa(i)+"]")
		}
		return
	}
	rd.document(v, "")
}

// Kinds of top-level documents.
const (
	docUnknown = iota
	docStatus
	docParams
	docLog
	docFailed
)

// classify tells what a top-level document is.
func classify(v *value) int {
	if v.kind != kindObject {
		return docUnknown
	}
	if ok := v.get("ok"); ok != nil && v.get("errmsg") != nil {
		if n, rule := number(ok); rule == "" && (n.isInt && n.i == 0 || !n.isInt && n.f == 0) {
			return docFailed
		}
	}
	if v.get("t") != nil && v.get("id") != nil && v.get("msg") != nil {
		return docLog
	}
	if v.get("host") != nil && v.get("process") != nil && v.get("uptime") != nil || v.get("opcounters") != nil {
		return docStatus
	}
	for _, k := range paramKeys {
		if p := v.get(k); p != nil && p.kind != kindNull {
			return docParams
		}
	}
	return docUnknown
}

// paramKeys are the getParameter names Params holds (its JSON tags).
var paramKeys = func() []string {
	var out []string
	t := reflect.TypeFor[Params]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}()

// document decodes one top-level document, at path ("" or "[i]" in a top-level array).
func (rd *reader) document(v *value, path string) {
	kind := classify(v)
	if !rd.seen {
		rd.seen = true
		rd.isLog = kind == docLog
	}
	d := decoder{rd: rd, base: path}
	defer d.flush()
	switch kind {
	case docStatus:
		if doc, ok := d.status(v); ok {
			rd.out.Status = append(rd.out.Status, doc)
		}
	case docParams:
		if p, ok := d.params(v); ok {
			rd.out.Params = append(rd.out.Params, p)
		}
	case docLog:
		e, keep, ok := d.logEntry(v)
		switch {
		case ok && keep:
			rd.out.Log = append(rd.out.Log, e)
		case ok:
			rd.out.Skipped++
		}
	case docFailed:
		msg := ""
		if m := v.get("errmsg"); m != nil && m.kind == kindString {
			msg = m.text
		}
		rd.problem(v.get("ok").line, field.Join(path, "ok"), "0", "the command failed: "+msg)
	default:
		rd.problem(v.line, path, describe(v), "not a serverStatus, getParameter or mongod log document")
	}
}

// describe sums up a document that is none of the known kinds: its first keys, or its value.
func describe(v *value) string {
	switch v.kind {
	case kindObject:
		if len(v.keys) == 0 {
			return "{}"
		}
		n := min(len(v.keys), 4)
		s := "{" + strings.Join(v.keys[:n], ", ")
		if n < len(v.keys) {
			s += ", …"
		}
		return s + "}"
	case kindArray:
		return "an array"
	}
	return v.text
}

// decoder decodes one document, recording its problems, which flush hands to the reader in
// the order of the document's text. Paths are relative to base, the document's place in its
// file ("" or "[i]").
type decoder struct {
	rd    *reader
	base  string
	bad   bool // a problem was found in this document
	probs []placed
}

// placed is a problem and the byte of the document it is at.
type placed struct {
	off int
	err error
}

func (d *decoder) problem(v *value, path, val, rule string) {
	d.bad = true
	f := d.rd.file + ":" + strconv.Itoa(v.line)
	if p := field.Join(d.base, path); p != "" {
		f += ": " + p
	}
	d.probs = append(d.probs, placed{v.off, &field.Error{Field: f, Value: val, Rule: rule}})
}

// flush hands the document's problems to the reader in file order.
func (d *decoder) flush() {
	slices.SortStableFunc(d.probs, func(a, b placed) int { return cmp.Compare(a.off, b.off) })
	for _, p := range d.probs {
		d.rd.errs = append(d.rd.errs, p.err)
	}
}

// shown is a value's text as a problem quotes it: a string quoted, a document or array named.
func shown(v *value) string {
	switch v.kind {
	case kindString:
		return strconv.Quote(v.text)
	case kindObject:
		if len(v.keys) == 1 && strings.HasPrefix(v.keys[0], "$") && v.kids[0].kind != kindObject {
			return "{" + v.keys[0] + ": " + shown(v.kids[0]) + "}"
		}
		return "a document"
	case kindArray:
		return "an array"
	}
	return v.text
}

// section returns the document at key of v (at path), nil when absent or null; a value of
// another type is a problem.
func (d *decoder) section(v *value, path, key string) (*value, string) {
	p := field.Join(path, key)
	s := v.get(key)
	if s == nil || s.kind == kindNull {
		return nil, p
	}
	if s.kind != kindObject || isWrapped(s) {
		d.problem(s, p, shown(s), "must be a document")
		return nil, p
	}
	return s, p
}

// isWrapped reports whether v is an Extended JSON value ({"$numberLong": …}, {"$date": …}).
func isWrapped(v *value) bool {
	return v.kind == kindObject && len(v.keys) == 1 && strings.HasPrefix(v.keys[0], "$")
}

// num is a number read from JSON or Extended JSON.
type num struct {
	isInt bool
	i     int64
	f     float64
}

// number reads v as a number: a JSON number or $numberInt, $numberLong, $numberDouble,
// $numberDecimal. rule is "" when it is one, else what is wrong.
func number(v *value) (num, string) {
	switch v.kind {
	case kindNumber:
		if !strings.ContainsAny(v.text, ".eE") {
			if i, err := strconv.ParseInt(v.text, 10, 64); err == nil {
				return num{isInt: true, i: i}, ""
			}
		}
		f, err := strconv.ParseFloat(v.text, 64)
		if err != nil && !math.IsInf(f, 0) {
			return num{}, "must be a number"
		}
		return num{f: f}, ""
	case kindObject:
		if len(v.keys) != 1 {
			break
		}
		inner := v.kids[0]
		switch v.keys[0] {
		case "$numberInt":
			if inner.kind != kindString {
				return num{}, "$numberInt must hold a string of digits"
			}
			i, err := strconv.ParseInt(inner.text, 10, 32)
			if err != nil {
				return num{}, "$numberInt must hold a 32-bit integer"
			}
			return num{isInt: true, i: i}, ""
		case "$numberLong":
			if inner.kind != kindString {
				return num{}, "$numberLong must hold a string of digits"
			}
			i, err := strconv.ParseInt(inner.text, 10, 64)
			if err != nil {
				return num{}, "$numberLong must hold a 64-bit integer"
			}
			return num{isInt: true, i: i}, ""
		case "$numberDouble", "$numberDecimal":
			if inner.kind != kindString {
				return num{}, v.keys[0] + " must hold a number in a string"
			}
			return wrappedFloat(inner.text, v.keys[0])
		}
	}
	return num{}, "must be a number"
}

// wrappedFloat reads the string of a $numberDouble or $numberDecimal: a decimal number,
// Infinity, -Infinity or NaN.
func wrappedFloat(s, wrapper string) (num, string) {
	switch s {
	case "Infinity", "+Infinity":
		return num{f: math.Inf(1)}, ""
	case "-Infinity":
		return num{f: math.Inf(-1)}, ""
	case "NaN", "-NaN":
		return num{f: math.NaN()}, ""
	}
	bad := wrapper + " must hold a decimal number, Infinity, -Infinity or NaN"
	if !isDecimal(s) {
		return num{}, bad
	}
	if wrapper == "$numberDecimal" && !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return num{isInt: true, i: i}, ""
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return num{}, bad
	}
	return num{f: f}, ""
}

// isDecimal reports whether s is a decimal number as Extended JSON writes one in a string:
// an optional sign, digits with an optional point (1, 1.5, 1., .5) and an optional exponent.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// toInt converts n to an integer when it is one exactly.
func toInt(n num) (int64, string) {
	if n.isInt {
		return n.i, ""
	}
	switch {
	case math.IsNaN(n.f) || math.IsInf(n.f, 0):
		return 0, "must be a finite number"
	case n.f != math.Trunc(n.f):
		return 0, "must be a whole number"
	case n.f >= 1<<63 || n.f < -(1<<63):
		return 0, "must be within the 64-bit integer range"
	}
	return int64(n.f), ""
}

// count reads the counter at key of v (at path): 0 when absent, else an integer ≥ 0.
func (d *decoder) count(v *value, path, key string) int64 {
	if p := d.countPtr(v, path, key); p != nil {
		return *p
	}
	return 0
}

// countPtr reads the counter at key of v: nil when absent or null, else an integer ≥ 0.
func (d *decoder) countPtr(v *value, path, key string) *int64 {
	return d.integer(v, path, key, "a count must be ≥ 0")
}

// integer reads the integer at key of v: nil when absent or null. A negative one breaks
// negRule, unless negRule is "".
func (d *decoder) integer(v *value, path, key, negRule string) *int64 {
	x := v.get(key)
	if x == nil || x.kind == kindNull {
		return nil
	}
	p := field.Join(path, key)
	n, rule := number(x)
	if rule != "" {
		d.problem(x, p, shown(x), rule)
		return nil
	}
	i, rule := toInt(n)
	if rule != "" {
		d.problem(x, p, shown(x), rule)
		return nil
	}
	if negRule != "" && i < 0 {
		d.problem(x, p, shown(x), negRule)
		return nil
	}
	return &i
}

// tokens reads a limiter's totalAvailableTokens: a balance the server keeps as a double, taken
// here as the whole tokens it holds (rounded down), math.MaxInt64 for a limiter without a limit
// (an infinite or huge balance).
func (d *decoder) tokens(v *value, path, key string) int64 {
	x := v.get(key)
	if x == nil || x.kind == kindNull {
		return 0
	}
	n, rule := number(x)
	if rule == "" && !n.isInt && math.IsNaN(n.f) {
		rule = "must be a number of tokens, not NaN"
	}
	if rule != "" {
		d.problem(x, field.Join(path, key), shown(x), rule)
		return 0
	}
	if n.isInt {
		return n.i
	}
	switch f := math.Floor(n.f); {
	case f >= 1<<63:
		return math.MaxInt64
	case f < -(1 << 63):
		return math.MinInt64
	default:
		return int64(f)
	}
}

// float reads the number at key of v: nil when absent or null.
func (d *decoder) float(v *value, path, key string) *float64 {
	x := v.get(key)
	if x == nil || x.kind == kindNull {
		return nil
	}
	n, rule := number(x)
	if rule != "" {
		d.problem(x, field.Join(path, key), shown(x), rule)
		return nil
	}
	f := n.f
	if n.isInt {
		f = float64(n.i)
	}
	return &f
}

// str reads the string at key of v: "" when absent or null.
func (d *decoder) str(v *value, path, key string) string {
	x := v.get(key)
	if x == nil || x.kind == kindNull {
		return ""
	}
	if x.kind != kindString {
		d.problem(x, field.Join(path, key), shown(x), "must be a string")
		return ""
	}
	return x.text
}

// boolean reads the boolean at key of v: nil when absent or null.
func (d *decoder) boolean(v *value, path, key string) *bool {
	x := v.get(key)
	if x == nil || x.kind == kindNull {
		return nil
	}
	if x.kind != kindBool {
		d.problem(x, field.Join(path, key), shown(x), "must be true or false")
		return nil
	}
	b := x.text == "true"
	return &b
}

// date reads the Extended JSON date at key of v: {"$date": "ISO-8601"}, {"$date":
// {"$numberLong": "ms"}} or {"$date": ms}. ok is false when absent or null.
func (d *decoder) date(v *value, path, key string) (time.Time, bool) {
	x := v.get(key)
	if x == nil || x.kind == kindNull {
		return time.Time{}, false
	}
	p := field.Join(path, key)
	const rule = `must be a date: {"$date": "2026-01-01T00:00:00.000Z"} or {"$date": {"$numberLong": "1767225600000"}}`
	if x.kind != kindObject || len(x.keys) != 1 || x.keys[0] != "$date" {
		d.problem(x, p, shown(x), rule)
		return time.Time{}, false
	}
	in := x.kids[0]
	var t time.Time
	if in.kind == kindString {
		var ok bool
		if t, ok = parseISO(in.text); !ok {
			d.problem(in, p, strconv.Quote(in.text), "must be an ISO-8601 date and time (2026-01-01T00:00:00.000Z, or with an offset: +01:00, -0500)")
			return time.Time{}, false
		}
	} else {
		n, r := number(in)
		if r != "" || !n.isInt {
			d.problem(in, p, shown(in), rule)
			return time.Time{}, false
		}
		if n.i < minDateMillis || n.i > maxDateMillis {
			d.problem(in, p, shown(in), "must be a date from the year 1 to 9999")
			return time.Time{}, false
		}
		t = time.UnixMilli(n.i).UTC()
	}
	if ms := t.UnixMilli(); ms < minDateMillis || ms > maxDateMillis {
		d.problem(in, p, shown(in), "must be a date from the year 1 to 9999")
		return time.Time{}, false
	}
	return t, true
}

// The dates ReadFile takes: 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z.
const (
	minDateMillis = -62135596800000
	maxDateMillis = 253402300799999
)

// parseISO reads an ISO-8601 date and time with a zone (Z, +01:00 or -0500) and optional
// fractional seconds, as the server writes localTime and a log line's t.
func parseISO(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05Z0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// strList reads the array of strings at key of v: nil when absent, null or empty.
func (d *decoder) strList(v *value, path, key string) []string {
	x := v.get(key)
	if x == nil || x.kind == kindNull {
		return nil
	}
	p := field.Join(path, key)
	if x.kind != kindArray {
		d.problem(x, p, shown(x), "must be an array of strings")
		return nil
	}
	var out []string
	for i, el := range x.kids {
		if el.kind != kindString {
			d.problem(el, p+"["+strconv.Itoa(i)+"]", shown(el), "must be a string")
			continue
		}
		out = append(out, el.text)
	}
	return out
}

package serverstatus

import (
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// kind is the JSON type of a parsed value.
type kind uint8

const (
	kindObject kind = iota + 1
	kindArray
	kindString
	kindNumber
	kindBool
	kindNull
)

// value is one parsed JSON value, with the line it starts on so that a problem found while
// decoding it can name its place in the file.
type value struct {
	kind kind
	line int
	off  int // the byte of the document it starts at
	// text is a string's contents (unescaped), a number's literal, or "true" or "false".
	text string
	// keys are an object's keys in file order; kids are the object's values (parallel to keys)
	// or an array's elements.
	keys []string
	kids []*value
}

// get returns the value of key in object v (the first, when a key is repeated), or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != kindObject {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			return v.kids[i]
		}
	}
	return nil
}

// syntaxError is a document that is not JSON: where (line and path inside the document), the
// offending text ("" at the end of the input) and the rule it breaks.
type syntaxError struct {
	line  int
	path  string
	value string
	rule  string
}

// parser reads one document (one top-level JSON value) from data, which starts on line.
// It never recurses deeper than maxDepth and makes at most maxValues values.
type parser struct {
	data   []byte
	pos    int
	line   int
	depth  int
	values int
	err    *syntaxError
}

// parseDocument parses the one JSON value data holds, which starts on line; only blanks may
// follow it.
func parseDocument(data []byte, line int) (*value, *syntaxError) {
	p := &parser{data: data, line: line}
	p.skipBlanks()
	v := p.value("")
	if p.err != nil {
		return nil, p.err
	}
	p.skipBlanks()
	if p.pos < len(p.data) {
		p.fail(p.line, "", p.snippet(), "must end here: one line or document holds one JSON value")
		return nil, p.err
	}
	return v, nil
}

func (p *parser) fail(line int, path, value, rule string) {
	if p.err == nil {
		p.err = &syntaxError{line: line, path: path, value: value, rule: rule}
	}
}

// truncated reports the end of the input inside what (an object, an array, a string) that
// began on line at path.
func (p *parser) truncated(line int, path, what string) {
	p.fail(line, path, "", "truncated: the document ends inside "+what)
}

func (p *parser) skipBlanks() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '\n':
			p.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		p.pos++
	}
}

// snippet is the text at the parser's position, to the end of its line, at most 40 bytes cut
// at a rune boundary.
func (p *parser) snippet() string {
	end := p.pos
	for end < len(p.data) && end-p.pos < 40 && p.data[end] != '\n' && p.data[end] != '\r' {
		end++
	}
	for end > p.pos && end < len(p.data) && !utf8.RuneStart(p.data[end]) {
		end--
	}
	return string(p.data[p.pos:end])
}

// atLineStart reports whether only blanks precede the parser's position on its line.
func (p *parser) atLineStart() bool {
	for i := p.pos - 1; i >= 0; i-- {
		switch p.data[i] {
		case '\n':
			return true
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return true
}

// value parses the value at the parser's position, which is at path in the document.
func (p *parser) value(path string) *value {
	if p.pos >= len(p.data) {
		p.fail(p.line, path, "", "truncated: the document ends where a value should be")
		return nil
	}
	p.values++
	if p.values > maxValues {
		p.fail(p.line, path, "more than "+strconv.Itoa(maxValues)+" values", "a document holds at most "+strconv.Itoa(maxValues)+" values")
		return nil
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(path)
	case c == '[':
		return p.array(path)
	case c == '"':
		line, off := p.line, p.pos
		s, ok := p.string(path)
		if !ok {
			return nil
		}
		return &value{kind: kindString, line: line, off: off, text: s}
	case c == '-' || c >= '0' && c <= '9':
		return p.number(path)
	case c == 't':
		return p.literal(path, "true", kindBool)
	case c == 'f':
		return p.literal(path, "false", kindBool)
	case c == 'n':
		return p.literal(path, "null", kindNull)
	}
	p.unexpected(path)
	return nil
}

// unexpected reports a character where a value should start.
func (p *parser) unexpected(path string) {
	if shellNotation(p.data[p.pos:]) {
		p.fail(p.line, path, p.snippet(), "is mongosh's shell notation, not Extended JSON: print the document with EJSON.stringify(…)")
		return
	}
	p.fail(p.line, path, p.snippet(), "must be a JSON value (Extended JSON, as EJSON.stringify prints it)")
}

// shellNotation reports whether b starts with a call such as Long(…), NumberLong(…),
// ISODate(…), Timestamp(…) or ObjectId(…): what mongosh prints without EJSON.stringify.
func shellNotation(b []byte) bool {
	i := 0
	for i < len(b) && i < 32 && (b[i] >= 'A' && b[i] <= 'Z' || b[i] >= 'a' && b[i] <= 'z') {
		i++
	}
	return i > 0 && i < len(b) && b[i] == '(' && b[0] >= 'A' && b[0] <= 'Z'
}

func (p *parser) enter(line int, path string) bool {
	p.depth++
	if p.depth > maxDepth {
		p.fail(line, path, "more than "+strconv.Itoa(maxDepth)+" levels", "a document nests at most "+strconv.Itoa(maxDepth)+" levels deep")
		return false
	}
	return true
}

func (p *parser) object(path string) *value {
	v := &value{kind: kindObject, line: p.line, off: p.pos}
	if !p.enter(v.line, path) {
		return nil
	}
	defer func() { p.depth-- }()
	p.pos++ // {
	p.skipBlanks()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v
	}
	for {
		p.skipBlanks()
		if p.pos >= len(p.data) {
			p.truncated(v.line, path, "an object")
			return nil
		}
		if p.data[p.pos] != '"' {
			if p.data[p.pos] == '{' && p.atLineStart() {
				p.truncated(v.line, path, "an object (a new document starts on line "+strconv.Itoa(p.line)+")")
				return nil
			}
			if c := p.data[p.pos]; c == '$' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				p.fail(p.line, path, p.snippet(), "a key must be a quoted string: this is mongosh's shell notation, not Extended JSON; print the document with EJSON.stringify(…)")
				return nil
			}
			p.fail(p.line, path, p.snippet(), "a key must be a quoted string")
			return nil
		}
		key, ok := p.string(path)
		if !ok {
			return nil
		}
		kpath := joinKey(path, key)
		p.skipBlanks()
		if p.pos >= len(p.data) {
			p.truncated(v.line, path, "an object")
			return nil
		}
		if p.data[p.pos] != ':' {
			p.fail(p.line, kpath, p.snippet(), "a key must be followed by ':'")
			return nil
		}
		p.pos++
		p.skipBlanks()
		if p.pos >= len(p.data) {
			p.truncated(v.line, path, "an object")
			return nil
		}
		kid := p.value(kpath)
		if p.err != nil {
			return nil
		}
		v.keys = append(v.keys, key)
		v.kids = append(v.kids, kid)
		p.skipBlanks()
		if p.pos >= len(p.data) {
			p.truncated(v.line, path, "an object")
			return nil
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return v
		default:
			if p.data[p.pos] == '{' && p.atLineStart() {
				p.truncated(v.line, path, "an object (a new document starts on line "+strconv.Itoa(p.line)+")")
				return nil
			}
			p.fail(p.line, kpath, p.snippet(), "a value must be followed by ',' or '}'")
			return nil
		}
	}
}

func (p *parser) array(path string) *value {
	v := &value{kind: kindArray, line: p.line, off: p.pos}
	if !p.enter(v.line, path) {
		return nil
	}
	defer func() { p.depth-- }()
	p.pos++ // [
	p.skipBlanks()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v
	}
	for i := 0; ; i++ {
		p.skipBlanks()
		if p.pos >= len(p.data) {
			p.truncated(v.line, path, "an array")
			return nil
		}
		epath := path + "[" + strconv.Itoa(i) + "]"
		kid := p.value(epath)
		if p.err != nil {
			return nil
		}
		v.kids = append(v.kids, kid)
		p.skipBlanks()
		if p.pos >= len(p.data) {
			p.truncated(v.line, path, "an array")
			return nil
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v
		default:
			p.fail(p.line, epath, p.snippet(), "an array element must be followed by ',' or ']'")
			return nil
		}
	}
}

// string parses the quoted string at the parser's position.
func (p *parser) string(path string) (string, bool) {
	line := p.line
	p.pos++ // opening quote
	start := p.pos
	// The common case: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := string(p.data[start:p.pos])
			p.pos++
			return s, true
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	buf := append([]byte(nil), p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(buf), true
		case c < 0x20:
			p.fail(p.line, path, strconv.Quote(string(c)), "a string must not hold a control character (JSON writes it as an escape: \\n, \\t, \\u0000)")
			return "", false
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		// An escape.
		if p.pos+1 >= len(p.data) {
			break
		}
		e := p.data[p.pos+1]
		p.pos += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				if p.pos >= len(p.data) {
					p.truncated(line, path, "a string")
					return "", false
				}
				p.fail(p.line, path, p.snippet(), "\\u must be followed by four hexadecimal digits")
				return "", false
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
					save := p.pos
					p.pos += 2
					if lo, ok := p.hex4(); ok && utf16.DecodeRune(r, lo) != utf8.RuneError {
						r2 = utf16.DecodeRune(r, lo)
					} else {
						p.pos = save
					}
				}
				r = r2
			}
			buf = utf8.AppendRune(buf, r)
		default:
			p.pos -= 2
			p.fail(p.line, path, p.snippet(), "is not a JSON escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
			return "", false
		}
	}
	p.truncated(line, path, "a string")
	return "", false
}

// hex4 reads four hexadecimal digits.
func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

// number parses a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) number(path string) *value {
	v := &value{kind: kindNumber, line: p.line, off: p.pos}
	start := p.pos
	bad := func() *value {
		end := p.pos
		for end < len(p.data) && isNumberByte(p.data[end]) {
			end++
		}
		p.pos = start
		p.fail(p.line, path, string(p.data[start:end]), "must be a JSON number")
		return nil
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
		if p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			return bad()
		}
	} else if digits() == 0 {
		return bad()
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return bad()
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return bad()
		}
	}
	if p.pos < len(p.data) && isNumberByte(p.data[p.pos]) {
		return bad()
	}
	v.text = string(p.data[start:p.pos])
	return v
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' ||
		c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (p *parser) literal(path, word string, k kind) *value {
	line, off := p.line, p.pos
	if len(p.data)-p.pos >= len(word) && string(p.data[p.pos:p.pos+len(word)]) == word &&
		(p.pos+len(word) == len(p.data) || !isNumberByte(p.data[p.pos+len(word)])) {
		p.pos += len(word)
		return &value{kind: k, line: line, off: off, text: word}
	}
	if len(p.data)-p.pos < len(word) && string(p.data[p.pos:]) == word[:len(p.data)-p.pos] {
		p.fail(line, path, "", "truncated: the document ends inside "+word)
		return nil
	}
	p.unexpected(path)
	return nil
}

// joinKey returns the path of key under path.
func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// splitter cuts a stream into documents: top-level JSON values, one after another, with blanks
// (a JSON lines file, concatenated documents, pretty-printed ones) between them. It only
// tracks strings and brackets; parseDocument reads each document it returns. It buffers at
// most maxDocumentBytes of a document and reads at most limit bytes of the stream.
type splitter struct {
	r     io.Reader
	chunk []byte // read but not consumed: chunk[off:]
	off   int
	err   error // the reader's error once chunk is used up (io.EOF at the end)
	total int64 // bytes read from r
	limit int64 // the most bytes r may hold; beyond it the stream is refused
	line  int   // line of the next byte
	col   int   // bytes of the next byte's line before it
	buf   []byte
	first bool // nothing consumed yet (a byte-order mark may come)
}

// piece is one document as the splitter cut it.
type piece struct {
	data      []byte // the document's bytes (only its start when tooLarge)
	line      int    // the line it starts on
	tooLarge  bool   // longer than maxDocumentBytes
	deepLine  int    // > 0: the line where it nests deeper than maxDepth
	overLimit bool   // the stream ran past limit inside or before this document
}

func newSplitter(r io.Reader, limit int64) *splitter {
	return &splitter{r: r, limit: limit, line: 1, first: true, chunk: make([]byte, 0, 64<<10)}
}

// peek returns the next byte, reading more when needed; ok is false at the end of the stream
// or once more than limit bytes were read.
func (s *splitter) peek() (byte, bool) {
	for s.off >= len(s.chunk) {
		if s.err != nil || s.total > s.limit {
			return 0, false
		}
		s.chunk = s.chunk[:cap(s.chunk)]
		n, err := s.r.Read(s.chunk)
		s.chunk, s.off = s.chunk[:max(n, 0)], 0
		s.total += int64(max(n, 0))
		if s.total > s.limit {
			// Keep only what is within the limit.
			keep := int64(len(s.chunk)) - (s.total - s.limit)
			s.chunk = s.chunk[:max(keep, 0)]
		}
		if err != nil {
			s.err = err
		} else if n == 0 {
			s.err = io.ErrNoProgress
		}
	}
	return s.chunk[s.off], true
}

func (s *splitter) advance(c byte) {
	s.off++
	if c == '\n' {
		s.line++
		s.col = 0
	} else {
		s.col++
	}
}

// over reports whether the stream held more than limit bytes.
func (s *splitter) over() bool { return s.total > s.limit }

// readErr is the reader's error other than the end of the stream, or nil.
func (s *splitter) readErr() error {
	if s.err == io.EOF {
		return nil
	}
	return s.err
}

// next returns the next document, or false at the end of the stream.
func (s *splitter) next() (piece, bool) {
	// Blanks between documents, and a byte-order mark at the very start.
	for {
		c, ok := s.peek()
		if !ok {
			return piece{overLimit: s.over()}, s.over()
		}
		if s.first {
			s.first = false
			if c == 0xEF {
				s.advance(c)
				for _, want := range []byte{0xBB, 0xBF} {
					if c, ok := s.peek(); ok && c == want {
						s.advance(c)
					}
				}
				continue
			}
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			break
		}
		s.advance(c)
	}
	pc := piece{line: s.line}
	s.buf = s.buf[:0]
	keep := func(c byte) {
		if len(s.buf) < maxDocumentBytes {
			s.buf = append(s.buf, c)
		} else {
			pc.tooLarge = true
		}
	}
	c, _ := s.peek()
	if c != '{' && c != '[' {
		// Not a document: take the rest of the line for the parser to name.
		for {
			c, ok := s.peek()
			if !ok || c == '\n' {
				break
			}
			keep(c)
			s.advance(c)
		}
		pc.data, pc.overLimit = s.buf, s.over()
		return pc, true
	}
	objectDoc := c == '{'
	depth := 0
	inString, escaped := false, false
	for {
		c, ok := s.peek()
		if !ok {
			break // truncated (or over the limit): the parser names it
		}
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"', c == '\n':
				inString = false
			}
			keep(c)
			s.advance(c)
			continue
		}
		// A '{' that starts a line inside a document is the next document: this one was cut.
		if c == '{' && s.col == 0 && depth > 0 && objectDoc {
			break
		}
		keep(c)
		s.advance(c)
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > maxDepth && pc.deepLine == 0 {
				pc.deepLine = s.line
			}
		case '}', ']':
			depth--
		}
		if depth == 0 {
			break
		}
	}
	pc.data, pc.overLimit = s.buf, s.over()
	return pc, true
}

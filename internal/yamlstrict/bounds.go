package yamlstrict

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/goccy/go-yaml/token"
)

// Limits on a YAML input, checked before it is parsed (Prescan, CheckTokens), so that a hostile
// or broken file is a problem in milliseconds rather than a process that grows until the
// machine gives out.
const (
	// MaxDepth bounds the nesting of a document.
	MaxDepth = 64
	// MaxKeys bounds the keys of one mapping: the parser's time and memory grow with the
	// square of a block mapping's keys (10 000 keys take 420 MB, 1 000 keys 4 MB). A mapping of
	// the library holds a dozen.
	MaxKeys = 1_000
	// MaxTokens bounds the tokens (words, numbers, punctuation, comments) a scenario file may
	// hold: the YAML lexer and parser allocate some 500 bytes per token, and a scenario's decoding
	// and checking up to 3 KB more (a list of 25 000 faults that are not mappings, each a problem),
	// so that a file of 50 000 tokens costs at most some 75 MB. A scenario of the library holds a
	// few hundred; a sweep listing 10 000 values holds 20 000.
	MaxTokens = 50_000
)

// Error is one thing wrong with a YAML input, and where: its line and column (0 when unknown),
// what it concerns (a field path, or "(syntax)", "(document)", "(file)"), the offending value as
// text and the rule it breaks. A caller reports it in its own terms, with the file's name.
type Error struct {
	Line, Col int
	// Override, when non-empty, is the override the value came from (Pos.Override) instead of
	// the input; Line and Col are then 0.
	Override string
	Path     string
	Value    string
	Rule     string
}

// Error formats e as line:col: path: value: rule.
func (e *Error) Error() string {
	return strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col) + ": " + e.Path + ": " + e.Value + ": " + e.Rule
}

// Prescan bounds what the YAML parser is given, reading the raw bytes once, before the parser
// sees them. The parser (github.com/goccy/go-yaml) allocates in proportion to the square of the
// nesting depth, before a tree's own MaxDepth check can run: 100 000 "[" in a 200 KB file would
// take more than 8 GiB. So Prescan refuses, at the line and column where the limit is passed,
//
//   - a character YAML does not allow (a control character other than tab and the line
//     breaks, DEL, a C1 control, U+FFFE) or bytes that are not UTF-8: the lexer would take them
//     into a value (or turn them into U+FFFD) without a word;
//   - collections nested more than MaxDepth deep: flow collections ([ and {) outside quoted
//     strings, comments and block scalars (| and >), inside block collections, whose levels
//     are the columns of their entries (-, ?) and keys (key:), as the parser reads them;
//   - a block mapping of more than MaxKeys keys, whose cost to the parser grows with their
//     square too (the tree refuses a flow mapping's, which costs the parser little);
//   - more than MaxTokens tokens: every run of characters between blanks and flow
//     punctuation counts, inside quotes and comments too (an overestimate that no quoting can
//     hide from), and so does each of [ ] { } , and a ":" before a blank.
//
// The nesting and key counts follow YAML's quotes, comments and block scalars only as far as a
// byte scan can, so a file can hide brackets or keys from them (a quote that is not a quote to
// YAML); CheckTokens, on the lexer's exact tokens, then catches them before the parser runs.
//
// doc names the input in the rules it reports ("a scenario file"). It returns the first problem
// found, nil when there is none.
func Prescan(data []byte, doc string) *Error {
	var (
		tokens      int
		depth       int     // flow collections open
		block       []level // block collections open
		quote       byte    // the quote of the quoted string being read, or 0
		blockIndent = -1    // ≥ 0: in a block scalar, whose lines are indented more than this
	)
	for start, lineNo := 0, 1; start < len(data); lineNo++ {
		end := start
		for end < len(data) && data[end] != '\n' && data[end] != '\r' {
			end++
		}
		text := data[start:end]
		start = end + 1
		if end+1 < len(data) && data[end] == '\r' && data[end+1] == '\n' {
			start++
		}
		indent := 0
		for indent < len(text) && text[indent] == ' ' {
			indent++
		}
		inBlockScalar := false
		if blockIndent >= 0 {
			if isBlank(text) || indent > blockIndent {
				inBlockScalar = true
			} else {
				blockIndent = -1
			}
		}
		if !inBlockScalar {
			if quote == 0 && depth == 0 && len(text) >= 3 && string(text[:3]) == "---" && (len(text) == 3 || isBlankByte(text[3])) {
				block = block[:0] // a new document
			}
			var e *Error
			e, quote, blockIndent = scanLine(lineNo, text, indent, &depth, &block, quote)
			if e != nil {
				return e
			}
		}
		// Characters, and tokens counted quote-agnostic.
		inWord, col := false, 0
		for i := 0; i < len(text); i++ {
			c := text[i]
			col++
			if c < 0x20 && c != '\t' || c >= 0x7f {
				r, size := utf8.DecodeRune(text[i:])
				if !yamlPrintable(r, size) {
					return &Error{Line: lineNo, Col: col, Path: "(syntax)", Value: badChar(text[i:], r, size),
						Rule: doc + " is UTF-8 text without control characters (tab and line breaks aside; a double-quoted string may write them as escapes, \"\\t\")"}
				}
				i += size - 1
			}
			switch c {
			case ' ', '\t':
				inWord = false
				continue
			case '[', ']', '{', '}', ',':
				inWord = false
				tokens++
			case ':':
				if i+1 == len(text) || blankOrFlow(text[i+1]) {
					inWord = false
					tokens++
				} else if !inWord {
					inWord = true
					tokens++
				}
			default:
				if !inWord {
					inWord = true
					tokens++
				}
			}
			if tokens > MaxTokens {
				return &Error{Line: lineNo, Col: col, Path: "(document)", Value: "more than " + strconv.Itoa(MaxTokens) + " tokens",
					Rule: fmt.Sprintf("%s holds at most %d tokens (words, numbers and punctuation)", doc, MaxTokens)}
			}
		}
	}
	return nil
}

// scanLine reads line lineNo for prescan's nesting count, from the state the previous lines
// left: depth flow collections and block's block collections open, inside a quoted string when
// quote is not 0. It returns the problem of the first collection opened deeper than MaxDepth
// or the first key past a mapping's MaxKeys, the quote the line ends in, and the indentation
// of a block scalar it starts (-1 for none).
func scanLine(lineNo int, text []byte, indent int, depth *int, block *[]level, quote byte) (_ *Error, _ byte, blockIndent int) {
	blockIndent = -1
	col := 0
	// Block structure is read on lines that start outside flow collections and strings.
	blockOK := *depth == 0 && quote == 0
	head := true // only blanks and entry indicators (- ?) so far on the line
	keyCol := indent + 1
	keySeen := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c&0xC0 != 0x80 {
			col++
		}
		switch quote {
		case '"':
			switch c {
			case '\\':
				i++ // the escaped character (on this line; an escaped line break ends it)
				if i < len(text) && text[i]&0xC0 != 0x80 {
					col++
				}
			case '"':
				quote = 0
			}
			continue
		case '\'':
			if c == '\'' {
				if i+1 < len(text) && text[i+1] == '\'' {
					i++ // '' is a quote inside the string
					col++
				} else {
					quote = 0
				}
			}
			continue
		}
		if isBlankByte(c) {
			continue
		}
		if (c == '-' || c == '?') && head && blockOK && (i+1 == len(text) || isBlankByte(text[i+1])) {
			*block = enter(*block, col, c == '-')
			if e := blockProblem(*block, 0, lineNo, col); e != nil {
				return e, quote, -1
			}
			continue
		}
		if head {
			head, keyCol = false, col
		}
		switch c {
		case '#':
			if i == 0 || isBlankByte(text[i-1]) {
				return nil, quote, -1 // a comment, to the end of the line
			}
		case '"', '\'':
			if tokenStart(text, i) {
				quote = c
			}
		case '[', '{':
			*depth++
			if len(*block)+*depth > MaxDepth {
				return nestingProblem(lineNo, col), quote, -1
			}
		case ']', '}':
			*depth = max(*depth-1, 0)
		case ':':
			if blockOK && *depth == 0 && !keySeen && (i+1 == len(text) || isBlankByte(text[i+1])) {
				keySeen = true
				*block = enter(*block, keyCol, false)
				if e := blockProblem(*block, 0, lineNo, keyCol); e != nil {
					return e, quote, -1
				}
				head = true // the value may start with entries of its own ("a: - b", which the parser nests)
			}
		case '|', '>':
			if *depth == 0 && tokenStart(text, i) && blockHeader(text[i+1:]) {
				return nil, quote, indent
			}
		}
	}
	return nil, quote, -1
}

// level is a block collection open at a column: a sequence (its entries' -) or a mapping (its
// keys), and the entries or keys read so far.
type level struct {
	col     int
	seq     bool
	entries int
}

// enter returns the block collections open once an entry (seq) or a key at col is read: the
// deeper ones end; a sequence may sit at its parent key's column; an entry or key at the open
// collection's column is another of its own. The last level is the entry's or key's.
func enter(block []level, col int, seq bool) []level {
	for len(block) > 0 {
		top := block[len(block)-1]
		if top.col > col || top.col == col && top.seq && !seq {
			block = block[:len(block)-1]
			continue
		}
		break
	}
	if n := len(block); n > 0 && block[n-1].col == col && block[n-1].seq == seq {
		block[n-1].entries++
		return block
	}
	return append(block, level{col: col, seq: seq, entries: 1})
}

// blockProblem reports a block collection, the last of block, opened deeper than MaxDepth, or
// a block mapping of more than MaxKeys keys, at the entry or key at line and col.
func blockProblem(block []level, flow, line, col int) *Error {
	if len(block)+flow > MaxDepth {
		return nestingProblem(line, col)
	}
	if top := block[len(block)-1]; !top.seq && top.entries > MaxKeys {
		return keysProblem(line, col)
	}
	return nil
}

// keysProblem is the problem of a mapping's key past MaxKeys.
func keysProblem(line, col int) *Error {
	return &Error{Line: line, Col: col, Path: "(syntax)", Value: "more than " + strconv.Itoa(MaxKeys) + " keys",
		Rule: fmt.Sprintf("a mapping holds at most %d keys", MaxKeys)}
}

// yamlPrintable reports whether r, decoded from size bytes, is a character YAML allows in a
// stream (its c-printable, line breaks apart, which do not reach here): tab, printable ASCII,
// NEL and the printable planes of Unicode, encoded as valid UTF-8.
func yamlPrintable(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size <= 1:
		return false // not UTF-8
	case r == '\t' || r >= 0x20 && r <= 0x7e || r == 0x85:
		return true
	}
	return r >= 0xa0 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd || r >= 0x10000 && r <= 0x10ffff
}

// badChar shows the character yamlPrintable refused: "\x00", "\u0080", or the byte that is not
// UTF-8, "\xff".
func badChar(b []byte, r rune, size int) string {
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf(`"\x%02x" (not UTF-8)`, b[0])
	}
	return strconv.Quote(string(r))
}

func blankOrFlow(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '[', ']', '{', '}', ',':
		return true
	}
	return false
}

// nestingProblem is the problem of a collection opened MaxDepth+1 levels deep.
func nestingProblem(line, col int) *Error {
	return &Error{Line: line, Col: col, Path: "(syntax)", Value: "(nesting)",
		Rule: fmt.Sprintf("nested deeper than %d levels", MaxDepth)}
}

// tokenStart reports whether text[i] starts a token: it opens the line or follows a blank or
// flow punctuation.
func tokenStart(text []byte, i int) bool {
	if i == 0 {
		return true
	}
	switch text[i-1] {
	case ' ', '\t', '[', '{', ',':
		return true
	}
	return false
}

// blockHeader reports whether rest, what follows a | or >, is the rest of a block scalar's
// header: chomping and indentation indicators, then blanks or a comment.
func blockHeader(rest []byte) bool {
	i := 0
	for i < len(rest) && (rest[i] == '-' || rest[i] == '+' || rest[i] >= '1' && rest[i] <= '9') {
		i++
	}
	for ; i < len(rest); i++ {
		switch rest[i] {
		case ' ', '\t', '\r':
		case '#':
			return i > 0 && isBlankByte(rest[i-1])
		default:
			return false
		}
	}
	return true
}

func isBlank(text []byte) bool {
	for _, c := range text {
		if !isBlankByte(c) {
			return false
		}
	}
	return true
}

func isBlankByte(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// CheckTokens measures the nesting of the lexer's tokens exactly as far as flow collections
// go, and of block collections by the columns of their entries and keys, and reports the first
// token that opens a collection more than MaxDepth deep, or that is a block mapping's key past
// MaxKeys. It runs after the lexer, whose cost is linear, and before the parser, whose cost is
// not.
func CheckTokens(tokens token.Tokens) *Error {
	var block []level
	flow := 0
	for i, tk := range tokens {
		if tk == nil || tk.Position == nil {
			continue
		}
		p := tk.Position
		switch tk.Type {
		case token.DocumentHeaderType:
			block, flow = block[:0], 0
		case token.SequenceStartType, token.MappingStartType:
			flow++
			if len(block)+flow > MaxDepth {
				return nestingProblem(p.Line, p.Column)
			}
		case token.SequenceEndType, token.MappingEndType:
			flow = max(flow-1, 0)
		case token.SequenceEntryType, token.MappingKeyType, token.MappingValueType:
			if flow > 0 {
				continue
			}
			col := p.Column
			if tk.Type == token.MappingValueType {
				// A mapping's level is its keys' column: the key before the ":".
				if i == 0 || tokens[i-1].Position == nil {
					continue
				}
				col = tokens[i-1].Position.Column
			}
			block = enter(block, col, tk.Type == token.SequenceEntryType)
			if e := blockProblem(block, flow, p.Line, p.Column); e != nil {
				return e
			}
		}
	}
	return nil
}

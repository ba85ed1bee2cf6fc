// Package yamlstrict reads YAML strictly, with positions, within bounds, and writes it back as
// a canonical text. It knows YAML and Go values, not what a document means: a caller adds its
// own vocabulary (value syntaxes, enumerations, defaults, tag options) as Hooks.
//
//   - Input.Parse parses one document into a tree of Nodes, each with its line and column (or
//     the override it came from, Pos.Override); Node.Get, Node.Lookup and Node.Set read and
//     edit it by field path (clients[0].count), as overrides do.
//   - A Decoder reads a tree into Go values by their yaml tags, strictly: an unknown key (with
//     the nearest known one), or a value of the wrong shape, is an *Error at its position, and
//     every value's position is kept (Decoder.At) for the caller's later checks.
//   - Encode builds the canonical tree of a value (fields in declaration order, mapping keys
//     sorted) and Text writes it.
//
// The YAML parser (github.com/goccy/go-yaml) allocates in proportion to the square of a
// document's nesting and of a block mapping's keys, and its lexer some 25–50 bytes per byte of
// input, so a broken or hostile file is refused on its bytes, before parsing:
//
//   - ReadFileBounded and ReadBounded read a regular file, or a stream, of at most a given size,
//     never more than a byte past it (a device such as /dev/zero, a pipe or a directory is
//     refused before it is opened);
//   - Prescan refuses, on the raw bytes, characters YAML does not allow, collections nested
//     deeper than MaxDepth, block mappings of more than MaxKeys keys and more than MaxTokens
//     tokens;
//   - CheckTokens measures the lexer's exact tokens for nesting and keys, before the parser
//     runs; the tree holds at most MaxNodes nodes, aliases expanded.
//
// Input.Parse applies them all. A problem is an *Error at its line and column, which the caller
// reports in its own terms (package scenarios as one of its Problems, with the file's name).
package yamlstrict

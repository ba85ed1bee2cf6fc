// Package yamlstrict bounds YAML input before a parser sees it. The YAML parser
// (github.com/goccy/go-yaml) allocates in proportion to the square of a document's nesting and
// of a block mapping's keys, and its lexer some 25–50 bytes per byte of input, so a broken or
// hostile file must be refused on its bytes, not after parsing:
//
//   - ReadFileBounded and ReadBounded read a regular file, or a stream, of at most a given size,
//     never more than a byte past it (a device such as /dev/zero, a pipe or a directory is
//     refused before it is opened);
//   - Prescan refuses, on the raw bytes, characters YAML does not allow, collections nested
//     deeper than MaxDepth, block mappings of more than MaxKeys keys and more than MaxTokens
//     tokens;
//   - CheckTokens measures the lexer's exact tokens for nesting and keys, before the parser runs.
//
// A problem is an *Error at its line and column, which the caller reports in its own terms
// (package scenarios as one of its Problems). The package knows YAML, not scenarios.
package yamlstrict

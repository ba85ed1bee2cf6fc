package yamlstrict_test

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml/lexer"

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
)

// A document nested one level too deep (the mapping is a level) is refused on its bytes, at the
// bracket that passes the limit, before any parser runs; CheckTokens finds it on the tokens.
func ExamplePrescan() {
	deep := "a: " + strings.Repeat("[", yamlstrict.MaxDepth+1) + strings.Repeat("]", yamlstrict.MaxDepth+1) + "\n"
	fmt.Println(yamlstrict.Prescan([]byte(deep), "a file"))
	fmt.Println(yamlstrict.Prescan([]byte("a: [1, 2]\n"), "a file"))
	fmt.Println(yamlstrict.CheckTokens(lexer.Tokenize(deep)))
	// Output:
	// 1:67: (syntax): (nesting): nested deeper than 64 levels
	// <nil>
	// 1:67: (syntax): (nesting): nested deeper than 64 levels
}

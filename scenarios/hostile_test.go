package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/overloadsim/overloadsim/internal/yamlstrict"
)

// hostileAllocLimit bounds what Parse may allocate on one hostile input, all of it garbage
// included (runtime.MemStats.TotalAlloc): a hostile file must cost a validate little.
const hostileAllocLimit = 64 << 20

// maxMessageLine bounds each line of a problem list: a megabyte of input gives a line of a
// terminal's width or so, not a megabyte.
const maxMessageLine = 1000

// hostileCase is one hostile or malformed input. want is text every error must contain (the
// field path, or (syntax), (document), (file)); valid cases must parse (bench's TestCostHostile
// checks what the huge ones cost).
type hostileCase struct {
	name  string
	src   string
	want  string
	valid bool
}

// nest returns depth copies of open followed by the same number of close, around inner.
func nest(open, inner, close string, depth int) string {
	return strings.Repeat(open, depth) + inner + strings.Repeat(close, depth)
}

// blockMaps returns depth block mappings, each indented one space deeper than its parent.
func blockMaps(depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	return b.String()
}

// blockSeqs returns depth block sequences, each an entry of its parent, one per line.
func blockSeqs(depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat(" ", 2*i) + "-\n")
	}
	return b.String()
}

// mixedBlocks returns depth levels of "- k:" each a mapping in a list of its parent mapping.
func mixedBlocks(depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat(" ", 4*i) + "- k:\n")
	}
	return b.String()
}

// aliasBomb returns levels of anchors, each a list of width aliases of the one before.
func aliasBomb(levels, width int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [" + strings.TrimSuffix(strings.Repeat("x, ", width), ", ") + "]\n")
	for l := 1; l < levels; l++ {
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", l, l, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", l-1), width), ", "))
	}
	return b.String()
}

// groups returns n client groups of count clients each, at rate each.
func groups(n, count int, rate string) string {
	var b strings.Builder
	b.WriteString("clients:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: g%d, count: %d, workload: {rate: %s}}\n", i, count, rate)
	}
	return b.String()
}

// hostileCases returns the cases, for a scenario file in dir, which holds a directory adir.
// keys returns n lines "kI: 1" after indent.
func keys(indent string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%sk%d: 1\n", indent, i)
	}
	return b.String()
}

// sweepParams returns n sweep parameters of one value each: the counts of groups 0 to n-1.
func sweepParams(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "    clients[%d].count: [2]\n", i)
	}
	return b.String()
}

func hostileCases(dir string) []hostileCase {
	big := strings.Repeat("x", 900_000)
	withNode := func(node string) string { return hostileBase + "topology:\n  nodes: [" + node + "]\n" }
	withGroup := func(group string) string { return "duration: 10s\nclients:\n  - " + group + "\n" }
	withRate := func(rate string) string { return withGroup("{name: app, workload: {rate: " + rate + "}}") }
	return []hostileCase{
		// Nesting: refused before the parser, whose cost grows with its square.
		{name: "100 000 [", src: "duration: " + strings.Repeat("[", 100_000), want: "(nesting)"},
		{name: "100 000 [ closed", src: "duration: " + nest("[", "1", "]", 100_000), want: "(nesting)"},
		{name: "100 000 {", src: "duration: " + strings.Repeat("{", 100_000), want: "(nesting)"},
		{name: "100 000 {a: ", src: "duration: " + strings.Repeat("{a: ", 100_000), want: "(nesting)"},
		{name: "50 000 [{ alternating", src: "a: " + strings.Repeat("[{a: ", 50_000), want: "(nesting)"},
		{name: "65 [ (one too deep)", src: hostileBase + "sweep: " + nest("[", "", "]", yamlstrict.MaxDepth+1), want: "(nesting)"},
		{name: "1 000 block mappings", src: blockMaps(1000), want: "(nesting)"},
		{name: "70 block mappings", src: blockMaps(70), want: "(nesting)"},
		{name: "100 000 compact block sequences", src: "a: " + strings.Repeat("- ", 100_000) + "x\n", want: "(nesting)"},
		{name: "100 000 compact sequences at the top", src: strings.Repeat("- ", 100_000) + "x\n", want: "(nesting)"},
		{name: "200 indented block sequences", src: blockSeqs(200), want: "(nesting)"},
		{name: "100 mappings in lists", src: mixedBlocks(100), want: "(nesting)"},
		{name: "brackets behind an apostrophe", src: "a: [x 'y, " + strings.Repeat("[", 40_000), want: "(nesting)"},
		{name: "brackets after a quote in a block scalar", src: "a: |\n  'open\nb: " + strings.Repeat("[", 40_000), want: "(nesting)"},
		{name: "brackets after a double quote in a flow", src: "a: [\"x\", [\"]\", " + strings.Repeat("[\"]\", ", 10_000), want: "(nesting)"},
		{name: "60 [ in an unknown field", src: hostileBase + "extra: " + nest("[", "1", "]", 60), want: "(top level)"},
		// Keys: the parser's cost grows with the square of a block mapping's.
		{name: "5 000 keys in a block mapping", src: withGroup("name: a\n    workload: {rate: 1/s}\n    mix:\n" + keys("      ", 5_000)), want: "(syntax)"},
		{name: "30 000 top-level keys", src: keys("", 30_000), want: "(syntax)"},
		{name: "5 000 keys behind an apostrophe", src: "a: x 'y\n" + keys("", 5_000), want: "(syntax)"},
		{name: "2 000 keys in a flow mapping", src: withGroup("{name: a, workload: {rate: 1/s}, mix: {" + strings.ReplaceAll(keys("", 2_000), "\n", ", ") + "}}"), want: "(syntax)"},
		// Size.
		{name: "larger than MaxFileBytes", src: hostileBase + "#" + strings.Repeat(" ", MaxFileBytes), want: "(file)"},
		{name: "60 000 flow items", src: "a: [" + strings.Repeat("1,", 60_000) + "]", want: "(document)"},
		{name: "60 000 comment lines", src: strings.Repeat("#\n", 60_000) + hostileBase, want: "(document)"},
		{name: "30 000 empty documents", src: strings.Repeat("---\n", 30_000), want: "clients"},
		{name: "a 900 KB name", src: hostileBase + "name: " + big + "\n", want: "name"},
		{name: "a 900 KB key", src: hostileBase + big + ": 1\n", want: "(top level)"},
		{name: "a 900 KB mix key", src: withGroup("{name: app, workload: {rate: 1/s}, mix: {" + big + ": 1}}"), want: "clients[0].mix"},
		{name: "a 900 KB node name", src: withNode("{name: " + big + "}"), want: "topology.nodes[0].name"},
		{name: "a 900 KB duration", src: "duration: " + big + "\n", want: "duration"},
		{name: "a 400 KB duplicate key", src: big[:400_000] + ": 1\n" + big[:400_000] + ": 2\n", want: "(syntax)"},
		// Aliases.
		{name: "billion laughs", src: aliasBomb(9, 9), want: "(syntax)"},
		{name: "wide alias bomb", src: aliasBomb(3, 100), want: "(syntax)"},
		{name: "alias bomb of mappings", src: "a: &a {x: 1, y: 2, z: 3}\nb: &b [" + strings.TrimSuffix(strings.Repeat("*a, ", 20_000), ", ") + "]\n", want: "(syntax)"},
		{name: "unknown alias", src: hostileBase + "seed: *nowhere\n", want: "(syntax)"},
		{name: "merge key", src: "base: &b {duration: 10s}\n<<: *b\n", want: "(syntax)"},
		// Encodings and bytes.
		{name: "NUL in a value", src: "duration: 10s\x00\n" + hostileBase[len("duration: 10s\n"):], want: "(syntax)"},
		{name: "NUL in a key", src: hostileBase + "na\x00me: x\n", want: "(syntax)"},
		{name: "invalid UTF-8 in a value", src: hostileBase + "seed: \xff\xfe\n", want: "(syntax)"},
		{name: "invalid UTF-8 in a key", src: hostileBase + "\xc3\x28: 1\n", want: "(syntax)"},
		{name: "control character in a value", src: hostileBase + "seed: 1\x01\n", want: "(syntax)"},
		{name: "NUL in a description", src: hostileBase + "description: a\x00b\n", want: "(syntax)"},
		{name: "escape in a comment", src: hostileBase + "# \x1b[2J\n", want: "(syntax)"},
		{name: "C1 control in a claim", src: hostileBase + "claim: \u0090\n", want: "(syntax)"},
		{name: "a surrogate half", src: hostileBase + "claim: \xed\xa0\x80\n", want: "(syntax)"},
		{name: "tab indentation", src: "clients:\n\t- name: app\n", want: "(syntax)"},
		{name: "carriage returns only", src: "duration: 10s\rclients: []\r", want: "clients"},
		{name: "a BOM in the middle", src: hostileBase + "\ufeffseed: 1\n", want: "(top level)"},
		// Duplicate keys.
		{name: "duplicate top-level key", src: hostileBase + "duration: 20s\n", want: "(syntax)"},
		{name: "duplicate key in a group", src: withGroup("{name: a, name: b, workload: {rate: 1/s}}"), want: "(syntax)"},
		{name: "duplicate key in a block group", src: "duration: 10s\nclients:\n  - name: a\n    workload: {rate: 1/s}\n    name: b\n", want: "(syntax)"},
		// Wrong shapes and types.
		{name: "top level is a scalar", src: "just text\n", want: "(top level)"},
		{name: "top level is a list", src: "- a\n- b\n", want: "(top level)"},
		{name: "duration is a list", src: "duration: [1s]\nclients: []\n", want: "duration"},
		{name: "duration is a mapping", src: "duration: {s: 1}\n", want: "duration"},
		{name: "clients is a scalar", src: "clients: app\n", want: "clients"},
		{name: "clients is a mapping", src: "clients: {name: app}\n", want: "clients"},
		{name: "topology is a number", src: hostileBase + "topology: 5\n", want: "topology"},
		{name: "nodes is a string", src: hostileBase + "topology: {nodes: db}\n", want: "topology.nodes"},
		{name: "count is text", src: withGroup("{name: a, count: ten, workload: {rate: 1/s}}"), want: "clients[0].count"},
		{name: "count is a fraction", src: withGroup("{name: a, count: 1.5, workload: {rate: 1/s}}"), want: "clients[0].count"},
		{name: "key is a list", src: hostileBase + "[a, b]: 1\n", want: "(syntax)"},
		{name: "explicit complex key", src: hostileBase + "? {a: 1}\n: 2\n", want: "(syntax)"},
		{name: "bool as yes", src: withGroup("{name: a, workload: {rate: 1/s}, driver: {retryReads: yes}}"), want: "clients[0].driver.retryReads"},
		// Numbers and durations out of range.
		{name: "seed negative", src: hostileBase + "seed: -1\n", want: "seed"},
		{name: "seed 2^64", src: hostileBase + "seed: 18446744073709551616\n", want: "seed"},
		{name: "count 2^63", src: withGroup("{name: a, count: 9223372036854775808, workload: {rate: 1/s}}"), want: "clients[0].count"},
		{name: "count above the limit", src: withGroup("{name: a, count: 1000001, workload: {rate: 1/s}}"), want: "clients[0].count"},
		{name: "count -0", src: withGroup("{name: a, count: -0, workload: {rate: 1/s}}"), want: "clients[0].count"},
		{name: "duration 1e400s", src: "duration: 1e400s\n", want: "duration"},
		{name: "duration 2^63 ns", src: "duration: 9223372036854775808ns\n", want: "duration"},
		{name: "duration -0s", src: "duration: -0s\n" + hostileBase[len("duration: 10s\n"):], want: "duration"},
		{name: "duration NaN", src: "duration: .nan\n", want: "duration"},
		{name: "duration infinite", src: "duration: .inf\n", want: "duration"},
		{name: "duration without a unit", src: "duration: 1000000000\n", want: "duration"},
		{name: "interval 0s", src: hostileBase + "interval: 0s\n", want: "interval"},
		{name: "warmup negative", src: hostileBase + "warmup: -1s\n", want: "warmup"},
		{name: "rate 1e309/s", src: withRate("1e309/s"), want: "clients[0].workload.rate"},
		{name: "rate negative", src: withRate("-5/s"), want: "clients[0].workload.rate"},
		{name: "rate NaN", src: withRate("NaN/s"), want: "clients[0].workload.rate"},
		{name: "rate without a unit", src: withRate("1000"), want: "clients[0].workload.rate"},
		{name: "mix weight 1e400", src: withGroup("{name: a, workload: {rate: 1/s}, mix: {find: 1e400}}"), want: "clients[0].mix.find"},
		{name: "mix weight NaN", src: withGroup("{name: a, workload: {rate: 1/s}, mix: {find: .nan}}"), want: "clients[0].mix.find"},
		{name: "USL sigma infinite", src: withNode("{name: db, uslSigma: .inf}"), want: "topology.nodes[0].uslSigma"},
		{name: "workers 2^63", src: withNode("{name: db, workers: 9223372036854775808}"), want: "topology.nodes[0].workers"},
		{name: "timeoutMS 1e300", src: withGroup("{name: a, workload: {rate: 1/s}, driver: {timeoutMS: 1e300}}"), want: "clients[0].driver.timeoutMS"},
		{name: "sweep range of 1e18 values", src: hostileBase + "sweep: {parameters: {seed: '1:1000000000000000000:1'}}\n", want: "sweep.parameters.seed"},
		{name: "sweep of 1e8 points", src: hostileBase + "sweep: {parameters: {seed: '1:10000:1', \"clients[0].count\": '1:10000:1'}}\n", want: "sweep.parameters"},
		{name: "sweep of 10 000 values", src: hostileBase + "sweep: {parameters: {seed: '1:10000:1'}}\n", valid: true},
		{name: "sweep of 10 000 list values", src: hostileBase + "sweep: {parameters: {seed: [" + strings.Repeat("1, ", 9_999) + "1]}}\n", valid: true},
		{name: "sweep of 10 000 values, the last too long", src: strings.Replace(hostileBase, "10s", "5s", 1) + "sweep: {parameters: {interval: 1ms:10000ms:1ms}}\n", want: "sweep.parameters.interval"},
		{name: "sweep of 500 parameters on 500 groups", src: "duration: 10s\n" + groups(500, 1, "1/s") + "sweep:\n  parameters:\n" + sweepParams(500), valid: true},
		{name: "sweep varying itself", src: hostileBase + "sweep: {parameters: {sweep.replications: [1, 2]}}\n", want: "sweep.parameters"},
		// Empty and missing.
		{name: "empty file", src: "", want: "clients"},
		{name: "only a document marker", src: "---\n", want: "clients"},
		{name: "empty client list", src: "duration: 10s\nclients: []\n", want: "clients"},
		{name: "empty node list", src: hostileBase + "topology: {nodes: []}\n", want: "topology.nodes"},
		{name: "empty mix", src: withGroup("{name: a, workload: {rate: 1/s}, mix: {}}"), want: "clients[0].mix"},
		{name: "two documents", src: hostileBase + "---\n" + hostileBase, want: "(document)"},
		// Unknown fields at every level.
		{name: "unknown top-level field", src: hostileBase + "durations: 1s\n", want: "(top level)"},
		{name: "unknown topology field", src: hostileBase + "topology: {nodez: []}\n", want: "topology"},
		{name: "unknown node field", src: withNode("{name: db, wrokers: 3}"), want: "topology.nodes[0]"},
		{name: "unknown driver field", src: withGroup("{name: a, workload: {rate: 1/s}, driver: {poolSize: 3}}"), want: "clients[0].driver"},
		{name: "unknown workload field", src: withGroup("{name: a, workload: {rate: 1/s, burst: 3}}"), want: "clients[0].workload"},
		// Names.
		{name: "name with NUL", src: hostileBase + "name: \"a\\0b\"\n", want: "name"},
		{name: "name with a newline", src: hostileBase + "name: \"a\\nb\"\n", want: "name"},
		{name: "name with a slash", src: hostileBase + "name: a/b\n", want: "name"},
		{name: "name climbing out", src: hostileBase + "name: ../../etc\n", want: "name"},
		{name: "name dot", src: hostileBase + "name: '.'\n", want: "name"},
		{name: "name of 101 bytes", src: hostileBase + "name: " + strings.Repeat("n", 101) + "\n", want: "name"},
		{name: "name with a bidi override", src: hostileBase + "name: \"a\\u202eb\"\n", want: "name"},
		{name: "name with a tab", src: hostileBase + "name: \"a\\tb\"\n", want: "name"},
		{name: "group name with NUL", src: withGroup("{name: \"a\\0\", workload: {rate: 1/s}}"), want: "clients[0].name"},
		{name: "node name of 1000 bytes", src: withNode("{name: " + strings.Repeat("d", 1000) + "}"), want: "topology.nodes[0].name"},
		// Files the scenario names.
		{name: "empirical(/dev/zero)", src: withNode("{name: db, service: empirical(/dev/zero)}"), want: "topology.nodes[0].service"},
		{name: "trace(/dev/zero)", src: withRate("trace(/dev/zero)"), want: "clients[0].workload.rate"},
		{name: "empirical of a directory", src: withNode("{name: db, service: empirical(adir)}"), want: "topology.nodes[0].service"},
		{name: "trace of a directory", src: withRate("trace(" + dir + ")"), want: "clients[0].workload.rate"},
		{name: "empirical climbing out", src: withNode("{name: db, service: empirical(../../etc/passwd)}"), want: "topology.nodes[0].service"},
		{name: "trace of an empty name", src: withRate("trace()"), want: "clients[0].workload.rate"},
		// Valid, though they read as hostile: the pre-scan leaves quotes, comments and block
		// scalars alone; huge runs are valid and cost a lot, which bench.Estimate says at once.
		{name: "brackets in a quoted string", src: hostileBase + "description: \"" + strings.Repeat("[", 100) + "\"\n", valid: true},
		{name: "brackets in a single-quoted string", src: hostileBase + "claim: '" + strings.Repeat("{", 100) + "'\n", valid: true},
		{name: "brackets in a comment", src: hostileBase + "# " + strings.Repeat("[", 100) + "\n", valid: true},
		{name: "brackets in a block scalar", src: hostileBase + "description: |\n  " + strings.Repeat("[", 100) + "\n  it's fine\n", valid: true},
		{name: "BOM at the start", src: "\ufeff" + hostileBase, valid: true},
		{name: "rate 0/s", src: withRate("0/s"), valid: true},
		{name: "rate 1e10/s", src: withRate("1e10/s"), want: "clients[0].workload.rate"},
		{name: "rate 1e9/s for 1e9 s", src: "duration: 1000000000s\nclients: [{name: a, workload: {rate: 1e9/s}}]\n", valid: true},
		{name: "duration 1e9 s", src: strings.Replace(hostileBase, "10s", "1000000000s", 1), valid: true},
		{name: "interval 1ns", src: hostileBase + "interval: 1ns\n", valid: true},
		{name: "100 groups of 100 000 clients", src: "duration: 10s\n" + groups(100, 100_000, "1000/s"), valid: true},
	}
}

// TestHostile parses each hostile input: an invalid one is an error matching ErrInvalid whose
// every line names where (the field's path, or (syntax), (document), (file)), is valid UTF-8
// without control characters, and is shorter than maxMessageLine; a valid one parses. No input may allocate more than hostileAllocLimit.
func TestHostile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "hostile.yaml")
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := hostileCases(dir)
	if len(cases) < 60 {
		t.Fatalf("%d hostile cases, want at least 60", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.src)
			var sc *Scenario
			var err error
			alloc := measureAlloc(func() { sc, err = Parse(name, data) })
			if alloc > hostileAllocLimit {
				t.Errorf("Parse allocated %d MiB, want at most %d MiB", alloc>>20, hostileAllocLimit>>20)
			}
			if tc.valid {
				if err != nil {
					t.Fatalf("Parse: %.2000v; want it valid", err)
				}
				t.Logf("%d KiB allocated", alloc>>10)
				return
			}
			if err == nil {
				t.Fatalf("Parse = %s, nil; want an error mentioning %s", sc.Name, tc.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %T does not match ErrInvalid", err)
			}
			msg := err.Error()
			if msg == "" {
				t.Fatal("empty message")
			}
			t.Logf("%d KiB allocated:\n%s", alloc>>10, msg)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message does not mention %s:\n%.2000s", tc.want, msg)
			}
			for _, line := range strings.Split(msg, "\n") {
				if len(line) >= maxMessageLine {
					t.Errorf("a line of %d bytes: %.300q…", len(line), line)
				}
				if !utf8.ValidString(line) || strings.ContainsFunc(line, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
					t.Errorf("a line with bytes that do not print: %.300q", line)
				}
			}
		})
	}
}

// measureAlloc returns the bytes f allocates, garbage included.
func measureAlloc(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

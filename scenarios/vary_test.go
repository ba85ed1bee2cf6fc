package scenarios

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestSplitValues: a --vary list splits at its top-level commas only; brackets, braces,
// parentheses and quotes keep their commas, and what does not balance is an error at its
// character.
func TestSplitValues(t *testing.T) {
	tests := []struct {
		list string
		want []string
		err  string // the error's message, when the list is refused
		pos  int    // and its position
	}{
		{list: "1,2,3", want: []string{"1", "2", "3"}},
		{list: " none , mongodb-2026-07 ", want: []string{"none", "mongodb-2026-07"}},
		{list: "1s:5s:1s", want: []string{"1s:5s:1s"}},
		{list: "lognormal(1ms, 0.5),exp(2ms)", want: []string{"lognormal(1ms, 0.5)", "exp(2ms)"}},
		{list: "{kind: step, before: 1000/s, after: 3000/s, at: 10s},2000/s",
			want: []string{"{kind: step, before: 1000/s, after: 3000/s, at: 10s}", "2000/s"}},
		{list: "[1s, 2s]", want: []string{"[1s, 2s]"}},
		{list: "[1s, 2s], [3s]", want: []string{"[1s, 2s]", "[3s]"}},
		{list: `"a,b",c`, want: []string{`"a,b"`, "c"}},
		{list: `'a,b', 'it''s, here'`, want: []string{`'a,b'`, `'it''s, here'`}},
		{list: `"say \"hi, you\"",x`, want: []string{`"say \"hi, you\""`, "x"}},
		{list: `{a: "x]"}, b`, want: []string{`{a: "x]"}`, "b"}},
		{list: "don't,won't", want: []string{"don't", "won't"}},
		{list: "trace(a,b.csv),mixed(exp(1ms), 0.5, [1, 2])", want: []string{"trace(a,b.csv)", "mixed(exp(1ms), 0.5, [1, 2])"}},
		{list: "μ=1,λ=2", want: []string{"μ=1", "λ=2"}},

		{list: "lognormal(1ms, 0.5", err: `'(' at character 10 is never closed`, pos: 10},
		{list: "[1s, 2s", err: `'[' at character 1 is never closed`, pos: 1},
		{list: "{a: [1, 2}", err: `'}' at character 10 does not close '[' at character 5`, pos: 10},
		{list: "exp(2ms)),1", err: `')' at character 9 closes nothing`, pos: 9},
		{list: "λ,μ]", err: `']' at character 4 closes nothing`, pos: 4},
		{list: `a,"b,c`, err: `the quote '"' at character 3 is never closed`, pos: 3},
		{list: `a, 'b`, err: `the quote '\'' at character 4 is never closed`, pos: 4},
		{list: "1,,2", err: "value 2 is empty: nothing before the comma at character 3", pos: 3},
		{list: ",1", err: "value 1 is empty: nothing before the comma at character 1", pos: 1},
		{list: "1,2, ", err: "value 3 is empty: nothing after the comma at character 4", pos: 4},
		{list: "  ", err: "no values: want a,b,c, [a, b, c] or from:to:step", pos: 1},
	}
	for _, tc := range tests {
		got, err := splitValues(tc.list)
		if tc.err == "" {
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("splitValues(%q) = %q, %v; want %q", tc.list, got, err, tc.want)
			}
			continue
		}
		var le *listError
		if !errors.As(err, &le) || le.msg != tc.err || le.pos != tc.pos {
			t.Errorf("splitValues(%q) = %q, %v; want the error %q at %d", tc.list, got, err, tc.err, tc.pos)
		}
	}
}

// TestVaryValueLists: --vary values that hold commas become one sweep value each, read as YAML
// as --set reads them, and every point's scenario gets the value whole.
func TestVaryValueLists(t *testing.T) {
	tests := []struct {
		path, spec string
		want       []string                  // the sweep's values, as results record them
		check      func(*Scenario, int) bool // the point's scenario has value i
	}{
		{"topology.nodes[0].service", "lognormal(1ms, 0.5),exp(2ms)",
			[]string{`"lognormal(1ms, 0.5)"`, "exp(2ms)"},
			func(sc *Scenario, i int) bool {
				return sc.Topology.Nodes[0].Service.String() == []string{"lognormal(1ms, 0.5)", "exp(2ms)"}[i]
			}},
		{"topology.nodes[0].service", "[lognormal(1ms, 0.5), exp(2ms)]",
			[]string{`"lognormal(1ms, 0.5)"`, "exp(2ms)"},
			func(sc *Scenario, i int) bool {
				return sc.Topology.Nodes[0].Service.String() == []string{"lognormal(1ms, 0.5)", "exp(2ms)"}[i]
			}},
		{"clients[0].workload.rate", "{kind: step, before: 1000/s, after: 3000/s, at: 10s},2000/s",
			[]string{"{kind: step, before: 1000/s, after: 3000/s, at: 10s}", "2000/s"},
			func(sc *Scenario, i int) bool {
				r := sc.Clients[0].Workload.Rate
				if i == 0 {
					return r.Kind == "step" && r.Before == 1000 && r.After == 3000 && r.At.String() == "10s"
				}
				return r.Kind == "constant" && r.Rate == 2000
			}},
		{"warmup", "[1s, 2s]", []string{"1s", "2s"},
			func(sc *Scenario, i int) bool { return sc.Warmup.Fixed.String() == []string{"1s", "2s"}[i] }},
		{"warmup", "[1s, {{auto}}]", nil, nil}, // not YAML: refused below
		{"description", `"a, b",c, 'd, ''e'''`, []string{`"a, b"`, "c", `"d, 'e'"`},
			func(sc *Scenario, i int) bool { return sc.Description == []string{"a, b", "c", "d, 'e'"}[i] }},
		{"clients[0].count", "1:3:1", []string{"1", "2", "3"},
			func(sc *Scenario, i int) bool { return sc.Clients[0].Count == i+1 }},
		{"clients[0].count", "5", []string{"5"},
			func(sc *Scenario, i int) bool { return sc.Clients[0].Count == 5 }},
	}
	for _, tc := range tests {
		sc, err := Lookup("healthy")
		if err != nil {
			t.Fatal(err)
		}
		err = sc.Vary(tc.path, tc.spec)
		if tc.want == nil {
			if err == nil {
				t.Errorf("Vary(%s, %s) = nil, want an error", tc.path, tc.spec)
			}
			continue
		}
		if err != nil {
			t.Errorf("Vary(%s, %s): %v", tc.path, tc.spec, err)
			continue
		}
		if got := sc.Sweep.Parameters[tc.path].Values; !slices.Equal(got, tc.want) {
			t.Errorf("Vary(%s, %s): values %q, want %q", tc.path, tc.spec, got, tc.want)
		}
		points, err := sc.Points()
		if err != nil || len(points) != len(tc.want) {
			t.Errorf("Vary(%s, %s): Points() = %d points, %v; want %d", tc.path, tc.spec, len(points), err, len(tc.want))
			continue
		}
		for i, p := range points {
			if !tc.check(p.Scenario, i) {
				t.Errorf("Vary(%s, %s): point %d (%v) does not have its value", tc.path, tc.spec, i, p.Params)
			}
		}
		// The canonical text keeps each value whole: it reads back to the same sweep.
		again, err := Parse("again.yaml", []byte(sc.String()))
		if err != nil || !slices.Equal(again.Sweep.Parameters[tc.path].Values, tc.want) {
			t.Errorf("Vary(%s, %s): the canonical text reads back as %v, %v", tc.path, tc.spec, again, err)
		}
	}
}

// TestVaryErrors: a list that does not balance, or a bad value, is a Problem of the --vary,
// named with its position; a bad value's message says what is wrong once, not the override's
// path and value a second time; the scenario is unchanged.
func TestVaryErrors(t *testing.T) {
	tests := []struct{ path, spec, want string }{
		{"topology.nodes[0].service", "lognormal(1ms, 0.5,exp(2ms)",
			"--vary topology.nodes[0].service=lognormal(1ms, 0.5,exp(2ms): sweep.parameters.topology.nodes[0].service: lognormal(1ms, 0.5,exp(2ms): '(' at character 10 is never closed"},
		{"clients[0].workload.rate", "{kind: step, before: 1000/s]",
			"--vary clients[0].workload.rate={kind: step, before: 1000/s]: sweep.parameters.clients[0].workload.rate: {kind: step, before: 1000/s]: ']' at character 28 does not close '{' at character 1"},
		{"warmup", "[1s, 2s", "--vary warmup=[1s, 2s: sweep.parameters.warmup: [1s, 2s: '[' at character 1 is never closed"},
		{"warmup", "[1s,,2s]", "--vary warmup=[1s,,2s]: sweep.parameters.warmup: [1s,,2s]: value 2 is empty: nothing before the comma at character 5"},
		{"description", `"a, b,c`, `--vary description="a, b,c: sweep.parameters.description: "a, b,c: the quote '"' at character 1 is never closed`},
		{"clients[0].count", "", `--vary clients[0].count=: sweep.parameters.clients[0].count: "": no values: want a,b,c, [a, b, c] or from:to:step`},
		// A rule broken by one value: the rule, without the path and value again.
		{"clients[0].count", "1,0", "--vary clients[0].count=1,0: sweep.parameters.clients[0].count: 0: must be in [1, 1000000]"},
		// A rule of another field broken by a value: that field is named.
		{"duration", "1s,20s", "--vary duration=1s,20s: sweep.parameters.duration: 1s: warmup: 2s: must be in [0s, duration 1s), or auto"},
		// A path that does not fit: why, without the --set the check used.
		{"clients.x", "1,2", `--vary clients.x=1,2: sweep.parameters.clients.x: 1: path "clients.x": clients is not a mapping`},
	}
	for _, tc := range tests {
		sc, err := Lookup("healthy")
		if err != nil {
			t.Fatal(err)
		}
		before := sc.String()
		err = sc.Vary(tc.path, tc.spec)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Vary(%s, %s) = %v\nwant %s", tc.path, tc.spec, err, tc.want)
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Vary(%s, %s) = %v, want Problems (ErrInvalid)", tc.path, tc.spec, err)
		}
		if sc.String() != before {
			t.Errorf("Vary(%s, %s) changed the scenario on error", tc.path, tc.spec)
		}
	}
}

// FuzzSplitValues: splitValues never panics; what it returns are trimmed, non-empty values that
// split again the same way when joined with commas; and a list of simple values (no brackets,
// quotes or commas) joined with commas splits back into itself.
func FuzzSplitValues(f *testing.F) {
	for _, s := range []string{
		"1,2,3", "lognormal(1ms, 0.5),exp(2ms)", "{kind: step, before: 1000/s, after: 3000/s, at: 10s},2000/s",
		"[1s, 2s]", `"a,b",c`, `'it''s',x`, `"\"",y`, "(", ")", "[}", ",", "", "don't,stop", "1s:5s:1s", "a\x00,b", "\xff,\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		values, err := splitValues(list)
		if err != nil {
			var le *listError
			if !errors.As(err, &le) || le.pos < 1 || le.msg == "" {
				t.Fatalf("splitValues(%q): error %v is not a positioned listError", list, err)
			}
		} else {
			for _, v := range values {
				if v == "" || v != strings.TrimSpace(v) {
					t.Fatalf("splitValues(%q) = %q: an empty or untrimmed value", list, values)
				}
			}
			again, err := splitValues(strings.Join(values, ","))
			if err != nil || !slices.Equal(again, values) {
				t.Fatalf("splitValues(%q) = %q, but joined again it splits to %q, %v", list, values, again, err)
			}
		}

		// The input as a list of simple values: its fields, without the characters that
		// group or quote.
		simple := strings.FieldsFunc(list, func(r rune) bool {
			return unicode.IsSpace(r) || strings.ContainsRune(",[]{}()\"'", r)
		})
		if len(simple) == 0 {
			return
		}
		got, err := splitValues(strings.Join(simple, ","))
		if err != nil || !slices.Equal(got, simple) {
			t.Fatalf("simple values %q joined and split: %q, %v", simple, got, err)
		}
	})
}

// TestSetAll: overrides are applied together and validated once, so their order does not
// decide what is valid: sustained-overload's warm-up is 15 s, and a 10 s run with no warm-up
// is valid whichever of the two is set first, while Set, one at a time, refuses the shorter
// duration before the warm-up is changed.
func TestSetAll(t *testing.T) {
	for _, order := range [][]string{
		{"duration=10s", "warmup=0s"},
		{"warmup=0s", "duration=10s"},
		{" duration = 10s ", "warmup=0s"}, // path and value trimmed, as the CLI gives them
	} {
		sc, err := Lookup("sustained-overload")
		if err != nil {
			t.Fatal(err)
		}
		if sc.Warmup.Fixed.String() != "15s" {
			t.Fatalf("sustained-overload's warm-up is %v; the test needs one longer than 10s", sc.Warmup.Fixed)
		}
		if err := sc.SetAll(order...); err != nil {
			t.Errorf("SetAll(%q): %v", order, err)
			continue
		}
		if sc.Duration.String() != "10s" || sc.Warmup.Fixed != 0 || sc.Warmup.Auto {
			t.Errorf("SetAll(%q): duration %v, warm-up %v; want 10s and 0s", order, sc.Duration, sc.Warmup.Fixed)
		}
	}

	// Set, one override at a time, still validates each: the first order fails at once.
	sc, _ := Lookup("sustained-overload")
	want := "sustained-overload.yaml:10: warmup: 15s: must be in [0s, duration 10s), or auto"
	if err := sc.Set("duration", "10s"); err == nil || err.Error() != want {
		t.Errorf("Set(duration, 10s) = %v, want %q", err, want)
	}

	// A later override of the same path wins.
	sc, _ = Lookup("sustained-overload")
	if err := sc.SetAll("clients[0].count=3", "clients[0].count=7"); err != nil || sc.Clients[0].Count != 7 {
		t.Errorf("SetAll(count=3, count=7): count %d, %v; want 7", sc.Clients[0].Count, err)
	}

	// Errors name the override the bad value came from, and leave the scenario unchanged.
	for _, tc := range []struct {
		overrides []string
		want      string
	}{
		{[]string{"duration=10s", "clients[0].count=0"},
			"sustained-overload.yaml:10: warmup: 15s: must be in [0s, duration 10s), or auto\n" +
				"--set clients[0].count=0: clients[0].count: 0: must be in [1, 1000000]"},
		{[]string{"warmup=0s", "duration=-1s"},
			"--set duration=-1s: duration: -1s: must be > 0"},
		{[]string{"warmup=0s", "clients.x=1"},
			`scenarios: --set clients.x=1: path "clients.x": clients is not a mapping`},
		{[]string{"warmup=0s", "duration={"},
			`scenarios: --set duration={: value "{":`},
		{[]string{"warmup=0s", "duration"},
			`scenarios: --set "duration": want path=value`},
	} {
		sc, _ := Lookup("sustained-overload")
		before := sc.String()
		err := sc.SetAll(tc.overrides...)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("SetAll(%q) = %v\nwant %s", tc.overrides, err, tc.want)
		}
		if sc.String() != before {
			t.Errorf("SetAll(%q) changed the scenario on error", tc.overrides)
		}
	}

	// Without overrides, nothing happens.
	sc, _ = Lookup("sustained-overload")
	if err := sc.SetAll(); err != nil {
		t.Errorf("SetAll() = %v", err)
	}
}

// TestSweepOrder: a sweep's parameters keep the order they were given, in the file and by
// Vary, the first varying slowest; the canonical form keeps that order (so sweeps that differ
// only in it are different scenarios with different digests) and reads back to it.
func TestSweepOrder(t *testing.T) {
	const file = `
name: order
topology: {nodes: [{name: a}]}
clients: [{name: c, count: 1, workload: {rate: 100/s}}]
sweep:
  parameters:
    clients[0].workload.rate: [100/s, 200/s]
    clients[0].count: [1, 2]
  replications: 1
`
	sc, err := Parse("order.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	params := func(sc *Scenario) []string {
		pts, err := sc.Points()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range pts {
			var kv []string
			for _, pr := range p.Params {
				kv = append(kv, pr.Path+"="+pr.Value)
			}
			out = append(out, strings.Join(kv, " "))
		}
		return out
	}
	want := []string{
		"clients[0].workload.rate=100/s clients[0].count=1", "clients[0].workload.rate=100/s clients[0].count=2",
		"clients[0].workload.rate=200/s clients[0].count=1", "clients[0].workload.rate=200/s clients[0].count=2"}
	if got := params(sc); !slices.Equal(got, want) {
		t.Errorf("the file's order: points %q, want %q", got, want)
	}
	if !strings.Contains(sc.String(), "clients[0].workload.rate: [100/s, 200/s]\n    clients[0].count: [1, 2]") &&
		!strings.Contains(sc.String(), "clients[0].workload.rate: 100/s,200/s\n    clients[0].count: 1,2") {
		t.Errorf("the canonical form does not keep the file's order:\n%s", sc.String())
	}
	back, err := Parse("back.yaml", []byte(sc.String()))
	if err != nil || back.String() != sc.String() || !slices.Equal(params(back), want) {
		t.Errorf("the canonical form does not read back to the same order: %v\n%s", err, back)
	}

	// --vary adds parameters after the file's, in the order given; varying a parameter the
	// file has keeps its place.
	v := sc.clone()
	if err := v.Set("sweep.parameters", "null"); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"clients[0].count", "1,2"}, {"clients[0].workload.rate", "100/s,200/s"}} {
		if err := v.Vary(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if got := v.Sweep.Paths(); !slices.Equal(got, []string{"clients[0].count", "clients[0].workload.rate"}) {
		t.Errorf("--vary count then rate: paths %q", got)
	}
	if pts := params(v); pts[1] != "clients[0].count=1 clients[0].workload.rate=200/s" {
		t.Errorf("--vary count then rate: the second point is %q, want count slowest", pts[1])
	}
	if v.String() == sc.String() {
		t.Error("sweeps that differ only in their parameters' order have the same canonical form")
	}
	if err := sc.Vary("clients[0].workload.rate", "300/s,400/s"); err != nil {
		t.Fatal(err)
	}
	if got := sc.Sweep.Paths(); !slices.Equal(got, []string{"clients[0].workload.rate", "clients[0].count"}) {
		t.Errorf("varying the file's first parameter again moved it: %q", got)
	}
}

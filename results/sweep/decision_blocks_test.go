package sweep

import (
	"slices"
	"strings"
	"testing"
)

// TestMergeAnswers checks the coinciding-knees rule (docs/metrics.md §17): lines whose answers
// coincide (the same safe load, knee and latency knee) print as one block naming them all, a
// sentence they share once and the others once per line; lines whose knees differ keep a block
// each, in order of first appearance.
func TestMergeAnswers(t *testing.T) {
	ctx := LoadContext{Today: 500}
	line := func(name string, pts ...*PointStats) LoadAnswers {
		a := AnswerLoad(pts, "total.", "", ctx)
		a.Line = name
		return a
	}
	// a and b are word for word the same; c has the same knee with other numbers; d another knee.
	a := line("a", loadPoint(500, 500, 0.02), loadPoint(1000, 1000, 0.02), loadPoint(1500, 1000, 0.02))
	b := line("b", loadPoint(500, 500, 0.02), loadPoint(1000, 1000, 0.02), loadPoint(1500, 1000, 0.02))
	c := line("c", loadPoint(500, 500, 0.02), loadPoint(1000, 1000, 0.02), loadPoint(1500, 900, 0.02))
	d := line("d", loadPoint(500, 500, 0.02), loadPoint(1000, 800, 0.02), loadPoint(1500, 800, 0.02))
	cases := []struct {
		name    string
		answers []LoadAnswers
		lines   [][]string
	}{
		{"identical", []LoadAnswers{a, b}, [][]string{{"a", "b"}}},
		{"same knee, other numbers", []LoadAnswers{a, c}, [][]string{{"a", "c"}}},
		{"other knee", []LoadAnswers{a, d, b}, [][]string{{"a", "b"}, {"d"}}},
		{"one line", []LoadAnswers{a}, [][]string{{"a"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			blocks := MergeAnswers(tc.answers)
			var got [][]string
			for _, bl := range blocks {
				got = append(got, bl.Lines)
			}
			if !slices.EqualFunc(got, tc.lines, slices.Equal) {
				t.Fatalf("blocks %q, want %q", got, tc.lines)
			}
			for _, bl := range blocks {
				first := tc.answers[slices.IndexFunc(tc.answers, func(x LoadAnswers) bool { return x.Line == bl.Lines[0] })]
				for _, s := range first.Sentences() {
					shared := true
					for _, name := range bl.Lines {
						x := tc.answers[slices.IndexFunc(tc.answers, func(x LoadAnswers) bool { return x.Line == name })]
						shared = shared && slices.Contains(x.Sentences(), s)
					}
					switch {
					case shared && !slices.Contains(bl.Sentences, s):
						t.Errorf("block %q lacks the shared sentence %q:\n%s", bl.Lines, s, strings.Join(bl.Sentences, "\n"))
					case !shared && !slices.Contains(bl.Sentences, first.Line+": "+s):
						t.Errorf("block %q lacks %q's own sentence %q:\n%s", bl.Lines, first.Line, s, strings.Join(bl.Sentences, "\n"))
					}
				}
			}
		})
	}
	// Word for word the same: the block is exactly one line's sentences.
	if bl := MergeAnswers([]LoadAnswers{a, b}); !slices.Equal(bl[0].Sentences, a.Sentences()) {
		t.Errorf("identical answers merged to\n%s\nwant\n%s", strings.Join(bl[0].Sentences, "\n"), strings.Join(a.Sentences(), "\n"))
	}
}

package workload

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReadTraceCSV checks the accepted forms of a trace file.
func TestReadTraceCSV(t *testing.T) {
	tests := []struct {
		gloss string
		in    string
		want  []Point
	}{
		{"no header, bare seconds", "0,100\n1,200\n2.5,0\n",
			[]Point{{0, 100}, {s, 200}, {2500 * ms, 0}}},
		{"a header line is skipped", "time,rate\n0,100\n1,200\n",
			[]Point{{0, 100}, {s, 200}}},
		{"durations with units, mixed with bare seconds", "t,ops\n0s,1\n1500ms,2\n2,3\n1m,4\n",
			[]Point{{0, 1}, {1500 * ms, 2}, {2 * s, 3}, {time.Minute, 4}}},
		{"comments, blank lines, spaces, extra columns and a /s suffix",
			"# exported from the load balancer\n\n 0 , 10/s, host-a\n\n# gap\n 30s, 20 ,host-b\n",
			[]Point{{0, 10}, {30 * s, 20}}},
		{"a byte-order mark before the header", "\ufefftime_s,rate\n0.25,1e3\n",
			[]Point{{250 * ms, 1000}}},
		{"a header naming seconds is fine with bare numbers", "seconds,rate\n1,5\n",
			[]Point{{s, 5}}},
		{"a header naming milliseconds is fine with durations", "time_ms,rate\n10ms,5\n",
			[]Point{{10 * ms, 5}}},
		{"fractions of a nanosecond are rounded", "0.0000000015,1\n",
			[]Point{{2, 1}}},
	}
	for _, tt := range tests {
		got, err := ReadTraceCSV(strings.NewReader(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.gloss, err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: ReadTraceCSV = %v, want %v", tt.gloss, got, tt.want)
		}
	}
}

// TestReadTraceCSVErrors checks the rejected forms, with the exact message and sentinel.
func TestReadTraceCSVErrors(t *testing.T) {
	tests := []struct {
		gloss string
		in    string
		kind  error
		want  string
	}{
		{"empty", "", ErrInvalid, "workload: trace csv: no points: must hold at least one time, rate record"},
		{"only a header", "time,rate\n", ErrInvalid, "workload: trace csv: no points: must hold at least one time, rate record"},
		{"only comments", "# nothing\n", ErrInvalid, "workload: trace csv: no points: must hold at least one time, rate record"},
		{"one column", "0,1\n1\n", ErrSyntax, "workload: trace csv: line 2: 1 field: must have 2 fields (time, rate)"},
		{"a word after the header", "time,rate\nsoon,1\n", ErrSyntax,
			`workload: trace csv: line 2 time: "soon": must be a duration such as 1.5s or a number of seconds`},
		{"NaN time", "0,1\nNaN,1\n", ErrSyntax,
			`workload: trace csv: line 2 time: "NaN": must be a duration such as 1.5s or a number of seconds`},
		{"bare numbers under a milliseconds header", "time_ms,rate\n100,1\n", ErrSyntax,
			`workload: trace csv: line 2 time: "100": bare numbers are seconds but the header names unit "ms"; write durations with units instead (e.g. 250ms)`},
		{"a negative time", "-1,5\n", ErrInvalid, `workload: trace csv: line 1 time: "-1": must be ≥ 0`},
		{"a negative duration", "-1s,5\n", ErrInvalid, `workload: trace csv: line 1 time: "-1s": must be ≥ 0`},
		{"a time beyond MaxTime", "1e300,5\n", ErrInvalid,
			`workload: trace csv: line 1 time: "1e300": must be ≤ 1281023h53m38.427387904s (MaxTime)`},
		{"times out of order", "0,1\n# two lines later\n2,1\n1,1\n", ErrInvalid,
			`workload: trace csv: line 4 time: "1": must be > 2s (line 3)`},
		{"the same time twice", "1s,1\n1000ms,2\n", ErrInvalid,
			`workload: trace csv: line 2 time: "1000ms": must be > 1s (line 1)`},
		{"a rate that is no number", "0,fast\n", ErrSyntax,
			`workload: trace csv: line 1 rate: "fast": must be a number of operations per second`},
		{"a negative rate", "0,-3\n", ErrInvalid,
			`workload: trace csv: line 1 rate: "-3": must be a finite number in [0, 1e+09]`},
		{"a NaN rate", "0,NaN\n", ErrInvalid,
			`workload: trace csv: line 1 rate: "NaN": must be a finite number in [0, 1e+09]`},
		{"a rate beyond float range", "0,1e999\n", ErrInvalid,
			`workload: trace csv: line 1 rate: "1e999": must be a finite number in [0, 1e+09]`},
		// encoding/csv words this one; only the prefix is ours.
		{"broken quoting", "0,\"1\n", ErrSyntax, "workload: trace csv: line 1 column 6: "},
	}
	for _, tt := range tests {
		got, err := ReadTraceCSV(strings.NewReader(tt.in))
		switch {
		case err == nil:
			t.Errorf("%s: ReadTraceCSV = %v, want error %q", tt.gloss, got, tt.want)
		case err.Error() != tt.want && !(strings.HasSuffix(tt.want, ": ") && strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("%s: error\n%s\nwant\n%s", tt.gloss, err, tt.want)
		case !errors.Is(err, tt.kind):
			t.Errorf("%s: errors.Is(%v, %v) = false", tt.gloss, err, tt.kind)
		}
	}
}

// FuzzReadTraceCSV checks that any input either fails with an error or gives points that Trace
// accepts and that read back identically when written in canonical form; it must never panic or
// hang.
func FuzzReadTraceCSV(f *testing.F) {
	for _, seed := range []string{
		"time,rate\n0,100\n1,200\n",
		"\ufefft_ms,ops\n1ms,1\n2ms,2e3\n",
		"# c\n\n0s, 5/s, x\n1m30s,0\n",
		"0,\"1\n",
		"1e300,5\n",
		"-0,0\n0.0000000015,1e9\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		points, err := ReadTraceCSV(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v matches neither ErrSyntax nor ErrInvalid", err)
			}
			return
		}
		p, err := Trace(points)
		if err != nil {
			t.Fatalf("ReadTraceCSV gave points that Trace rejects: %v", err)
		}
		var sb strings.Builder
		for _, pt := range points {
			fmt.Fprintf(&sb, "%s,%s\n", pt.T, strconv.FormatFloat(pt.Rate, 'g', -1, 64))
		}
		again, err := ReadTraceCSV(strings.NewReader(sb.String()))
		if err != nil || !slices.Equal(again, points) {
			t.Fatalf("points %v written as\n%s\nread back as %v, %v", points, sb.String(), again, err)
		}
		if got := p.Rate(points[0].T); got != points[0].Rate {
			t.Fatalf("%v.Rate(%v) = %v, want %v", p, points[0].T, got, points[0].Rate)
		}
	})
}

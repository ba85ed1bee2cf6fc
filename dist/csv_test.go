package dist

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestReadEmpiricalCSV(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		gloss string
		in    string
		want  []time.Duration
	}{
		{"durations, one per line", "3ms\n1.5s\n250us\n", []time.Duration{3 * ms, 1500 * ms, 250 * time.Microsecond}},
		{"bare numbers are milliseconds", "3\n0.25\n1e3\n", []time.Duration{3 * ms, 250 * time.Microsecond, time.Second}},
		{"header then numbers", "latency_ms\n3\n4\n", []time.Duration{3 * ms, 4 * ms}},
		{"CSV: first column only", "latency_ms,host\n3,a\n4,\"b,c\"\n", []time.Duration{3 * ms, 4 * ms}},
		{"header naming ms in parentheses", "rtt (ms)\n2\n", []time.Duration{2 * ms}},
		{"mixed forms", "1ms\n2\n", []time.Duration{ms, 2 * ms}},
		{"blank lines, comments and padding", "# rtt\n\n  3ms \n\n# end\n", []time.Duration{3 * ms}},
		{"CRLF line ends", "latency_ms\r\n3\r\n", []time.Duration{3 * ms}},
		{"byte order mark", "\ufefflatency_ms\n3\n", []time.Duration{3 * ms}},
		{"sub-nanosecond rounds", "0.0000006\n", []time.Duration{1}},
		{"zero is allowed", "0\n0s\n", []time.Duration{0, 0}},
		{"header with another unit is fine above durations", "latency_us\n250us\n", []time.Duration{250 * time.Microsecond}},
	}
	for _, tt := range tests {
		got, err := ReadEmpiricalCSV(strings.NewReader(tt.in))
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: ReadEmpiricalCSV(%q) = %v, %v; want %v", tt.gloss, tt.in, got, err, tt.want)
		}
	}

	bad := []struct {
		gloss string
		in    string
		want  string
	}{
		{"empty", "", "dist: csv: no values: must hold at least one value"},
		{"header only", "latency_ms\n", "dist: csv: no values: must hold at least one value"},
		{"a lone word is a header", "NaN\n", "dist: csv: no values: must hold at least one value"},
		{"text after the header", "latency_ms\n3\nfast\n", `dist: csv line 3: "fast": must be a duration such as 3ms or a number of milliseconds`},
		{"empty field", "3\n,x\n", `dist: csv line 2: "": must be a duration such as 3ms or a number of milliseconds`},
		{"negative number", "3\n-1\n", `dist: csv line 2: "-1": must be ≥ 0`},
		{"negative duration", "-1ms\n", `dist: csv line 1: "-1ms": must be ≥ 0`},
		{"NaN", "1ms\nNaN\n", `dist: csv line 2: "NaN": must be a duration such as 3ms or a number of milliseconds`},
		{"Inf", "1ms\nInf\n", `dist: csv line 2: "Inf": must be a duration such as 3ms or a number of milliseconds`},
		{"beyond MaxDuration", "1e300\n", `dist: csv line 1: "1e300": must be ≤ 1281023h53m38.427387904s (MaxDuration)`},
		{"beyond float range", "1e400\n", `dist: csv line 1: "1e400": must be ≤ 1281023h53m38.427387904s (MaxDuration)`},
		{"microsecond header over bare numbers", "latency_us\n250\n", `dist: csv line 2: "250": bare numbers are milliseconds but the header names unit "us"; write durations with units instead (e.g. 250µs)`},
		{"seconds header over bare numbers", "RTT (s),host\n0.5,a\n", `dist: csv line 2: "0.5": bare numbers are milliseconds but the header names unit "s"; write durations with units instead (e.g. 250µs)`},
		{"broken quoting", "\"3\n", "dist: csv line 1 column 4: extraneous or missing \" in quoted-field"},
	}
	for _, tt := range bad {
		got, err := ReadEmpiricalCSV(strings.NewReader(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: ReadEmpiricalCSV(%q) = %v, %v\nwant error %s", tt.gloss, tt.in, got, err, tt.want)
		}
	}
}

package results

import (
	"slices"
	"testing"
)

// TestParseValue: a scenario value's number and kind, a list's common unit, and a number
// written back in a unit.
func TestParseValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		kind ValueKind
	}{
		{"1000/s", 1000, ValueRate},
		{"2.5/s", 2.5, ValueRate},
		{"250ms", 0.25, ValueDuration},
		{"3", 3, ValueNumber},
		{"true", 0, ValueText},
		{"x/s", 0, ValueText},
	} {
		got, kind, ok := ParseValue(c.in)
		if got != c.want || kind != c.kind || ok != (c.kind != ValueText) {
			t.Errorf("ParseValue(%q) = %v, %v, %v, want %v, %v", c.in, got, kind, ok, c.want, c.kind)
		}
	}
	for _, c := range []struct {
		in   []string
		nums []float64
		unit string
		ok   bool
	}{
		{[]string{"250ms", "500ms"}, []float64{250, 500}, "ms", true},
		{[]string{"500ms", "2s"}, []float64{0.5, 2}, "s", true},
		{[]string{"100µs", "200µs"}, []float64{100, 200}, "µs", true},
		{[]string{"1000/s", "2000/s"}, []float64{1000, 2000}, "/s", true},
		{[]string{"0.3", "0.7"}, []float64{0.3, 0.7}, "", true},
		{[]string{"1", "2s"}, nil, "", false},
		{nil, nil, "", false},
	} {
		nums, _, unit, ok := ParseValues(c.in)
		if !slices.Equal(nums, c.nums) || unit != c.unit || ok != c.ok {
			t.Errorf("ParseValues(%q) = %v %q %v, want %v %q %v", c.in, nums, unit, ok, c.nums, c.unit, c.ok)
		}
	}
	for _, c := range []struct {
		x    float64
		unit string
		want string
	}{
		{9.5, "s", "9.5 s"}, {2000, "/s", "2000/s"}, {0.55, "", "0.55"}, {0.123456, "", "0.123"},
		{12.345, "ms", "12.3 ms"}, {1.0, "", "1"}, {0, "", "0"}, {0.00125, "", "0.00125"}, {-0.0001, "", "-0.0001"},
	} {
		if got := FormatValue(c.x, c.unit); got != c.want {
			t.Errorf("FormatValue(%v, %q) = %q, want %q", c.x, c.unit, got, c.want)
		}
	}
}

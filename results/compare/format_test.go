package compare

import "testing"

// TestFormat pins the comparison's units (Unit, FormatCI, FormatDelta): rates in
// operations/s, latencies and recovery times in ms below a second and s from it, a share stuck
// in per cent and its difference in percentage points, amplification in attempts per
// operation, the unit once after a mean and its half-width where it follows a space.
func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		metric   string
		mean, ci float64
		delta    float64
		want     string
		wantD    string
	}{
		{"total.goodput", 764.5, 5, -13.7, "764.5/s ± 5/s", "-13.7/s"},
		{"total.latency_ok_p99", 2.216, 0.011, -1.59, "2.216 s ± 11 ms", "-1.59 s"},
		{"total.latency_ok_p99", 0.6254, 0.022, 0.25, "625.4 ms ± 22 ms", "+250 ms"},
		{"total.amplification", 2.567, 0.016, -0.798, "2.567 ± 0.016 attempts/op", "-0.798 attempts/op"},
		{"fault.cut.stuck", 0.2, 0.05, 0.1, "20 ± 5 %", "+10 pp"},
		{"fault.cut.recovery_time", 2, 0, 0, "2 s ± 0 s", "+0 s"},
		{"total.offered", 12345.6, 20, 1, "12346/s ± 20/s", "+1/s"},
	} {
		if got := FormatCI(tc.metric, tc.mean, tc.ci); got != tc.want {
			t.Errorf("FormatCI(%s, %v, %v) = %q, want %q", tc.metric, tc.mean, tc.ci, got, tc.want)
		}
		if got := FormatDelta(tc.metric, tc.delta); got != tc.wantD {
			t.Errorf("FormatDelta(%s, %v) = %q, want %q", tc.metric, tc.delta, got, tc.wantD)
		}
	}
}

package sweep

import "testing"

// TestIsLoadPath: a sweep is a load sweep when it varies a workload's rate (rates) or the
// scenario's load factor (load, plain numbers); no other parameter, and neither with values of
// another kind, makes it one (IsLoadPath).
func TestIsLoadPath(t *testing.T) {
	tests := []struct {
		path   string
		values []string
		want   bool
	}{
		{"load", []string{"0.5", "1", "2.5"}, true},
		{"load", []string{"1"}, true},
		{"clients[0].workload.rate", []string{"1000/s", "2000/s"}, true},
		{"clients[1].workload.rate", []string{"1000/s"}, true},
		{"load", []string{"1/s", "2/s"}, false},
		{"load", []string{"low", "high"}, false},
		{"faults[0].factor", []string{"1", "2"}, false},
		{"clients[0].count", []string{"1", "2"}, false},
		{"topology.nodes[0].ingressRequestAdmissionRatePerSec", []string{"1000/s", "2000/s"}, false},
		{"clients[0].workload.rate", []string{"1", "2"}, false},
	}
	for _, tc := range tests {
		if got := IsLoadPath(tc.path, tc.values); got != tc.want {
			t.Errorf("IsLoadPath(%s, %v) = %v, want %v", tc.path, tc.values, got, tc.want)
		}
	}
}

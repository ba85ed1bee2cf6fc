package golden

import "testing"

func TestFirstDifference(t *testing.T) {
	tests := []struct {
		a, b   string
		line   int
		la, lb string
	}{
		{"x\ny\nz", "x\nY\nz", 2, "y", "Y"},
		{"x\ny", "x\ny\nz", 3, "", "z"},
		{"a", "b", 1, "a", "b"},
	}
	for _, tc := range tests {
		line, la, lb := firstDifference([]byte(tc.a), []byte(tc.b))
		if line != tc.line || la != tc.la || lb != tc.lb {
			t.Errorf("firstDifference(%q, %q) = %d %q %q, want %d %q %q", tc.a, tc.b, line, la, lb, tc.line, tc.la, tc.lb)
		}
	}
}

// TestCheckPasses: identical output passes (a mismatch is a t.Errorf, exercised by every golden
// test in the repository).
func TestCheckPasses(t *testing.T) {
	if Updating() {
		t.Skip("-update rewrites instead of comparing")
	}
	Check(t, "testdata/sample.golden", []byte("one\ntwo\n"))
}

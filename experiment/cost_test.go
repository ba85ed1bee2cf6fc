package experiment

import "testing"

// TestByteSize: --max-memory takes binary units and refuses what is not a size.
func TestByteSize(t *testing.T) {
	for in, want := range map[string]float64{"8GiB": 8 << 30, "512 MiB": 512 << 20, "1e9": 1e9, "3KiB": 3072, "2TiB": 2 << 40} {
		var b ByteSize
		if err := b.Set(in); err != nil || float64(b) != want {
			t.Errorf("Set(%q) = %v, %v; want %v", in, float64(b), err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1GiB", "0", "NaN", "+Inf", "1e400"} {
		var b ByteSize
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) = %v, want an error", in, float64(b))
		}
	}
	if got := ByteSize(8 << 30).String(); got != "8 GiB" {
		t.Errorf("String() = %q, want 8 GiB", got)
	}
}

package sim

import (
	"slices"
	"testing"
)

// TestLoopStreamsRecordsWhatRan: the loop lists every stream it handed out, in order, with the
// seeds StreamSeeds derives — the list a run's header is made from, so that it cannot name a
// stream the run did not draw from or miss one it did.
func TestLoopStreamsRecordsWhatRan(t *testing.T) {
	l := NewLoop()
	if got := l.Streams(); len(got) != 0 {
		t.Fatalf("a new loop lists %v", got)
	}
	l.NewStream(7, "server/a/service")
	l.NewStream(8, "client/app/0")
	got := l.Streams()
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	if want := []string{"server/a/service", "client/app/0"}; !slices.Equal(names, want) {
		t.Fatalf("Streams names %q, want %q", names, want)
	}
	for i, seed := range []uint64{7, 8} {
		if s1, s2 := StreamSeeds(seed, got[i].Name); got[i].S1 != s1 || got[i].S2 != s2 {
			t.Errorf("stream %s seeds %d %d, want StreamSeeds(%d) = %d %d", got[i].Name, got[i].S1, got[i].S2, seed, s1, s2)
		}
	}
	got[0].Name = "changed"
	if l.Streams()[0].Name != "server/a/service" {
		t.Error("Streams returned the loop's own list")
	}
}

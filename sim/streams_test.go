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

// TestManyStreams: past the first chunks of the loop's list (a fleet's millions of streams),
// Streams still lists every stream in the order handed out, and Branch re-seeds every one.
func TestManyStreams(t *testing.T) {
	l := NewLoop()
	const n = 3*streamChunk + 21
	rs := make([]interface{ Uint64() uint64 }, n)
	for i := range n {
		rs[i] = l.NewStream(1, "client/app/"+string(rune('a'+i%26))+string(rune('0'+i/26%10))+string(rune('0'+i/260)))
	}
	got := l.Streams()
	if len(got) != n {
		t.Fatalf("Streams lists %d, want %d", len(got), n)
	}
	for i, s := range got {
		if s1, _ := StreamSeeds(1, s.Name); s.S1 != s1 {
			t.Fatalf("stream %d (%s) listed with the seeds of another", i, s.Name)
		}
	}
	l.Branch(99)
	for _, i := range []int{0, streamChunk, n - 1} {
		if want := NewStream(99, got[i].Name).Uint64(); rs[i].Uint64() != want {
			t.Errorf("stream %d (%s) after Branch(99) does not continue as NewStream(99, name)", i, got[i].Name)
		}
	}
}

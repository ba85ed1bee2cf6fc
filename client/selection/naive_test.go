package selection

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/wire"
)

// The naive selector below follows server-selection.md sentence by sentence, with fresh
// slices at every step and no attempt at speed. Select must agree with it exactly: same
// latency window, and the same choice from the same random stream.

// naiveWindow returns the positions of the servers in the latency window, in server order.
func naiveWindow(kind TopologyKind, servers []Server, rp ReadPreference, write bool,
	deprioritized []string, localThreshold time.Duration) []int {
	// Step 3: "Filter out any deprioritized server addresses. Find suitable servers from the
	// filtered list by topology type and operation type. If there are no suitable servers,
	// perform the previous step again without filtering out deprioritized servers."
	var all, filtered []int
	for i, s := range servers {
		all = append(all, i)
		if !slices.Contains(deprioritized, s.Address) {
			filtered = append(filtered, i)
		}
	}
	suitable := naiveSuitable(kind, servers, filtered, rp, write)
	if len(suitable) == 0 {
		suitable = naiveSuitable(kind, servers, all, rp, write)
	}
	if len(suitable) == 0 {
		return nil
	}
	// "The shortest average round trip time (RTT) from among suitable servers anchors one end
	// of the latency window (A). The other end is determined by adding localThresholdMS
	// (B = A + localThresholdMS)." A server is in the window if A ≤ RTT ≤ B.
	lo := servers[suitable[0]].RTT
	for _, i := range suitable {
		if servers[i].RTT < lo {
			lo = servers[i].RTT
		}
	}
	hi := lo + max(localThreshold, 0)
	var window []int
	for _, i := range suitable {
		if lo <= servers[i].RTT && servers[i].RTT <= hi {
			window = append(window, i)
		}
	}
	return window
}

// naiveSuitable returns the suitable servers among the positions in from.
func naiveSuitable(kind TopologyKind, servers []Server, from []int, rp ReadPreference, write bool) []int {
	ofRole := func(roles ...wire.Role) []int {
		var out []int
		for _, i := range from {
			if slices.Contains(roles, servers[i].Role) {
				out = append(out, i)
			}
		}
		return out
	}
	switch kind {
	case Single:
		// "The single server is always suitable for reads if it is available" (and for
		// writes); read preference is ignored. Unknown is not available.
		return ofRole(wire.Standalone, wire.Primary, wire.Secondary, wire.Mongos)
	case Sharded:
		// "For read operations, all servers of type Mongos are suitable"; likewise writes.
		return ofRole(wire.Mongos)
	}
	primaries := ofRole(wire.Primary)
	secondaries := ofRole(wire.Secondary)
	if write {
		// "Only an available primary is suitable for write operations."
		return primaries
	}
	switch rp.Mode {
	case Primary:
		// "Only an available primary is suitable."
		return primaries
	case Secondary:
		// "All secondaries (and only secondaries) are candidates, but only eligible
		// candidates are suitable."
		return naiveEligible(servers, secondaries, rp.TagSets)
	case PrimaryPreferred:
		// "If a primary is available, only the primary is suitable. Otherwise, all
		// secondaries are candidates, but only eligible secondaries are suitable."
		if len(primaries) > 0 {
			return primaries
		}
		return naiveEligible(servers, secondaries, rp.TagSets)
	case SecondaryPreferred:
		// "If there is at least one eligible secondary, only eligible secondaries are
		// suitable. Otherwise, when there are no eligible secondaries, the primary is
		// suitable."
		if e := naiveEligible(servers, secondaries, rp.TagSets); len(e) > 0 {
			return e
		}
		return primaries
	case Nearest:
		// "The primary and all secondaries are candidates, but only eligible candidates are
		// suitable."
		return naiveEligible(servers, ofRole(wire.Primary, wire.Secondary), rp.TagSets)
	}
	panic("naive: bad mode")
}

// naiveEligible applies the tag_sets rules to the candidates.
func naiveEligible(servers []Server, candidates []int, tagSets []map[string]string) []int {
	// "If the tag_sets list is empty then all candidate servers are eligible servers."
	if len(tagSets) == 0 {
		return candidates
	}
	// "Tag sets are tried in order until a tag set matches at least one candidate server.
	// All candidate servers matching that tag set are eligible servers."
	for _, set := range tagSets {
		var matching []int
		for _, i := range candidates {
			if naiveSubset(set, servers[i].Tags) {
				matching = append(matching, i)
			}
		}
		if len(matching) > 0 {
			return matching
		}
	}
	// "If no tag set in the list matches any candidate server, no servers are eligible."
	return nil
}

// naiveSubset reports whether every key-value pair of t is in s ("T ⊆ S").
func naiveSubset(t, s map[string]string) bool {
	n := 0
	for k, v := range s {
		if tv, ok := t[k]; ok && tv == v {
			n++
		}
	}
	return n == len(t)
}

// naiveSelect picks from the window as documented: the ordered pairs (i, j), i ≠ j, of window
// positions are listed with i outer and j inner, pair number r.IntN(len(pairs)) is drawn, and
// the server with fewer operations in flight wins, the first of the pair on a tie.
func naiveSelect(kind TopologyKind, servers []Server, rp ReadPreference, write bool,
	deprioritized []string, localThreshold time.Duration, r *rand.Rand) int {
	w := naiveWindow(kind, servers, rp, write, deprioritized, localThreshold)
	if len(w) == 0 {
		return -1
	}
	if len(w) == 1 {
		return w[0]
	}
	var pairs [][2]int
	for i := range w {
		for j := range w {
			if i != j {
				pairs = append(pairs, [2]int{w[i], w[j]})
			}
		}
	}
	p := pairs[r.IntN(len(pairs))]
	if servers[p[1]].InFlight < servers[p[0]].InFlight {
		return p[1]
	}
	return p[0]
}

// randomCase is one random selection problem.
type randomCase struct {
	kind      TopologyKind
	servers   []Server
	rp        ReadPreference
	write     bool
	deprio    []string
	threshold time.Duration
}

func (c randomCase) String() string {
	s := fmt.Sprintf("kind=%v rp=%v write=%v deprioritized=%v threshold=%v servers:", c.kind, c.rp, c.write, c.deprio, c.threshold)
	for _, sv := range c.servers {
		s += fmt.Sprintf("\n  %s %v rtt=%v inFlight=%d tags=%v", sv.Address, sv.Role, sv.RTT, sv.InFlight, sv.Tags)
	}
	return s
}

// genCase draws a small topology whose values often collide, so that ties, window edges,
// empty results and fallbacks are common.
func genCase(r *rand.Rand) randomCase {
	roles := []wire.Role{wire.Unknown, wire.Standalone, wire.Primary, wire.Secondary, wire.Secondary, wire.Mongos}
	rtts := []time.Duration{0, 5 * ms, 5 * ms, 10 * ms, 20 * ms, 20*ms + 1, 26 * ms, 100 * ms}
	tagKeys, tagValues := []string{"dc", "rack"}, []string{"ny", "sf"}
	randomTags := func(maxTags int) map[string]string {
		n := r.IntN(maxTags + 1)
		if n == 0 && r.IntN(2) == 0 {
			return nil
		}
		m := map[string]string{}
		for range n {
			m[tagKeys[r.IntN(len(tagKeys))]] = tagValues[r.IntN(len(tagValues))]
		}
		return m
	}
	c := randomCase{
		kind:      TopologyKind(r.IntN(int(numKinds))),
		rp:        ReadPreference{Mode: Mode(r.IntN(int(numModes)))},
		write:     r.IntN(4) == 0,
		threshold: []time.Duration{0, 5 * ms, DefaultLocalThreshold, -ms}[r.IntN(4)],
	}
	addrs := []string{"a", "b", "c", "d", "e", "f", "g"}
	r.Shuffle(len(addrs), func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })
	n := r.IntN(len(addrs) + 1)
	for i := range n {
		c.servers = append(c.servers, Server{
			Address:  addrs[i],
			Role:     roles[r.IntN(len(roles))],
			RTT:      rtts[r.IntN(len(rtts))],
			InFlight: r.IntN(4),
			Tags:     randomTags(2),
		})
	}
	for range r.IntN(4) {
		c.rp.TagSets = append(c.rp.TagSets, randomTags(2))
	}
	for range r.IntN(5) {
		c.deprio = append(c.deprio, addrs[r.IntN(len(addrs))]) // sometimes absent from servers
	}
	return c
}

// checkAgainstNaive compares Select with naiveSelect on c, with a Selector reused across cases
// so that stale scratch space would show.
func checkAgainstNaive(t *testing.T, s *Selector, c randomCase, seed uint64) {
	t.Helper()
	want := naiveWindow(c.kind, c.servers, c.rp, c.write, c.deprio, c.threshold)
	got := s.window(c.kind, c.servers, c.rp, c.write, c.deprio, c.threshold)
	if !slices.Equal(got, want) {
		t.Fatalf("seed %d: window = %v, naive window = %v\n%v", seed, got, want, c)
	}
	for draw := range uint64(3) {
		r1 := rand.New(rand.NewPCG(seed, draw))
		r2 := rand.New(rand.NewPCG(seed, draw))
		got := s.Select(c.kind, c.servers, c.rp, c.write, c.deprio, c.threshold, r1)
		want := naiveSelect(c.kind, c.servers, c.rp, c.write, c.deprio, c.threshold, r2)
		if got != want {
			t.Fatalf("seed %d, draw stream %d: Select = %d, naive = %d\n%v", seed, draw, got, want, c)
		}
		if r1.Uint64() != r2.Uint64() {
			t.Fatalf("seed %d: Select and naive consumed different amounts of randomness\n%v", seed, c)
		}
	}
}

var naiveCases = flag.Int("naive-cases", 50000, "random cases TestSelectMatchesNaive checks")

// TestSelectMatchesNaive checks Select against the naive selector on random topologies. A
// failure prints the seed and the whole case; -naive-cases sets how many cases run.
func TestSelectMatchesNaive(t *testing.T) {
	var s Selector
	for seed := range uint64(*naiveCases) {
		checkAgainstNaive(t, &s, genCase(rand.New(rand.NewPCG(seed, 0xca5e))), seed)
	}
}

// FuzzSelectMatchesNaive lets the fuzzer search the seeds of genCase for a disagreement:
// go test ./client/selection -fuzz FuzzSelectMatchesNaive.
func FuzzSelectMatchesNaive(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed)
	}
	var s Selector
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkAgainstNaive(t, &s, genCase(rand.New(rand.NewPCG(seed, 0xca5e))), seed)
	})
}

// TestGenCaseCoverage guards the generator: the random cases must reach the interesting paths,
// or agreement with the naive selector would prove little.
func TestGenCaseCoverage(t *testing.T) {
	var empty, single, fallback, tagged, multi int
	var s Selector
	for seed := range uint64(5000) {
		c := genCase(rand.New(rand.NewPCG(seed, 0xca5e)))
		w := s.window(c.kind, c.servers, c.rp, c.write, c.deprio, c.threshold)
		switch len(w) {
		case 0:
			empty++
		case 1:
			single++
		default:
			multi++
		}
		if len(w) > 0 && slices.Contains(c.deprio, c.servers[w[0]].Address) {
			fallback++
		}
		if c.kind == ReplicaSet && c.rp.hasTags() && len(w) > 0 {
			tagged++
		}
	}
	for name, n := range map[string]int{"no server": empty, "one server": single, "several servers": multi,
		"deprioritised fallback": fallback, "tag-filtered replica set": tagged} {
		if n < 100 {
			t.Errorf("5000 random cases gave %d with %s, want ≥ 100", n, name)
		}
	}
}

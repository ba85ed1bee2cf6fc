package selection

import (
	"math/rand/v2"
	"time"

	"github.com/overloadsim/overloadsim/wire"
)

// DefaultLocalThreshold is localThresholdMS's default: the width of the latency window.
const DefaultLocalThreshold = 15 * time.Millisecond

// Server is what selection knows of one server: the client's current view of it.
type Server struct {
	// Address identifies the server, e.g. "a:27017"; deprioritisation matches it.
	Address string
	// Role is the server's type from its last hello. Unknown means not (yet) known or
	// unavailable: such a server is never suitable.
	Role wire.Role
	// RTT is the server's average round-trip time (see RTT), ≥ 0. Only servers of a known
	// role need one.
	RTT time.Duration
	// InFlight is the server's operationCount: the operations selected for it that have not
	// completed. Select reads it; the caller increments it after selecting the server and
	// decrements it when the operation completes.
	InFlight int
	// Tags is the server's tag set from its replica set configuration; nil means none.
	Tags map[string]string
}

// Selector selects servers. It holds scratch space, so that Select allocates nothing once the
// space has grown to the number of servers. The zero value is ready to use. A Selector is not
// safe for concurrent use, and holds no state between calls beyond that space.
type Selector struct {
	idx []int // positions in servers: the suitable servers, then the latency window
}

const (
	panicKind = "selection: unknown topology kind"
	panicMode = "selection: unknown read preference mode"
)

// Select returns the position in servers of the server chosen for one operation, or -1 if no
// server is suitable. kind is the topology type; rp the read preference, which only reads
// use; write says whether the operation is a write; deprioritized lists addresses to avoid
// unless no other server is suitable (servers that failed earlier attempts of the
// operation); localThreshold is the latency window's width (a negative value counts as 0).
// The package documentation gives the algorithm.
//
// r is drawn from exactly once, by r.IntN(n·(n−1)), when the latency window holds n ≥ 2
// servers, and not at all otherwise, so r may be nil when at most one server can be
// suitable. The result depends on the order of servers only through that draw.
//
// Select panics if kind or rp.Mode is not a defined value; ReadPreference.Validate reports
// both.
func (s *Selector) Select(kind TopologyKind, servers []Server, rp ReadPreference, write bool,
	deprioritized []string, localThreshold time.Duration, r *rand.Rand) int {
	w := s.window(kind, servers, rp, write, deprioritized, localThreshold)
	switch n := len(w); n {
	case 0:
		return -1
	case 1:
		return w[0]
	default:
		k := r.IntN(n * (n - 1))
		i, j := k/(n-1), k%(n-1)
		if j >= i {
			j++
		}
		a, b := w[i], w[j]
		if servers[b].InFlight < servers[a].InFlight {
			return b
		}
		return a
	}
}

// window returns the positions, in increasing order, of the suitable servers within the
// latency window (steps 1 and 2 of the algorithm). It aliases s.idx.
func (s *Selector) window(kind TopologyKind, servers []Server, rp ReadPreference, write bool,
	deprioritized []string, localThreshold time.Duration) []int {
	w := s.suitable(kind, servers, rp, write, deprioritized)
	if len(w) == 0 && len(deprioritized) > 0 {
		w = s.suitable(kind, servers, rp, write, nil)
	}
	if len(w) <= 1 {
		return w
	}
	minRTT := servers[w[0]].RTT
	for _, i := range w[1:] {
		minRTT = min(minRTT, servers[i].RTT)
	}
	localThreshold = max(localThreshold, 0)
	n := 0
	for _, i := range w {
		if servers[i].RTT-minRTT <= localThreshold { // RTT ≥ minRTT: no overflow for RTTs ≥ 0
			w[n] = i
			n++
		}
	}
	return w[:n]
}

// Role masks for collect.
const (
	maskPrimary   = 1 << wire.Primary
	maskSecondary = 1 << wire.Secondary
	maskMongos    = 1 << wire.Mongos
	maskKnown     = 1<<wire.Standalone | maskPrimary | maskSecondary | maskMongos
)

// suitable returns the positions of the suitable servers among those whose address is not in
// excluded, by the topology-type rules. It overwrites and aliases s.idx.
func (s *Selector) suitable(kind TopologyKind, servers []Server, rp ReadPreference, write bool,
	excluded []string) []int {
	switch kind {
	case Single:
		return s.collect(servers, excluded, maskKnown)
	case Sharded:
		return s.collect(servers, excluded, maskMongos)
	case ReplicaSet:
	default:
		panic(panicKind)
	}
	if write {
		return s.collect(servers, excluded, maskPrimary)
	}
	switch rp.Mode {
	case Primary:
		return s.collect(servers, excluded, maskPrimary)
	case Secondary:
		return eligible(s.collect(servers, excluded, maskSecondary), servers, rp.TagSets)
	case Nearest:
		return eligible(s.collect(servers, excluded, maskPrimary|maskSecondary), servers, rp.TagSets)
	case PrimaryPreferred:
		if p := s.collect(servers, excluded, maskPrimary); len(p) > 0 {
			return p
		}
		return eligible(s.collect(servers, excluded, maskSecondary), servers, rp.TagSets)
	case SecondaryPreferred:
		if e := eligible(s.collect(servers, excluded, maskSecondary), servers, rp.TagSets); len(e) > 0 {
			return e
		}
		return s.collect(servers, excluded, maskPrimary)
	default:
		panic(panicMode)
	}
}

// collect returns the positions of the servers whose role is in mask and whose address is not
// in excluded. It overwrites and aliases s.idx.
func (s *Selector) collect(servers []Server, excluded []string, mask uint) []int {
	out := s.idx[:0]
	for i := range servers {
		if mask&(1<<servers[i].Role) != 0 && !contains(excluded, servers[i].Address) {
			out = append(out, i)
		}
	}
	s.idx = out
	return out
}

// contains reports whether addrs holds addr. The list is short (the servers one operation
// has failed on), so a scan beats a map and allocates nothing.
func contains(addrs []string, addr string) bool {
	for _, a := range addrs {
		if a == addr {
			return true
		}
	}
	return false
}

// eligible filters the candidates at positions idx by the tag set list, in place: the first
// tag set matching at least one candidate keeps the candidates it matches.
func eligible(idx []int, servers []Server, tagSets []map[string]string) []int {
	if len(tagSets) == 0 {
		return idx
	}
	for _, set := range tagSets {
		n := 0
		for _, i := range idx {
			if matches(servers[i].Tags, set) {
				idx[n] = i // n ≤ position of i: compaction never overwrites an unread entry
				n++
			}
		}
		if n > 0 {
			return idx[:n]
		}
	}
	return idx[:0]
}

// matches reports whether a server with tags has every tag of set.
func matches(tags, set map[string]string) bool {
	for k, v := range set {
		if t, ok := tags[k]; !ok || t != v {
			return false
		}
	}
	return true
}

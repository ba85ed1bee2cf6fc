package selection

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/wire"
)

const ms = time.Millisecond

// Spec sources cited by the tests, abbreviated.
const (
	specSS  = "server-selection.md"
	specAlg = specSS + ", Server Selection Algorithm step 3: filter out deprioritized addresses; with no suitable server, repeat without the filter"
	specRS  = specSS + ", Topology types ReplicaSet…, Read operations"
	specSel = "server-selection/tests/server_selection/ReplicaSetWithPrimary/read/"
	specRR  = "retryable-reads/tests/README.md, prose test "
)

func srv(addr string, role wire.Role, rtt time.Duration, tags ...string) Server {
	s := Server{Address: addr, Role: role, RTT: rtt}
	if len(tags) > 0 {
		s.Tags = map[string]string{}
		for i := 0; i+1 < len(tags); i += 2 {
			s.Tags[tags[i]] = tags[i+1]
		}
	}
	return s
}

func tagSets(sets ...map[string]string) []map[string]string { return sets }

// rs3 is the replica set of the spec tests: primary a, secondaries b and c, all at 5 ms in nyc.
func rs3() []Server {
	return []Server{
		srv("a:27017", wire.Primary, 5*ms, "data_center", "nyc"),
		srv("b:27017", wire.Secondary, 5*ms, "data_center", "nyc"),
		srv("c:27017", wire.Secondary, 5*ms, "data_center", "nyc"),
	}
}

func secondariesOnly() []Server { return rs3()[1:] }
func primaryOnly() []Server     { return rs3()[:1] }

func mongoses() []Server {
	return []Server{
		srv("m1:27017", wire.Mongos, 5*ms),
		srv("m2:27017", wire.Mongos, 5*ms),
		srv("m3:27017", wire.Mongos, 5*ms),
	}
}

var (
	a, b, c    = "a:27017", "b:27017", "c:27017"
	m1, m2, m3 = "m1:27017", "m2:27017", "m3:27017"
)

type selCase struct {
	gloss   string // what the row shows, in English
	cite    string // the rule it checks
	kind    TopologyKind
	servers []Server
	rp      ReadPreference
	write   bool
	deprio  []string
	want    []string // the latency window in server order; empty: no suitable server
}

var selCases = []selCase{
	// Writes.
	{gloss: "a write on a single topology goes to its server, whatever the server's role",
		cite: specSS + ", Topology type: Single: the single server is always suitable for write operations if it is available",
		kind: Single, servers: []Server{srv("s:27017", wire.Secondary, 5*ms)}, write: true, want: []string{"s:27017"}},
	{gloss: "a single topology whose server is Unknown has no suitable server",
		cite: specSS + ", Terms, Available: a server of type Unknown is not available",
		kind: Single, servers: []Server{srv("s:27017", wire.Unknown, 0)}, write: true},
	{gloss: "a replica-set write goes to the primary only",
		cite: specSS + ", Write operations: only an available primary is suitable",
		kind: ReplicaSet, servers: rs3(), write: true, want: []string{a}},
	{gloss: "a replica-set write with no primary finds no server",
		cite: specSS + ", Write operations: with ReplicaSetNoPrimary no servers are suitable",
		kind: ReplicaSet, servers: secondariesOnly(), write: true},
	{gloss: "a replica-set write with the primary deprioritised still goes to the primary",
		cite: specAlg, kind: ReplicaSet, servers: rs3(), write: true, deprio: []string{a}, want: []string{a}},
	{gloss: "a write ignores the read preference",
		cite: specSS + ", Write operations", kind: ReplicaSet, servers: rs3(), write: true,
		rp: ReadPreference{Mode: Secondary}, want: []string{a}},
	{gloss: "a sharded write may go to any mongos",
		cite: specSS + ", Topology type: Sharded: for write operations, all servers of type Mongos are suitable",
		kind: Sharded, servers: mongoses(), write: true, want: []string{m1, m2, m3}},
	{gloss: "a sharded write avoids the deprioritised mongos",
		cite: specAlg, kind: Sharded, servers: mongoses(), write: true, deprio: []string{m1}, want: []string{m2, m3}},
	{gloss: "a sharded write with every mongos deprioritised may go to any",
		cite: specAlg, kind: Sharded, servers: mongoses(), write: true, deprio: []string{m3, m1, m2}, want: []string{m1, m2, m3}},

	// Single and sharded reads ignore the read preference.
	{gloss: "a single topology ignores the read preference: a primary-mode read goes to a secondary",
		cite: specSS + ", Topology type: Single: read preference is ignored during server selection",
		kind: Single, servers: []Server{srv("s:27017", wire.Secondary, 5*ms)}, want: []string{"s:27017"}},
	{gloss: "a sharded read ignores mode and tags: every mongos is suitable",
		cite: specSS + ", Topology type: Sharded: mode and tag_sets are ignored for selecting a server, but passed through to mongos",
		kind: Sharded, servers: mongoses(), rp: ReadPreference{Mode: Secondary, TagSets: tagSets(map[string]string{"dc": "sf"})},
		want: []string{m1, m2, m3}},
	{gloss: "an Unknown mongos is never suitable, even as the only one not deprioritised",
		cite: specSS + ", Topology type: Sharded: all servers of type Mongos are suitable; " + specAlg,
		kind: Sharded, servers: []Server{srv(m1, wire.Unknown, 0), srv(m2, wire.Mongos, 5*ms), srv(m3, wire.Mongos, 5*ms)},
		deprio: []string{m2, m3}, want: []string{m2, m3}},
	{gloss: "a sharded topology's non-mongos servers are never suitable",
		cite: specSS + ", Topology type: Sharded: all servers of type Mongos are suitable",
		kind: Sharded, servers: []Server{srv(m1, wire.Standalone, 5*ms), srv(m2, wire.Mongos, 5*ms)}, want: []string{m2}},

	// mode primary.
	{gloss: "mode primary selects the primary",
		cite: specSS + ", mode primary: only an available primary is suitable",
		kind: ReplicaSet, servers: rs3(), want: []string{a}},
	{gloss: "DeprioritizedPrimary: mode primary with the primary deprioritised still selects the primary",
		cite: specSel + "DeprioritizedPrimary; " + specAlg,
		kind: ReplicaSet, servers: rs3(), deprio: []string{a}, want: []string{a}},
	{gloss: "mode primary with no primary finds no server: secondaries never serve it",
		cite: specSS + ", mode primary", kind: ReplicaSet, servers: secondariesOnly()},

	// mode primaryPreferred.
	{gloss: "primaryPreferred selects the primary when there is one",
		cite: specSS + ", primaryPreferred: if a primary is available, only the primary is suitable",
		kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: PrimaryPreferred}, want: []string{a}},
	{gloss: "primaryPreferred with the primary deprioritised selects a secondary",
		cite: specRS + ": if the primary is deprioritized, a secondary MUST be selected if one is available",
		kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: PrimaryPreferred}, deprio: []string{a}, want: []string{b, c}},
	{gloss: "primaryPreferred with the primary and one secondary deprioritised selects the other secondary",
		cite: specAlg, kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: PrimaryPreferred},
		deprio: []string{a, b}, want: []string{c}},
	{gloss: "primaryPreferred with every member deprioritised falls back to the primary",
		cite: specAlg + "; primaryPreferred: select the primary if it is known",
		kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: PrimaryPreferred}, deprio: []string{a, b, c}, want: []string{a}},
	{gloss: "primaryPreferred without a primary selects the secondaries",
		cite: specSS + ", primaryPreferred: otherwise all secondaries are candidates",
		kind: ReplicaSet, servers: secondariesOnly(), rp: ReadPreference{Mode: PrimaryPreferred}, want: []string{b, c}},
	{gloss: "primaryPreferred without a primary and with every secondary deprioritised selects them anyway",
		cite: specAlg, kind: ReplicaSet, servers: secondariesOnly(), rp: ReadPreference{Mode: PrimaryPreferred},
		deprio: []string{b, c}, want: []string{b, c}},
	{gloss: "DeprioritizedPrimaryPreferredOnlyMatchingTags: the deprioritised primary wins when no secondary matches the tags",
		cite: specSel + "DeprioritizedPrimaryPreferredOnlyMatchingTags",
		kind: ReplicaSet,
		servers: []Server{srv(b, wire.Secondary, 5*ms, "data_center", "tokyo"), srv(c, wire.Secondary, 5*ms, "data_center", "tokyo"),
			srv(a, wire.Primary, 5*ms, "data_center", "nyc")},
		rp:     ReadPreference{Mode: PrimaryPreferred, TagSets: tagSets(map[string]string{"data_center": "nyc"})},
		deprio: []string{a}, want: []string{a}},
	{gloss: "primaryPreferred does not filter the primary by tags",
		cite: specSS + ", primaryPreferred: if a primary is available, only the primary is suitable",
		kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: PrimaryPreferred, TagSets: tagSets(map[string]string{"data_center": "sf"})},
		want: []string{a}},

	// mode secondaryPreferred.
	{gloss: "secondaryPreferred selects the secondaries",
		cite: specSS + ", secondaryPreferred: if there is at least one eligible secondary, only eligible secondaries are suitable",
		kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: SecondaryPreferred}, want: []string{b, c}},
	{gloss: "secondaryPreferred with one secondary deprioritised selects the other",
		cite: specAlg, kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: SecondaryPreferred},
		deprio: []string{b}, want: []string{c}},
	{gloss: "secondaryPreferred with every secondary deprioritised selects the primary",
		cite: specRS + ": if all secondaries are deprioritized, the primary MUST be selected if it is available",
		kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: SecondaryPreferred}, deprio: []string{b, c}, want: []string{a}},
	{gloss: "DeprioritizedAllSecondaryPreferred: with every member deprioritised, the secondaries are suitable",
		cite: specSel + "DeprioritizedAllSecondaryPreferred",
		kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: SecondaryPreferred}, deprio: []string{a, b, c}, want: []string{b, c}},
	{gloss: "secondaryPreferred with every secondary deprioritised and no primary selects them anyway",
		cite: specAlg, kind: ReplicaSet, servers: secondariesOnly(), rp: ReadPreference{Mode: SecondaryPreferred},
		deprio: []string{b, c}, want: []string{b, c}},
	{gloss: "secondaryPreferred with no secondary selects the primary",
		cite: specSS + ", secondaryPreferred: when there are no eligible secondaries, the primary is suitable",
		kind: ReplicaSet, servers: primaryOnly(), rp: ReadPreference{Mode: SecondaryPreferred}, want: []string{a}},
	{gloss: "secondaryPreferred whose tags match no secondary selects the primary, unfiltered by tags",
		cite: specSS + ", secondaryPreferred (spec test SecondaryPreferred_non_matching)",
		kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: SecondaryPreferred, TagSets: tagSets(map[string]string{"data_center": "sf"})},
		want: []string{a}},

	// mode secondary.
	{gloss: "secondary selects the secondaries, never the primary",
		cite: specSS + ", secondary: all secondaries (and only secondaries) are candidates",
		kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: Secondary}, want: []string{b, c}},
	{gloss: "secondary with one secondary deprioritised selects the other",
		cite: specSel + "DeprioritizedSecondary; " + specAlg,
		kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: Secondary}, deprio: []string{b}, want: []string{c}},
	{gloss: "secondary with every secondary deprioritised selects among all of them",
		cite: specAlg, kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: Secondary},
		deprio: []string{b, c}, want: []string{b, c}},
	{gloss: "secondary with no secondary finds no server, though there is a primary",
		cite: specSS + ", secondary", kind: ReplicaSet, servers: primaryOnly(), rp: ReadPreference{Mode: Secondary}},
	{gloss: "secondary whose tags match no secondary finds no server",
		cite: specSS + ", tag_sets: if no tag set matches any candidate, no servers are eligible",
		kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: Secondary, TagSets: tagSets(map[string]string{"data_center": "sf"})}},

	// mode nearest.
	{gloss: "nearest selects the primary and the secondaries",
		cite: specSS + ", nearest: the primary and all secondaries are candidates",
		kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: Nearest}, want: []string{a, b, c}},
	{gloss: "nearest with the primary deprioritised selects the secondaries",
		cite: specAlg, kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: Nearest}, deprio: []string{a}, want: []string{b, c}},
	{gloss: "nearest with every member deprioritised selects among all of them",
		cite: specAlg, kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: Nearest}, deprio: []string{a, b, c}, want: []string{a, b, c}},
	{gloss: "DeprioritizedNearestOnlyMatchingTags: the deprioritised server is chosen as the only one matching the tags",
		cite: specSel + "DeprioritizedNearestOnlyMatchingTags",
		kind: ReplicaSet,
		servers: []Server{srv(b, wire.Secondary, 5*ms, "data_center", "nyc"), srv(c, wire.Secondary, 100*ms, "data_center", "tokyo"),
			srv(a, wire.Primary, 26*ms, "data_center", "tokyo")},
		rp:     ReadPreference{Mode: Nearest, TagSets: tagSets(map[string]string{"data_center": "nyc"})},
		deprio: []string{b}, want: []string{b}},
	{gloss: "nearest filters the primary by tags too",
		cite: specSS + ", nearest: only eligible candidates are suitable",
		kind: ReplicaSet,
		servers: []Server{srv(a, wire.Primary, 5*ms, "dc", "ny"), srv(b, wire.Secondary, 5*ms, "dc", "sf"),
			srv(c, wire.Secondary, 5*ms, "dc", "ny")},
		rp: ReadPreference{Mode: Nearest, TagSets: tagSets(map[string]string{"dc": "ny"})}, want: []string{a, c}},

	// Tag sets.
	{gloss: "the first tag set matching a candidate wins; later sets are ignored; a server may have extra tags",
		cite: specSS + ", tag_sets: tag sets are tried in order until a tag set matches at least one candidate server",
		kind: ReplicaSet,
		servers: []Server{srv(a, wire.Primary, 5*ms), srv(b, wire.Secondary, 5*ms, "dc", "ny", "rack", "1"),
			srv(c, wire.Secondary, 5*ms, "dc", "ny", "rack", "2", "size", "large")},
		rp: ReadPreference{Mode: Secondary, TagSets: tagSets(map[string]string{"dc": "sf"},
			map[string]string{"dc": "ny", "rack": "2"}, map[string]string{})},
		want: []string{c}},
	{gloss: "a tag set matches only servers with the same value for each key",
		cite:    specSS + ", tag_sets: T matches S if T ⊆ S",
		kind:    ReplicaSet,
		servers: []Server{srv(b, wire.Secondary, 5*ms, "dc", "ny"), srv(c, wire.Secondary, 5*ms, "dc", "nyc")},
		rp:      ReadPreference{Mode: Secondary, TagSets: tagSets(map[string]string{"dc": "ny"})}, want: []string{b}},
	{gloss: "the empty tag set matches every server, tagged or not",
		cite: specSS + ", tag_sets: a tag set that is an empty document matches any server",
		kind: ReplicaSet, servers: []Server{srv(b, wire.Secondary, 5*ms), srv(c, wire.Secondary, 5*ms, "dc", "ny")},
		rp: ReadPreference{Mode: Secondary, TagSets: tagSets(map[string]string{})}, want: []string{b, c}},
	{gloss: "deprioritisation filters before tags: with the first set's only match deprioritised, a later set picks a free server",
		cite: specAlg + " (find suitable servers from the filtered list)",
		kind: ReplicaSet,
		servers: []Server{srv(a, wire.Primary, 5*ms), srv(b, wire.Secondary, 5*ms, "dc", "ny"),
			srv(c, wire.Secondary, 5*ms, "dc", "sf")},
		rp:     ReadPreference{Mode: SecondaryPreferred, TagSets: tagSets(map[string]string{"dc": "ny"}, map[string]string{})},
		deprio: []string{b}, want: []string{c}},

	// Server types that are never suitable.
	{gloss: "an Unknown member is never suitable, even as the only one not deprioritised",
		cite: specSS + ", Terms, Available; " + specAlg,
		kind: ReplicaSet, servers: []Server{srv(b, wire.Unknown, 0), srv(c, wire.Secondary, 5*ms)},
		rp: ReadPreference{Mode: Secondary}, deprio: []string{c}, want: []string{c}},
	{gloss: "a replica set's mongos and standalone members are never candidates",
		cite: specSS + ", mode: note on other server types: such types are never candidates, eligible or suitable",
		kind: ReplicaSet, servers: []Server{srv(m1, wire.Mongos, 1*ms), srv("s:27017", wire.Standalone, 1*ms), srv(a, wire.Primary, 5*ms)},
		rp: ReadPreference{Mode: Nearest}, want: []string{a}},
	{gloss: "an unrelated deprioritised address changes nothing",
		cite: specAlg, kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: Nearest}, deprio: []string{"z:27017"},
		want: []string{a, b, c}},
}

// addresses returns the addresses of servers at positions idx.
func addresses(servers []Server, idx []int) []string {
	var out []string
	for _, i := range idx {
		out = append(out, servers[i].Address)
	}
	return out
}

// checkCase checks the latency window of tc, then that Select returns only its members, each
// at least once, over draws seeds.
func checkCase(t *testing.T, tc selCase, threshold time.Duration) {
	t.Helper()
	var s Selector
	got := addresses(tc.servers, s.window(tc.kind, tc.servers, tc.rp, tc.write, tc.deprio, threshold))
	if !slices.Equal(got, tc.want) {
		t.Fatalf("window(%v, %v, write=%v, deprioritized=%v) = %v, want %v\n(%s)", tc.kind, tc.rp, tc.write, tc.deprio, got, tc.want, tc.cite)
	}
	seen := map[string]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		i := s.Select(tc.kind, tc.servers, tc.rp, tc.write, tc.deprio, threshold, r)
		if i < 0 {
			if len(tc.want) > 0 {
				t.Fatalf("Select(...) = -1, want one of %v\n(%s)", tc.want, tc.cite)
			}
			continue
		}
		if !slices.Contains(tc.want, tc.servers[i].Address) {
			t.Fatalf("Select(...) = %s, want one of %v\n(%s)", tc.servers[i].Address, tc.want, tc.cite)
		}
		seen[tc.servers[i].Address] = true
	}
	if len(seen) != len(tc.want) {
		t.Errorf("200 selections chose %d distinct servers, want all %d of %v", len(seen), len(tc.want), tc.want)
	}
}

// TestSelectSuitable checks, row by row, which servers each topology, operation, read
// preference and deprioritised list makes suitable.
func TestSelectSuitable(t *testing.T) {
	for _, tc := range selCases {
		t.Run(tc.gloss, func(t *testing.T) { checkCase(t, tc, DefaultLocalThreshold) })
	}
}

// TestRetryableReadsProse replays the server selection part of the retryable reads prose tests:
// an attempt fails on the server Select chose, and the retry selects again with or without
// that server deprioritised.
func TestRetryableReadsProse(t *testing.T) {
	cases := []struct {
		gloss      string
		cite       string
		kind       TopologyKind
		servers    []Server
		rp         ReadPreference
		retarget   bool // whether the driver deprioritises the failed server for the retry
		sameServer bool // whether the retry must go to the failed server
	}{
		{gloss: "an overload error on the primary with retargeting: the primaryPreferred retry goes to a secondary",
			cite: specRR + "3.1", kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: PrimaryPreferred},
			retarget: true, sameServer: false},
		{gloss: "a non-overload retryable error: the primaryPreferred retry goes to the same primary",
			cite: specRR + "3.2", kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: PrimaryPreferred},
			retarget: false, sameServer: true},
		{gloss: "an overload error without retargeting: the primaryPreferred retry goes to the same primary",
			cite: specRR + "3.3", kind: ReplicaSet, servers: rs3(), rp: ReadPreference{Mode: PrimaryPreferred},
			retarget: false, sameServer: true},
		{gloss: "two mongoses: the retry goes to the other mongos",
			cite: specRR + "2.1", kind: Sharded, servers: mongoses()[:2], retarget: true, sameServer: false},
		{gloss: "one mongos: the retry goes to the same mongos though it is deprioritised",
			cite: specRR + "2.2", kind: Sharded, servers: mongoses()[:1], retarget: true, sameServer: true},
	}
	for _, tc := range cases {
		t.Run(tc.gloss, func(t *testing.T) {
			var s Selector
			r := rand.New(rand.NewPCG(3, 4))
			for range 100 {
				first := s.Select(tc.kind, tc.servers, tc.rp, false, nil, DefaultLocalThreshold, r)
				if first < 0 {
					t.Fatalf("first Select = -1 (%s)", tc.cite)
				}
				var deprio []string
				if tc.retarget {
					deprio = []string{tc.servers[first].Address}
				}
				retry := s.Select(tc.kind, tc.servers, tc.rp, false, deprio, DefaultLocalThreshold, r)
				if retry < 0 {
					t.Fatalf("retry Select = -1 (%s)", tc.cite)
				}
				if same := retry == first; same != tc.sameServer {
					t.Fatalf("first attempt on %s, retry on %s: same server = %v, want %v (%s)",
						tc.servers[first].Address, tc.servers[retry].Address, same, tc.sameServer, tc.cite)
				}
			}
		})
	}
}

// TestLatencyWindow checks the window [minRTT, minRTT + localThreshold] at its edges.
// Reference: server-selection.md, Filtering suitable servers based on the latency window.
func TestLatencyWindow(t *testing.T) {
	nearest := ReadPreference{Mode: Nearest}
	cases := []struct {
		gloss     string
		servers   []Server
		rp        ReadPreference
		threshold time.Duration
		want      []string
	}{
		{gloss: "a server at exactly minRTT + localThreshold is in the window",
			servers: []Server{srv(a, wire.Primary, 5*ms), srv(b, wire.Secondary, 20*ms)}, rp: nearest,
			threshold: 15 * ms, want: []string{a, b}},
		{gloss: "a server one nanosecond beyond the window is out",
			servers: []Server{srv(a, wire.Primary, 5*ms), srv(b, wire.Secondary, 20*ms+1)}, rp: nearest,
			threshold: 15 * ms, want: []string{a}},
		{gloss: "the window anchors on the fastest suitable server, wherever it is in the list",
			servers: []Server{srv(a, wire.Primary, 41*ms+1), srv(b, wire.Secondary, 30*ms), srv(c, wire.Secondary, 26*ms)},
			rp:      nearest, threshold: 15 * ms, want: []string{b, c}},
		{gloss: "a fast server that is not suitable does not anchor the window",
			servers: []Server{srv(a, wire.Primary, 1*ms), srv(b, wire.Secondary, 20*ms), srv(c, wire.Secondary, 30*ms)},
			rp:      ReadPreference{Mode: Secondary}, threshold: 15 * ms, want: []string{b, c}},
		{gloss: "a zero threshold keeps only the fastest servers, ties included",
			servers: []Server{srv(a, wire.Primary, 5*ms), srv(b, wire.Secondary, 5*ms), srv(c, wire.Secondary, 5*ms+1)},
			rp:      nearest, threshold: 0, want: []string{a, b}},
		{gloss: "a negative threshold counts as zero",
			servers: []Server{srv(a, wire.Primary, 5*ms), srv(b, wire.Secondary, 5*ms), srv(c, wire.Secondary, 5*ms+1)},
			rp:      nearest, threshold: -time.Second, want: []string{a, b}},
		{gloss: "a wide threshold takes in every suitable server",
			servers: []Server{srv(a, wire.Primary, 5*ms), srv(b, wire.Secondary, 500*ms), srv(c, wire.Secondary, 0)},
			rp:      nearest, threshold: time.Second, want: []string{a, b, c}},
	}
	for _, tc := range cases {
		t.Run(tc.gloss, func(t *testing.T) {
			checkCase(t, selCase{gloss: tc.gloss, cite: specSS + ", latency window", kind: ReplicaSet,
				servers: tc.servers, rp: tc.rp, want: tc.want}, tc.threshold)
		})
	}
}

// TestFarServerNeverChosen checks over many draws that a server beyond the latency window is
// never chosen, even when it is idle and the others are busy.
func TestFarServerNeverChosen(t *testing.T) {
	servers := []Server{
		{Address: a, Role: wire.Primary, RTT: 5 * ms, InFlight: 100},
		{Address: b, Role: wire.Secondary, RTT: 12 * ms, InFlight: 50},
		{Address: c, Role: wire.Secondary, RTT: 20*ms + 1, InFlight: 0}, // 1 ns beyond 5 ms + 15 ms
	}
	var s Selector
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 10000 {
		if i := s.Select(ReplicaSet, servers, ReadPreference{Mode: Nearest}, false, nil, DefaultLocalThreshold, r); i == 2 {
			t.Fatalf("selection %d chose %s, RTT %v, beyond the window [5ms, 20ms]", n, servers[i].Address, servers[i].RTT)
		}
	}
}

// binomialTolerance is 4 standard deviations of a Binomial(n, p) count: a correct sampler
// falls outside it with probability about 6e-5 (and with the fixed seeds here, never).
func binomialTolerance(n int, p float64) float64 {
	return 4 * math.Sqrt(float64(n)*p*(1-p))
}

// TestPowerOfTwoChoices checks the distribution of power-of-two-choices among three servers of
// equal RTT with 0, 5 and 10 operations in flight. Two distinct servers are drawn uniformly
// (3 unordered pairs, each with probability 1/3) and the less loaded one wins: the idle server
// wins the 2 pairs it is in (p = 2/3), the middle one wins the pair {5, 10} (p = 1/3), the
// busiest never wins. Reference: server-selection.md, Server Selection Algorithm steps 6–7.
func TestPowerOfTwoChoices(t *testing.T) {
	const n = 10000
	servers := []Server{
		{Address: a, Role: wire.Mongos, RTT: 5 * ms, InFlight: 0},
		{Address: b, Role: wire.Mongos, RTT: 5 * ms, InFlight: 5},
		{Address: c, Role: wire.Mongos, RTT: 5 * ms, InFlight: 10},
	}
	want := []float64{2.0 / 3, 1.0 / 3, 0}
	checkShares(t, servers, n, want)
	// Listing the servers in another order changes which draws pick which server, not the
	// distribution.
	slices.Reverse(servers)
	slices.Reverse(want)
	checkShares(t, servers, n, want)
}

// TestPowerOfTwoChoicesTies checks that with equal loads every server of the window is chosen
// with the same probability: ties go to the first server drawn, itself uniform.
func TestPowerOfTwoChoicesTies(t *testing.T) {
	servers := mongoses()
	for i := range servers {
		servers[i].InFlight = 7
	}
	checkShares(t, servers, 10000, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3})
	servers = append(servers, Server{Address: "m4:27017", Role: wire.Mongos, RTT: 5 * ms, InFlight: 7})
	checkShares(t, servers, 10000, []float64{0.25, 0.25, 0.25, 0.25})
}

func checkShares(t *testing.T, servers []Server, n int, want []float64) {
	t.Helper()
	counts := make([]int, len(servers))
	var s Selector
	r := rand.New(rand.NewPCG(7, 8))
	for range n {
		counts[s.Select(Sharded, servers, ReadPreference{}, false, nil, DefaultLocalThreshold, r)]++
	}
	for i, p := range want {
		exp, tol := p*float64(n), binomialTolerance(n, p)
		if math.Abs(float64(counts[i])-exp) > tol {
			t.Errorf("%s (in flight %d) chosen %d times in %d, want %.0f ± %.0f (4σ)",
				servers[i].Address, servers[i].InFlight, counts[i], n, exp, tol)
		}
	}
}

// countingSource counts the Uint64 calls made on a PCG source.
type countingSource struct {
	pcg   *rand.PCG
	calls int
}

func (c *countingSource) Uint64() uint64 { c.calls++; return c.pcg.Uint64() }

// TestDrawCount checks the documented number of random draws: none when at most one server is
// in the window, one Uint64 (one IntN call) otherwise.
func TestDrawCount(t *testing.T) {
	for _, tc := range []struct {
		gloss   string
		servers []Server
		deprio  []string
		want    int
	}{
		{gloss: "no suitable server: no draw", servers: []Server{srv(m1, wire.Unknown, 0)}, want: 0},
		{gloss: "one suitable server: no draw", servers: mongoses()[:1], want: 0},
		{gloss: "one server in the window: no draw",
			servers: []Server{srv(m1, wire.Mongos, 5*ms), srv(m2, wire.Mongos, 50*ms)}, want: 0},
		{gloss: "one server left by deprioritisation: no draw", servers: mongoses(), deprio: []string{m1, m2}, want: 0},
		{gloss: "two servers: one draw", servers: mongoses()[:2], want: 1},
		{gloss: "three servers: one draw", servers: mongoses(), want: 1},
	} {
		src := &countingSource{pcg: rand.NewPCG(9, 10)}
		r := rand.New(src)
		var s Selector
		const calls = 1000
		for range calls {
			s.Select(Sharded, tc.servers, ReadPreference{}, false, tc.deprio, DefaultLocalThreshold, r)
		}
		if got := src.calls; got != tc.want*calls {
			t.Errorf("%s: %d Selects drew %d Uint64s, want %d", tc.gloss, calls, got, tc.want*calls)
		}
	}
}

// TestSelectPinned pins the choices of one seeded stream, so that a change to how Select uses
// its random numbers shows up as a failure: runs recorded with one version must replay on the
// next.
func TestSelectPinned(t *testing.T) {
	servers := []Server{
		{Address: "0", Role: wire.Mongos, RTT: 5 * ms, InFlight: 1},
		{Address: "1", Role: wire.Mongos, RTT: 6 * ms, InFlight: 2},
		{Address: "2", Role: wire.Mongos, RTT: 7 * ms, InFlight: 1},
		{Address: "3", Role: wire.Mongos, RTT: 8 * ms, InFlight: 3},
	}
	var s Selector
	r := rand.New(rand.NewPCG(11, 12))
	var b strings.Builder
	for range 32 {
		b.WriteString(servers[s.Select(Sharded, servers, ReadPreference{}, false, nil, DefaultLocalThreshold, r)].Address)
	}
	const want = "10221022222000222020002211102002"
	if got := b.String(); got != want {
		t.Errorf("32 selections with PCG(11, 12) = %s, want %s", got, want)
	}
}

// TestSelectAllocs checks that Select allocates nothing once its Selector has grown.
func TestSelectAllocs(t *testing.T) {
	servers := append(rs3(), srv("d:27017", wire.Secondary, 9*ms, "data_center", "sf"), srv("e:27017", wire.Unknown, 0))
	rp := ReadPreference{Mode: SecondaryPreferred, TagSets: tagSets(map[string]string{"data_center": "sf"}, map[string]string{})}
	deprio := []string{"d:27017", b}
	var s Selector
	r := rand.New(rand.NewPCG(13, 14))
	for _, tc := range []struct {
		gloss string
		kind  TopologyKind
		rp    ReadPreference
		write bool
	}{
		{"secondaryPreferred with tags and deprioritised servers", ReplicaSet, rp, false},
		{"primaryPreferred falling back to the secondaries", ReplicaSet, ReadPreference{Mode: PrimaryPreferred}, false},
		{"nearest", ReplicaSet, ReadPreference{Mode: Nearest}, false},
		{"a write", ReplicaSet, ReadPreference{}, true},
		{"sharded", Sharded, ReadPreference{}, false},
	} {
		allocs := testing.AllocsPerRun(1000, func() {
			s.Select(tc.kind, servers, tc.rp, tc.write, deprio, DefaultLocalThreshold, r)
		})
		if allocs != 0 {
			t.Errorf("%s: Select allocates %v times per call, want 0", tc.gloss, allocs)
		}
	}
}

// TestSelectPanics checks that undefined enum values are refused loudly.
func TestSelectPanics(t *testing.T) {
	for _, tc := range []struct {
		gloss string
		kind  TopologyKind
		mode  Mode
		want  string
	}{
		{"unknown topology kind", TopologyKind(9), Primary, panicKind},
		{"unknown mode", ReplicaSet, Mode(9), panicMode},
	} {
		func() {
			defer func() {
				if got := recover(); got != tc.want {
					t.Errorf("%s: Select panicked with %v, want %q", tc.gloss, got, tc.want)
				}
			}()
			var s Selector
			s.Select(tc.kind, rs3(), ReadPreference{Mode: tc.mode}, false, nil, DefaultLocalThreshold, nil)
		}()
	}
}

func BenchmarkSelect(b *testing.B) {
	for _, n := range []int{3, 7, 50} {
		servers := make([]Server, n)
		for i := range servers {
			servers[i] = Server{Address: strings.Repeat("x", i+1), Role: wire.Secondary, RTT: time.Duration(i) * ms, InFlight: i % 3}
		}
		servers[0].Role = wire.Primary
		deprio := []string{servers[1].Address}
		b.Run("servers="+strconv.Itoa(n), func(b *testing.B) {
			var s Selector
			r := rand.New(rand.NewPCG(1, 1))
			for b.Loop() {
				s.Select(ReplicaSet, servers, ReadPreference{Mode: Nearest}, false, deprio, DefaultLocalThreshold, r)
			}
		})
	}
}

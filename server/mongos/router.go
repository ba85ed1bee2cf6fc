package mongos

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/overloadsim/overloadsim/ratelimiter"
	"github.com/overloadsim/overloadsim/server"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// Member is a shard member as a mongos sees it.
type Member struct {
	// Address is the member's address; it must be unique within the router.
	Address string
	// Node is the member itself: the handler the router sends requests to, and whose Role and
	// IsDown host targeting reads (the approximation of the streamable monitor, see the package
	// doc).
	Node *server.Server
	// Link is the network link between this mongos and the member. Requests and replies draw
	// their one-way delays from it.
	Link *wire.Link
}

// Shard is one shard: a replica set with its members in configuration order.
type Shard struct {
	Name    string
	Members []Member
}

//go:generate go run github.com/overloadsim/overloadsim/internal/countergen -type=ShardStats

// ShardStats is what a mongos reports about one shard in serverStatus
// (shardingStatistics.shards.<id>, ShardSharedStateCache::Stats plus the budget's balance).
// Counters are cumulative from the router's creation.
type ShardStats struct {
	Shard string `counter:"-"`
	// NumOperationsAttempted counts the commands routed to the shard.
	NumOperationsAttempted uint64
	// NumOperationsRetriedAtLeastOnceDueToOverload counts, as Shard::RetryStrategy does, every
	// overload error that follows an attempt that was not overloaded (in practice: once per
	// command with an overload error, whether or not it was retried).
	NumOperationsRetriedAtLeastOnceDueToOverload uint64
	// NumOperationsRetriedAtLeastOnceDueToOverloadAndSucceeded counts every attempt that was not
	// overloaded (a success, or an error without the label) after an overloaded one.
	NumOperationsRetriedAtLeastOnceDueToOverloadAndSucceeded uint64
	// NumRetriesDueToOverloadAttempted counts the retries decided after overload errors.
	NumRetriesDueToOverloadAttempted uint64
	// NumRetriesRetargetedDueToOverload counts the retries after an overload error that
	// overload-aware targeting sent to a member that had not returned an overload error to the
	// command.
	NumRetriesRetargetedDueToOverload uint64
	// NumOverloadErrorsReceived counts the replies labelled SystemOverloadedError.
	NumOverloadErrorsReceived uint64
	// TotalBackoffTime is totalBackoffTimeMillis: the time the shard's commands slept between
	// attempts (a sleep that maxTimeMS interrupted counts up to the deadline).
	TotalBackoffTime time.Duration
	// RetryBudgetTokenBucketBalance is the shard's retry budget balance when Stats was called;
	// +Inf when the router runs without budgets.
	RetryBudgetTokenBucketBalance float64 `counter:"gauge"`
}

// jitterer draws a backoff: an integer uniform in [0, n). A *rand.Rand is one; tests inject a
// source that always answers n−1 (the full backoff).
type jitterer interface {
	Int64N(n int64) int64
}

// Router is a mongos's routing layer toward its shards. It implements server.Router. Create it
// with New before the mongos node, and set it as the node's Config.Router.
type Router struct {
	loop   *sim.Loop
	cfg    Config
	shards []*shard

	shardRNG  *rand.Rand
	targetRNG *rand.Rand
	jitter    jitterer
	streams   []string

	nextID uint64
	free   []*command
	cands  []*member // scratch for targeting
}

var _ server.Router = (*Router)(nil)

// shard is the router's state for one shard.
type shard struct {
	name    string
	members []*member
	budget  *ratelimiter.RetryBudget // nil without budgets
	stats   ShardStats
}

// New returns a router on loop for the given shards, with streams derived from (seed,
// "mongos/<address>/…"). It validates cfg and the shards (at least one shard, each with a name
// and at least one member with an address, a node and a link; member addresses unique) and
// reports every problem at once; it never panics on bad input. The replica set monitor's first
// RTT pings go out at loop.Now().
func New(loop *sim.Loop, cfg Config, shards []Shard, seed uint64) (*Router, error) {
	var errs []error
	if loop == nil {
		errs = append(errs, errors.New("mongos: loop: nil: must be a loop"))
	}
	if err := cfg.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(shards) == 0 {
		errs = append(errs, errors.New("mongos: shards: []: must list at least one shard"))
	}
	seen := map[string]bool{}
	seenShard := map[string]bool{}
	for i, sh := range shards {
		p := fmt.Sprintf("shards[%d]", i)
		switch {
		case sh.Name == "":
			errs = append(errs, fmt.Errorf("mongos: %s.name: \"\": must not be empty", p))
		case seenShard[sh.Name]:
			errs = append(errs, fmt.Errorf("mongos: %s.name: %q: must be unique", p, sh.Name))
		}
		seenShard[sh.Name] = true
		if len(sh.Members) == 0 {
			errs = append(errs, fmt.Errorf("mongos: %s.members: []: must list at least one member", p))
		}
		for j, m := range sh.Members {
			q := fmt.Sprintf("%s.members[%d]", p, j)
			switch {
			case m.Address == "":
				errs = append(errs, fmt.Errorf("mongos: %s.address: \"\": must not be empty", q))
			case seen[m.Address]:
				errs = append(errs, fmt.Errorf("mongos: %s.address: %q: must be unique", q, m.Address))
			}
			seen[m.Address] = true
			if m.Node == nil {
				errs = append(errs, fmt.Errorf("mongos: %s.node: nil: must be a node", q))
			}
			if m.Link == nil {
				errs = append(errs, fmt.Errorf("mongos: %s.link: nil: must be a link", q))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	r := &Router{loop: loop, cfg: cfg}
	r.shardRNG = r.stream(seed, "shard")
	r.targetRNG = r.stream(seed, "target")
	r.jitter = r.stream(seed, "jitter")
	now := loop.Now()
	for _, sh := range shards {
		s := &shard{name: sh.Name, stats: ShardStats{Shard: sh.Name}}
		if cfg.RetryBudget {
			b, err := ratelimiter.NewRetryBudget(ratelimiter.RetryBudgetConfig{
				Capacity: cfg.BudgetCapacity, ReturnRate: cfg.BudgetReturnRate,
			})
			if err != nil { // unreachable: Validate checked both
				return nil, fmt.Errorf("mongos: shard %q: %w", sh.Name, err)
			}
			s.budget = b
		}
		for _, m := range sh.Members {
			mb := newMember(r, m)
			s.members = append(s.members, mb)
			mb.startMonitor(now)
		}
		r.shards = append(r.shards, s)
	}
	return r, nil
}

func (r *Router) stream(seed uint64, what string) *rand.Rand {
	name := "mongos/" + r.cfg.Address + "/" + what
	r.streams = append(r.streams, name)
	return r.loop.NewStream(seed, name)
}

// Streams returns the names of the random streams the router created, in creation order, for a
// run header.
func (r *Router) Streams() []string { return append([]string(nil), r.streams...) }

// Stats returns each shard's statistics, in configuration order, with the budget balance as of
// now.
func (r *Router) Stats() []ShardStats {
	out := make([]ShardStats, len(r.shards))
	for i, s := range r.shards {
		out[i] = s.stats
		if s.budget != nil {
			out[i].RetryBudgetTokenBucketBalance = s.budget.Balance()
		} else {
			out[i].RetryBudgetTokenBucketBalance = math.Inf(1)
		}
	}
	return out
}

// Route implements server.Router: it starts routing req to one shard at now and answers through
// back once its retries end.
func (r *Router) Route(now sim.Time, req *wire.Request, back server.RouteToken) {
	s := r.shards[0]
	if n := len(r.shards); n > 1 {
		s = r.shards[r.shardRNG.IntN(n)]
	}
	c := r.newCommand()
	c.start(now, s, req, back)
}

func (r *Router) newCommand() *command {
	if n := len(r.free); n > 0 {
		c := r.free[n-1]
		r.free = r.free[:n-1]
		return c
	}
	return &command{r: r}
}

func (r *Router) freeCommand(c *command) {
	deprio := c.deprio[:0]
	*c = command{r: r, deprio: deprio}
	r.free = append(r.free, c)
}

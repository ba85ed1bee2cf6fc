package splitting

import (
	"context"
	"fmt"
	"strings"
)

// Branch is one branch point of a [Path]: after checkpoint At the model re-derives every random
// stream of the run from Key. At is in the model's unit (a checkpoint index is the natural
// choice); the estimator only ever copies it from [Stop.At]. The state at checkpoint At, score
// included, is the parent's; which events at that very instant come before the checkpoint is the
// model's choice, as long as replay makes the same one.
type Branch struct {
	At  int64
	Key uint64
}

// Path names a trajectory, and so the state at each of its checkpoints: run from the root seed
// Root, re-seeding from each branch's Key after its checkpoint At. Branch points are strictly
// increasing in At. Paths built by this package never share a Branches array, so a model may
// keep one.
type Path struct {
	Root     uint64
	Branches []Branch
}

// Extend returns a new path that follows p and branches after checkpoint at with key. It copies
// p.Branches: children of one parent must not share (and overwrite) one backing array.
func (p Path) Extend(at int64, key uint64) Path {
	b := make([]Branch, len(p.Branches), len(p.Branches)+1)
	copy(b, p.Branches)
	return Path{Root: p.Root, Branches: append(b, Branch{At: at, Key: key})}
}

// Last returns the last branch point of p, and false for a root path (no branch).
func (p Path) Last() (Branch, bool) {
	if len(p.Branches) == 0 {
		return Branch{}, false
	}
	return p.Branches[len(p.Branches)-1], true
}

// String formats p as root/at:key/at:key…, in hexadecimal, for error messages.
func (p Path) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%#x", p.Root)
	for _, b := range p.Branches {
		fmt.Fprintf(&sb, "/%d:%#x", b.At, b.Key)
	}
	return sb.String()
}

// Stop is where a run stopped and what it cost.
type Stop struct {
	// Hit is true if the run stopped because the score reached the level.
	Hit bool
	// At is the checkpoint where the run stopped: the first checkpoint after the path's last
	// branch point with score ≥ level for a hit, else the horizon or the absorbing stop. A path
	// that branches at the horizon or in an absorbing state has nothing left to observe: its run
	// is a miss at the branch point.
	At int64
	// Score is the score at At.
	Score float64
	// Max is the largest score observed by the run (at the checkpoints after the path's last
	// branch point, up to and including At), −Inf if it observed none; for a hit it is Score.
	// [Pilot] places levels from it.
	Max float64
	// Cost is the effort of the run, replayed prefix included, in a unit that is the same for
	// every run of the model (simulated seconds or events). It makes the costs of splitting and
	// of plain replication comparable.
	Cost float64
}

// Model runs trajectories of a deterministic simulator. Run replays p from its root seed through
// its branch points and continues past the last one, observing the score at each checkpoint
// after it (a root path observes every checkpoint); it stops at the first checkpoint where the
// score is ≥ level (a hit), or at the horizon or an absorbing state (a miss).
//
// Run must be deterministic — the same p and level give the same Stop — and the trajectory must
// not depend on level, which only decides where to stop; any level must be accepted, +Inf (run
// to the end) included. It must be safe to call concurrently for different paths (the simulator
// builds a fresh world per call). It should return promptly with ctx.Err() once ctx is done.
// [CheckReplay] tests these rules; the estimators refuse a Stop that breaks the others (a hit
// below the level, a miss at or above it, a stop not after the branch point, a cost that is
// negative or not finite).
type Model interface {
	Run(ctx context.Context, p Path, level float64) (Stop, error)
}

// Fingerprinter is implemented by models that can summarise their state, so that [CheckReplay]
// can check that a branch starts from its parent's state. Fingerprint replays p up to and
// including checkpoint at (a branch point at or after at has not taken effect yet) and returns a
// hash of the whole simulator state there, random generators included.
type Fingerprinter interface {
	Fingerprint(ctx context.Context, p Path, at int64) (uint64, error)
}

package tipping

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/overloadsim/overloadsim/field"
)

// Outcome is how one simulated run ended. The zero value is Undecided.
type Outcome int

// The outcomes of a run.
const (
	Undecided Outcome = iota // the run was too short to tell
	Recovered                // the system recovered after the trigger
	Stuck                    // the system stayed in the overloaded state (metastable failure)
)

// String returns "undecided", "recovered" or "stuck".
func (o Outcome) String() string {
	switch o {
	case Undecided:
		return "undecided"
	case Recovered:
		return "recovered"
	case Stuck:
		return "stuck"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Probe runs the simulation once at parameter value x with replication index replication
// (0, 1, 2, …), which fixes the run's seed: the same (x, replication) must always give the same
// Outcome. A non-nil error ends the search. With Workers > 1, Probe is called concurrently.
type Probe func(x float64, replication int) (Outcome, error)

// Config is what to search and how hard. Lo, Hi and Precision are required; so are Batch and
// MaxReps.
type Config struct {
	// Lo and Hi are the search interval; Lo < Hi, both finite.
	Lo, Hi float64
	// Increasing is true when runs stick more often as x grows (trigger length, load), false
	// when less often (retry backoff, limiter headroom).
	Increasing bool
	// Precision is the widest bracket that ends the search: 0 < Precision < Hi − Lo, absolute, in
	// the units of x. With Integer, at least 1.
	Precision float64
	// Batch is the number of replications run at a probe value before each look at the test.
	// Results depend on it (not on Workers). At least 1.
	Batch int
	// MaxReps is the most replications run at one probe value; a probe undecided after MaxReps
	// is a tie. At least Batch, and enough for a verdict at all (see the package doc).
	MaxReps int
	// Workers is the number of goroutines the replications of one round run on; below 1 means
	// 1. It changes only the wall time, never the Result.
	Workers int
	// Integer restricts x to whole numbers: Lo and Hi must be whole, probes are at whole
	// numbers, and the search bisects until hi − lo ≤ ⌊Precision⌋.
	Integer bool
	// Confidence is the stated probability that the returned bracket holds the crossing; in
	// (0, 1), 0 means 0.95.
	Confidence float64
}

// Verdict is what the sequential test at one probe value concluded.
type Verdict int

// The verdicts of a probe.
const (
	Open          Verdict = iota // no verdict: the search was interrupted at this probe
	RecoveredSide                // P(stuck) < 1/2 here
	StuckSide                    // P(stuck) > 1/2 here
	Tie                          // undecided after MaxReps: P(stuck) is 1/2 within the noise
)

// String returns "open", "recovered side", "stuck side" or "tie".
func (v Verdict) String() string {
	switch v {
	case Open:
		return "open"
	case RecoveredSide:
		return "recovered side"
	case StuckSide:
		return "stuck side"
	case Tie:
		return "tie"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// ProbeResult is the evidence at one probe value.
type ProbeResult struct {
	// X is the parameter value probed.
	X float64
	// Replications is the number of runs made at X (replications 0 … Replications−1), and
	// Stuck, Recovered and Undecided count how they ended.
	Replications, Stuck, Recovered, Undecided int
	// Verdict is what the sequential test concluded at X.
	Verdict Verdict
	// PLo and PHi are the Clopper–Pearson interval for P(stuck) over the decided runs
	// (Stuck + Recovered), each side at the per-look level Result.LookAlpha: the verdict is
	// stuck side when PLo > 1/2 and recovered side when PHi < 1/2. [0, 1] with no decided run.
	PLo, PHi float64
}

// Result is the answer of a search and the evidence behind it.
type Result struct {
	// Boundary is the point estimate of x*: the bracket's midpoint, or the tie probe's x when
	// the search stopped at a tie.
	Boundary float64
	// Lo and Hi are the bracket, Lo < Hi: the last probes on either side of 1/2 (with
	// Increasing, Lo recovered side and Hi stuck side; the other way round without). x* lies in
	// [Lo, Hi] with probability at least Confidence.
	Lo, Hi float64
	// Confidence is the stated overall level of [Lo, Hi] (see the package doc).
	Confidence float64
	// Converged reports Hi − Lo ≤ Precision; false when the search stopped at a tie.
	Converged bool
	// Probes are all probes in the order run: the ends Lo and Hi first, then the midpoints.
	Probes []ProbeResult
	// Rounds is the number of rounds of batches run (the two ends share their rounds).
	Rounds int
	// Replications is the number of runs made, over all probes.
	Replications int
	// MaxProbes is the most probes the search could make; LookAlpha is the level β of each
	// look of each test, (1 − Confidence)/(MaxProbes·⌈MaxReps/Batch⌉).
	MaxProbes int
	LookAlpha float64
	// Fit is a logistic regression on all probes, or nil (see the package doc).
	Fit *Fit
	// Warnings are things a reader of the result should know: ties, many undecided runs.
	Warnings []string
}

// undecidedWarn is the share of undecided runs at a probe above which Search warns: the test
// then rests on fewer runs than were paid for, and the runs are probably too short.
const undecidedWarn = 0.1

// Search finds the bracket around the crossing of P(stuck | x) = 1/2 in [cfg.Lo, cfg.Hi] (see
// the package doc for the method and its guarantee).
//
// A bad Config gives an error holding a *field.Error for each of its problems (all of them,
// joined with errors.Join) and an empty Result; ends that do not bracket a flip give an
// *EndsError. When ctx is done, Search stops between rounds of batches (a round already started
// runs to its end) and returns an error wrapping context.Cause(ctx). A Probe error ends the
// search after the round it occurred in. After any error but a bad Config the Result holds
// the evidence so far: the probes (the interrupted one Open) and the narrowest bracket
// established (cfg.Lo, cfg.Hi until the ends are decided).
func Search(ctx context.Context, cfg Config, probe Probe) (Result, error) {
	p, err := newPlan(cfg)
	if err != nil {
		return Result{}, err
	}
	if probe == nil {
		return Result{}, errors.New("tipping: Search needs a Probe, got nil")
	}
	s := &search{plan: p, probe: probe}
	s.res = Result{
		Lo: p.cfg.Lo, Hi: p.cfg.Hi, Boundary: p.cfg.Lo + float64((p.cfg.Hi-p.cfg.Lo)/2),
		Confidence: p.cfg.Confidence, MaxProbes: p.maxProbes, LookAlpha: p.beta,
	}
	err = s.run(ctx)
	s.finish()
	return s.res, err
}

// search is the state of one Search.
type search struct {
	*plan
	probe  Probe
	res    Result
	lo, hi int64 // the bracket as grid indices, lo < hi
}

// lowSide is the verdict expected at the low end of the bracket.
func (s *search) lowSide() Verdict {
	if s.cfg.Increasing {
		return RecoveredSide
	}
	return StuckSide
}

func (s *search) run(ctx context.Context) error {
	ends, err := s.test(ctx, []int64{0, s.n})
	if err != nil {
		return err
	}
	if ends[0].Verdict != s.lowSide() || ends[1].Verdict != flip(s.lowSide()) {
		return &EndsError{Lo: ends[0], Hi: ends[1], Increasing: s.cfg.Increasing}
	}
	s.lo, s.hi = 0, s.n
	s.setBracket()
	// The cap never binds on a correct bisection; it keeps the probe count within the
	// Bonferroni split whatever happens.
	for s.hi-s.lo > s.stopWidth && len(s.res.Probes) < s.maxProbes {
		mid := s.lo + (s.hi-s.lo)/2
		pr, err := s.test(ctx, []int64{mid})
		if err != nil {
			return err
		}
		switch pr[0].Verdict {
		case s.lowSide():
			s.lo = mid
		case Tie:
			s.res.Boundary = pr[0].X
			s.res.Warnings = append(s.res.Warnings, fmt.Sprintf(
				"stopped at a tie at x=%s: %d stuck and %d recovered after %d replications, indistinguishable from 1/2; the bracket [%s, %s] is wider than Precision %s, a larger MaxReps narrows it",
				num(pr[0].X), pr[0].Stuck, pr[0].Recovered, pr[0].Replications,
				num(s.res.Lo), num(s.res.Hi), num(s.cfg.Precision)))
			return nil
		default:
			s.hi = mid
		}
		s.setBracket()
	}
	s.res.Converged = s.hi-s.lo <= s.stopWidth
	return nil
}

// setBracket copies the bracket into the Result, with its midpoint as the Boundary.
func (s *search) setBracket() {
	s.res.Lo, s.res.Hi = s.x(s.lo), s.x(s.hi)
	s.res.Boundary = s.res.Lo + float64((s.res.Hi-s.res.Lo)/2)
}

// finish adds what is derived from all the probes.
func (s *search) finish() {
	for _, pr := range s.res.Probes {
		s.res.Replications += pr.Replications
		if pr.Replications > 0 && float64(pr.Undecided) > undecidedWarn*float64(pr.Replications) {
			s.res.Warnings = append(s.res.Warnings, fmt.Sprintf(
				"at x=%s %d of %d replications were undecided (%.0f %%): the runs may be too short to tell stuck from recovered, and only decided runs count in the test",
				num(pr.X), pr.Undecided, pr.Replications, 100*float64(pr.Undecided)/float64(pr.Replications)))
		}
	}
	s.res.Fit = fitLogistic(s.res.Probes, s.cfg.Confidence)
}

// flip returns the opposite side of a side verdict.
func flip(v Verdict) Verdict {
	if v == RecoveredSide {
		return StuckSide
	}
	return RecoveredSide
}

// test runs the sequential test at the grid points idx in lockstep, one batch at each undecided
// point per round, until each has a verdict; the probes are appended to the Result as they
// start. On an error the unfinished probes stay Open.
func (s *search) test(ctx context.Context, idx []int64) ([]ProbeResult, error) {
	first := len(s.res.Probes)
	for _, i := range idx {
		s.res.Probes = append(s.res.Probes, ProbeResult{X: s.x(i), PLo: 0, PHi: 1})
	}
	prs := s.res.Probes[first:]
	var jobs []job
	for {
		jobs = jobs[:0]
		for k := range prs {
			if prs[k].Verdict != Open {
				continue
			}
			from := prs[k].Replications
			to := min(from+s.cfg.Batch, s.cfg.MaxReps)
			for r := from; r < to; r++ {
				jobs = append(jobs, job{probe: k, x: prs[k].X, rep: r})
			}
		}
		if len(jobs) == 0 {
			return prs, nil
		}
		if ctx.Err() != nil {
			return prs, fmt.Errorf("tipping: search interrupted after %d probes and %d rounds; the result holds the evidence so far: %w",
				len(s.res.Probes), s.res.Rounds, context.Cause(ctx))
		}
		outs, err := runJobs(jobs, s.cfg.Workers, s.probe)
		if err != nil {
			return prs, err
		}
		s.res.Rounds++
		for j, jb := range jobs {
			pr := &prs[jb.probe]
			pr.Replications++
			switch outs[j] {
			case Stuck:
				pr.Stuck++
			case Recovered:
				pr.Recovered++
			default:
				pr.Undecided++
			}
		}
		for k := range prs {
			pr := &prs[k]
			if pr.Verdict != Open {
				continue
			}
			pr.Verdict = judge(pr.Stuck, pr.Recovered, s.beta)
			if pr.Verdict == Open && pr.Replications >= s.cfg.MaxReps {
				pr.Verdict = Tie
			}
			pr.PLo, pr.PHi = clopperPearson(pr.Stuck, pr.Recovered, s.beta)
		}
	}
}

// num formats x for messages: shortest form that reads back exactly.
func num(x float64) string {
	return fmt.Sprint(x)
}

// plan is a validated Config and what follows from it before any probe.
type plan struct {
	cfg       Config
	n         int64 // the grid: index 0 is Lo, index n is Hi
	stopWidth int64 // bisect while the bracket spans more than stopWidth grid steps
	maxProbes int
	looks     int
	beta      float64
}

// x maps a grid index to the parameter value.
func (p *plan) x(i int64) float64 {
	switch {
	case i == p.n:
		return p.cfg.Hi // exact, whatever the rounding of the step
	case p.cfg.Integer:
		return p.cfg.Lo + float64(i)
	}
	return p.cfg.Lo + float64((p.cfg.Hi-p.cfg.Lo)*(float64(i)/float64(p.n)))
}

// maxWholeX bounds integer parameters so that every whole number in range is a float64.
const maxWholeX = 1 << 53

// maxDepth bounds the bisection of a real interval (2^maxDepth grid steps fit in an int64).
const maxDepth = 62

// newPlan validates cfg and derives the plan. It reports every problem with a field at once,
// each a *field.Error after "tipping: Config: ", joined with errors.Join; the problems that
// depend on the plan (a Precision finer than the grid can hold, too few MaxReps for a verdict)
// are reported once the fields themselves are valid.
func newPlan(cfg Config) (*plan, error) {
	var errs []error
	bad := func(name string, value any, rule string, args ...any) {
		errs = append(errs, fmt.Errorf("tipping: Config: %w", field.New(name, value, fmt.Sprintf(rule, args...))))
	}
	loOK := !math.IsNaN(cfg.Lo) && !math.IsInf(cfg.Lo, 0)
	hiOK := !math.IsNaN(cfg.Hi) && !math.IsInf(cfg.Hi, 0)
	if !loOK {
		bad("Lo", cfg.Lo, "must be finite")
	}
	if !hiOK {
		bad("Hi", cfg.Hi, "must be finite")
	}
	spanOK := false
	switch {
	case !loOK || !hiOK:
	case cfg.Lo >= cfg.Hi:
		bad("Lo", cfg.Lo, "must be less than Hi = %s", num(cfg.Hi))
	case math.IsInf(cfg.Hi-cfg.Lo, 0):
		bad("Hi", cfg.Hi, "Hi − Lo overflows")
	default:
		spanOK = true
	}
	switch {
	case math.IsNaN(cfg.Precision) || cfg.Precision <= 0:
		bad("Precision", cfg.Precision, "must be greater than 0")
	case spanOK && cfg.Precision >= cfg.Hi-cfg.Lo:
		bad("Precision", cfg.Precision, "must be less than Hi − Lo = %s", num(cfg.Hi-cfg.Lo))
	case cfg.Integer && cfg.Precision < 1:
		bad("Precision", cfg.Precision, "must be at least 1 when Integer is set")
	}
	switch {
	case cfg.Batch < 1:
		bad("Batch", cfg.Batch, "must be at least 1")
	case cfg.MaxReps < cfg.Batch:
		bad("MaxReps", cfg.MaxReps, "must be at least Batch = %d", cfg.Batch)
	}
	if cfg.Confidence != 0 && !(cfg.Confidence > 0 && cfg.Confidence < 1) {
		bad("Confidence", cfg.Confidence, "must be between 0 and 1 (0 means 0.95)")
	}
	if cfg.Integer {
		for _, f := range []struct {
			name string
			v    float64
			ok   bool
		}{{"Lo", cfg.Lo, loOK}, {"Hi", cfg.Hi, hiOK}} {
			if f.ok && (f.v != math.Trunc(f.v) || math.Abs(f.v) > maxWholeX) {
				bad(f.name, f.v, "must be a whole number (at most 2^53 in size) when Integer is set")
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if cfg.Confidence == 0 {
		cfg.Confidence = 0.95
	}
	cfg.Workers = max(cfg.Workers, 1)

	p := &plan{cfg: cfg}
	if cfg.Integer {
		p.n = int64(cfg.Hi - cfg.Lo)
		p.stopWidth = int64(cfg.Precision)
	} else {
		// The grid has 2^depth steps, the fewest for which a step is at most Precision, so
		// the midpoints are exactly those of plain bisection.
		depth := 1
		for math.Ldexp(cfg.Hi-cfg.Lo, -depth) > cfg.Precision {
			depth++
			if depth > maxDepth {
				bad("Precision", cfg.Precision, "is too small: more than %d halvings of Hi − Lo = %s", maxDepth, num(cfg.Hi-cfg.Lo))
				return nil, errors.Join(errs...)
			}
		}
		p.n = 1 << depth
		p.stopWidth = 1
	}
	// The bracket shrinks from n to at worst ⌈w/2⌉ per bisection step.
	p.maxProbes = 2
	for w := p.n; w > p.stopWidth; w = (w + 1) / 2 {
		p.maxProbes++
	}
	p.looks = (cfg.MaxReps + cfg.Batch - 1) / cfg.Batch
	p.beta = lookAlpha(cfg.Confidence, p.maxProbes, p.looks)
	// A verdict needs MaxReps runs all one way to pass at least: 2^−MaxReps ≤ β.
	if math.Ldexp(1, -cfg.MaxReps) > p.beta {
		need := cfg.MaxReps
		for math.Ldexp(1, -need) > lookAlpha(cfg.Confidence, p.maxProbes, (need+cfg.Batch-1)/cfg.Batch) {
			need++
		}
		bad("MaxReps", cfg.MaxReps,
			"is too few: even %d of %d runs stuck would not pass the test at level %.2g per look (confidence %g over %d probes × %d looks); needs at least %d",
			cfg.MaxReps, cfg.MaxReps, p.beta, cfg.Confidence, p.maxProbes, p.looks, need)
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// lookAlpha is the Bonferroni share of 1 − confidence for one look of one probe.
func lookAlpha(confidence float64, probes, looks int) float64 {
	return (1 - confidence) / float64(probes*looks)
}

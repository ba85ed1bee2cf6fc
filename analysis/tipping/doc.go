// Package tipping finds where an overload tips from recovering to sticking: the value x* of one
// parameter (trigger length, base load, retry cap, limiter rate, …) at which the probability that
// a run ends stuck in a metastable failure crosses 1/2, to a requested absolute precision, with a
// confidence interval and all the evidence behind it.
//
// The caller supplies a [Probe]: one simulated run at x with replication index r (the index
// fixes the run's seed, so the same (x, r) always gives the same outcome, and replication r uses
// the same random numbers at every x). P(stuck | x) must be monotone in x; [Config].Increasing
// says which way. The package itself has no randomness and reads no clock.
//
// # Method
//
// Noisy bisection (Waeber, Frazier & Henderson 2013) with a sequential exact binomial test at
// each probe:
//
//  1. Probe both ends of [Lo, Hi]. They must come out on opposite sides of 1/2, in the direction
//     Config.Increasing says; otherwise Search returns an [*EndsError] that says what it saw
//     (both stuck, both recovered, the other way round, or an end indistinguishable from 1/2).
//  2. Keep a bracket [lo, hi] whose low end is on the recovered side and high end on the stuck
//     side (the other way round when decreasing). Probe its midpoint and replace the end on the
//     side the probe comes out on, until hi − lo ≤ Precision.
//
// At a probe x, replications run in batches of Config.Batch: batch i is replications
// [i·Batch, (i+1)·Batch), cut at MaxReps. After each batch ("look"), with s stuck and r recovered
// runs so far (Undecided runs count as neither, so what is tested is P(stuck | x, the run
// decided)), the probe gets the verdict
//
//	stuck side      if P(Bin(s+r, 1/2) ≥ s) ≤ β
//	recovered side  if P(Bin(s+r, 1/2) ≥ r) ≤ β
//
// which is to say when the exact one-sided Clopper–Pearson (1934) confidence bound for P(stuck)
// at level 1 − β excludes 1/2. If MaxReps replications pass without a verdict the probe is a
// tie: P(stuck) is 1/2 within what MaxReps replications can resolve. The search then stops and
// reports that probe as the boundary, with the bracket it had around it (wider than Precision;
// a larger MaxReps narrows it).
//
// The exact test is used rather than Wilson's (1927) score interval or Wald's (1945) sequential
// probability ratio test because the guarantee below adds up the error levels of the individual
// tests, so each level must hold exactly and not only asymptotically (Wilson's interval can cover
// less than its nominal level at small n), and because the SPRT controls its errors only outside
// an indifference zone around 1/2, while here a verdict on the wrong side of 1/2 anywhere loses
// the boundary.
//
// # Guarantee
//
// Let m be the most probes a search can make (2 ends plus the bisection steps from Hi − Lo down
// to Precision, known before the search starts: [Result].MaxProbes) and k = ⌈MaxReps/Batch⌉ the
// most looks at one probe. Every look uses β = (1 − Confidence)/(m·k) ([Result].LookAlpha). A
// verdict is wrong if it says stuck side where P(stuck) < 1/2 or recovered side where
// P(stuck) > 1/2. If P(stuck | x) is monotone and the replications at one x are independent, a
// probe gives a wrong verdict with probability at most k·β, and by the union bound (Bonferroni)
// the whole search does with probability at most 1 − Confidence. Without a wrong verdict the
// bracket [Result.Lo, Result.Hi] contains the crossing x*, converged or stopped at a tie. So:
//
//	P(Lo ≤ x* ≤ Hi) ≥ Confidence.
//
// No independence between different x is needed, so common random numbers are fine: until the
// first wrong verdict the probe points are fixed in advance (unless P(stuck) is exactly 1/2 at a
// probe point, where either verdict is right), so the union runs over at most m fixed points.
// The bound is conservative: looks at one probe share their replications, and most probes are
// far enough from x* to be decided at the first possible look.
//
// For scale: with Confidence 0.95, [10, 60] to within 1 (m = 8) and MaxReps 100 in batches of 10
// (k = 10), β = 6.25·10⁻⁴, so a verdict needs at least 11 runs all one way, 18 of 20, or 67 of
// 100. Because a verdict needs 2^−n ≤ β for n replications all one way, Config.MaxReps must be
// at least log2(1/β); Search rejects a Config where it is not (the error says how many).
//
// # Point estimate
//
// Besides the bracket (the primary answer), [Result].Fit holds a logistic regression
// P(stuck | x) = 1/(1 + exp(−(a + b·x))) fitted by maximum likelihood to every decided
// replication of every probe, with x50 = −a/b and a delta-method interval. It is absent when the
// probes separate perfectly (every run below a cut recovered, every run above stuck), where the
// maximum-likelihood slope is infinite. Its interval is approximate: it treats all runs as
// independent although replication r shares its seed across x, and the probe points were chosen
// from the data.
//
// # Determinism
//
// Unless interrupted, the Result is a function of the Config (apart from Workers) and of the
// Probe's answers only.
// The batch size is fixed by the Config, batch i at x always uses the same replications, the two
// ends are probed in lockstep, and outcomes are stored by replication index, never in completion
// order, so any Workers value gives an identical Result. Probe must be safe for concurrent use
// when Workers > 1.
//
// # References
//
//   - R. Waeber, P. I. Frazier and S. G. Henderson (2013), "Bisection search with noisy
//     responses", SIAM Journal on Control and Optimization 51(3), 2261–2279.
//   - C. J. Clopper and E. S. Pearson (1934), "The use of confidence or fiducial limits
//     illustrated in the case of the binomial", Biometrika 26(4), 404–413.
//   - E. B. Wilson (1927), "Probable inference, the law of succession, and statistical
//     inference", Journal of the American Statistical Association 22(158), 209–212.
//   - A. Wald (1945), "Sequential tests of statistical hypotheses", Annals of Mathematical
//     Statistics 16(2), 117–186.
package tipping

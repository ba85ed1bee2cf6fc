// Package splitting estimates the probability of a rare event in a simulation — e.g. that a
// system falls into metastable overload before a horizon — by fixed-effort multilevel splitting,
// and, to validate and compare, by plain replication.
//
// It knows nothing of the simulator: a [Model] runs one trajectory, named by a [Path], and reports
// where it stopped. It imports only the standard library and gonum (for Student's t).
//
// # Branching without snapshots
//
// The simulator cannot copy its state, but it is deterministic, so a state is named by how to
// reach it: a [Path] is a root seed plus a list of branch points (At, Key). Running a path
// replays the trajectory from the root seed; after checkpoint At of each branch point every random
// stream is re-derived from Key, so the prefix up to At is the parent's and what follows is fresh
// randomness. Checkpoints are the instants where the score is observed (e.g. the end of every
// 1 s interval); the estimator treats At as an opaque label that it copies from [Stop.At] into
// [Branch.At]. A branch starts from the whole simulator state at its checkpoint, not only from
// the score, so the stages below need no Markov assumption on the score. The cost of replaying
// the prefix is charged to the run that replays it, so costs compare fairly with plain
// replication.
//
// # Method
//
// Let S be the score observed at the checkpoints and A the event that S reaches the threshold
// L_m before the horizon (or an absorbing stop). Choose levels L_1 < L_2 < … < L_m and let A_k
// be the event that S reaches L_k. The events are nested (the first checkpoint with S ≥ L_k also
// has S ≥ L_{k−1}), so
//
//	P(A) = p_1 p_2 … p_m,    p_k = P(A_k | A_{k−1}),
//
// and each p_k is a moderate probability even when P(A) is tiny. Fixed-effort splitting
// (Garvels & Kroese 1998; Glasserman, Heidelberger, Shahabuddin & Zajic 1999) estimates them in
// stages. Stage 1 runs N trajectories from N roots and keeps those that reach L_1; the state at
// the first checkpoint with S ≥ L_1 is an entrance state. Stage k runs N new trajectories, each a
// branch of an entrance state of stage k−1 at its hitting checkpoint, and counts the H_k that
// reach L_k. An entrance state that already has S ≥ L_k (the score jumped over a level) reaches
// L_k at once: it counts as a hit without running. A stage with no hit ends the repetition.
//
// The N starts of a stage are spread over its E entrance states by fixed assignment: each
// receives ⌊N/E⌋ or ⌈N/E⌉ of them (Garvels & Kroese 1998 find this better than drawing the
// starts at random; L'Ecuyer, Demers & Tuffin 2007 call it fixed assignment). Which ones receive
// the extra start is decided by a seeded random permutation, so that every entrance state
// receives N/E starts in expectation: this keeps the estimator unbiased, where a fixed order
// could favour the states found first. Every root, key and permutation is derived from
// (Config.Seed, repetition, stage, index) with SplitMix64, so the result does not depend on
// Config.Workers or on scheduling.
//
// # Estimator and its variance
//
// One repetition gives
//
//	P̂ = Π_k H_k / N,
//
// an unbiased estimator of P(A) (P̂ = 0 if a stage has no hit). Were the stages independent
// binomial draws — as in a birth–death chain, where all entrance states of a level are the same
// state — its relative variance would be Π_k (1 + (1 − p_k)/(N p_k)) − 1 ≈ Σ_k (1 − p_k)/(N p_k),
// which grows linearly, not exponentially, with the number of levels. In general the entrance
// states differ and share ancestors, and the variance has no usable closed form, so the package
// estimates it from R independent repetitions with distinct seeds: with P̂_1 … P̂_R their mean
// P̄ and sample standard deviation s, it reports P̄, the standard error s/√R, the 95 % interval
// P̄ ± t_{0.975, R−1} s/√R (clipped to [0, 1]) and the relative error (s/√R)/P̄.
//
// P̂ is a product of m ratios and is right-skewed when they are noisy, so the interval is
// asymptotic and its coverage depends on N more than on R: for the gambler's ruin with 12–16
// levels and p_k ≈ 0.2–0.43, the 95 % interval covered the exact value for 91 % of seeds with
// N = 100 (R = 10 or 30) and for 92–97 % with N = 200 or 400 (R = 5 or 10). Choose N so that one
// repetition's relative variance, about Σ_k (1 − p_k)/(N p_k), stays below ~0.1, and R ≥ 5.
//
// # Choosing levels
//
// With equal p_k = p, m levels (p^m = P(A)) and a cost proportional to m·N, the work-normalised
// relative variance [Result.RelVarCost] is proportional to (1 − p)/(p ln²p), whose minimum is
// flat around p ≈ 0.2: put levels where about 1 run in 5 to 1 in 3 goes on to the next one.
// [Pilot] finds such levels from a pilot run, after Cérou & Guyader (2007); use them with a
// different seed in [Estimate], so that the final estimate stays unbiased.
//
// Splitting is unbiased whatever the score, but efficient only if the score tracks the chance of
// going on to the rare event from a state (it is an importance function): a score that climbs on
// paths that then seldom go further inflates the variance, which shows as a large RelErr.
//
// [BruteForce] runs N plain trajectories to L_m and reports hits/N with a Wilson score interval;
// on the same [Model] it validates splitting where the event is not rare, and its Cost shows
// what plain replication would pay.
//
// # References
//
//   - M. J. J. Garvels and D. P. Kroese, "A comparison of RESTART implementations", Proceedings
//     of the 1998 Winter Simulation Conference, 601–608.
//   - P. Glasserman, P. Heidelberger, P. Shahabuddin and T. Zajic, "Multilevel splitting for
//     estimating rare event probabilities", Operations Research 47(4):585–600, 1999.
//   - P. L'Ecuyer, V. Demers and B. Tuffin, "Splitting for rare-event simulation", Proceedings of
//     the 2006 Winter Simulation Conference, 137–148; and "Rare events, splitting, and
//     quasi-Monte Carlo", ACM Transactions on Modeling and Computer Simulation 17(2), 2007.
//   - F. Cérou and A. Guyader, "Adaptive multilevel splitting for rare event analysis",
//     Stochastic Analysis and Applications 25(2):417–443, 2007.
//
// # Checking a model
//
// Splitting is only as right as the model's branching. [CheckReplay] runs a path and its
// branches twice, in sequence and concurrently, and checks that the results agree, that a
// branch continues after its branch point and pays for its replayed prefix, and — if the model
// implements [Fingerprinter] — that a branch starts from exactly its parent's state.
package splitting

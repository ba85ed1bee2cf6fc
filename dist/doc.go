// Package dist provides the duration distributions of overloadsim (service times, network
// delays, think times) and the short text syntax scenario files use for them.
//
// # Model and units
//
// A [Duration] is a distribution of non-negative [time.Duration] values, in nanoseconds like
// sim.Time. Sample takes the generator at draw time (a *rand.Rand from sim.NewStream), so a
// distribution holds no state and one value can serve many components, each with its own
// stream. No function here reads the wall clock or a global generator, and nothing allocates per
// draw. Draws are rounded to the nanosecond and capped at [MaxDuration] (2⁶² ns, about 146
// years) instead of overflowing; Mean and SecondMoment describe the uncapped distribution,
// which differs only for absurd parameters (P(exp > 2⁶² ns) is e⁻¹²⁸⁰⁰⁰⁰ for a mean of one hour).
//
// Mean is in nanoseconds; SecondMoment, E[S²], is in seconds², the unit the
// Pollaczek–Khinchine mean wait W = λE[S²] / (2(1−ρ)) of an M/G/1 queue needs with λ in 1/s.
//
// # Families
//
//	const(d)           always d                            E[S] = d          E[S²] = d²
//	exp(m)             exponential, rate 1/m               E[S] = m          E[S²] = 2m²
//	lognormal(m, σ)    ln S ~ Normal(μ, σ²)                E[S] = m          E[S²] = m²·e^(σ²)
//	gamma(m, k)        gamma with shape k, rate k/m        E[S] = m          E[S²] = m²·(1 + 1/k)
//	uniform(a, b)      every nanosecond in [a, b]          E[S] = (a+b)/2    E[S²] = E[S]² + w²/12 + w·1ns/6, w = b−a
//	empirical(v1, …)   each listed value with equal weight (repeats count)
//
// exp and lognormal sample through gonum's stat/distuv with Src set to the caller's generator,
// never nil (a nil Src would make distuv fall back to the global generator). gamma samples with
// this package's own sampler, Marsaglia and Tsang's squeeze-and-reject method ("A simple method
// for generating gamma variables", ACM TOMS 26(3), 2000; for k < 1 a Gamma(k+1) draw times
// U^(1/k)). It draws only NormFloat64 and Float64 from the caller's generator and rounds every
// product before it meets a sum, so that a stream gives the same durations on every platform
// (docs/conventions.md §9).
//
// # Lognormal parametrisation
//
// lognormal(m, σ) is parametrised by its MEAN m, not its median, because a scenario states a
// mean service time and the load ρ = λ·E[S] follows from it directly. The underlying normal has
//
//	μ = ln(m) − σ²/2,
//
// so the median is e^μ = m·e^(−σ²/2) and the mode is m·e^(−3σ²/2). For example lognormal(3ms, 0.5)
// has mean 3ms, median 2.65ms and E[S²] = 9ms²·e^0.25. σ must lie in [0, MaxSigma]; σ = 0 is
// const(m).
//
// # Gamma parametrisation
//
// gamma(m, k) is parametrised by its MEAN m as well, and its shape k: the rate is k/m (the scale
// θ = m/k), so
//
//	f(s) = s^(k−1)·e^(−s/θ) / (Γ(k)·θ^k),   E[S] = m,   Var S = m²/k,   E[S²] = m²·(1 + 1/k).
//
// The coefficient of variation is 1/√k whatever the mean: k = 1 is exp(m) (drawn by another
// method, so not the same numbers), k < 1 is more variable than the exponential, with a density
// that rises without bound towards 0, and k > 1 less, with a mode at m·(1 − 1/k). For example
// gamma(5ms, 2) has standard deviation 3.54ms and E[S²] = 25ms²·1.5. k must lie in
// [MinShape, MaxShape].
//
// # Syntax
//
//	dist      = duration | name "(" [ args ] ")"
//	name      = "const" | "empirical" | "exp" | "gamma" | "lognormal" | "uniform"
//	args      = arg { "," arg }
//	arg       = duration | number | file
//	duration  = what time.ParseDuration accepts: 5ms, 1.5s, 250us, 250µs, 1h2m
//
// A bare duration means const. Blanks around names, parentheses, commas and arguments are
// ignored; names are lower-case. Durations must be non-negative (and exp, lognormal and gamma
// means positive); uniform needs lo <= hi; lognormal's sigma and gamma's shape are Go floats
// (strconv.ParseFloat). The single
// argument of empirical(file) is a file name when it is not a duration: Parse rejects it, and
// ParseWith hands it to a loader, typically one that opens the file and calls
// [ReadEmpiricalCSV].
//
// String gives canonical text: lower-case names, ", " between arguments, durations as
// time.Duration.String prints them, sigma and shape in the shortest form that reads back exactly
// (strconv.FormatFloat with 'g' and precision −1: 1e+06 for a million), and
// empirical values sorted. Parse(d.String()) always gives a distribution with the same String.
//
//	5ms                    const(5ms)
//	exp( 5ms )             exp(5ms)
//	lognormal(3ms,0.50)    lognormal(3ms, 0.5)
//	gamma(5ms, 2.50)       gamma(5ms, 2.5)
//	empirical(5ms, 1ms)    empirical(1ms, 5ms)
//	empirical(rtt.csv)     empirical(rtt.csv)      (ParseWith only)
//
// # Errors
//
// Errors are a *field.Error (package field) whose value is the text and whose rule
// names the parameter, for example
//
//	dist: "exp(-5ms)": mean -5ms: must be > 0
//
// and match [ErrSyntax], [ErrUnknown] or [ErrInvalid] under errors.Is. Parse never panics.
package dist

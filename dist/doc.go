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
//	uniform(a, b)      every nanosecond in [a, b]          E[S] = (a+b)/2    E[S²] = E[S]² + w²/12 + w·1ns/6, w = b−a
//	empirical(v1, …)   each listed value with equal weight (repeats count)
//
// exp and lognormal sample through gonum's stat/distuv with Src set to the caller's generator,
// never nil (a nil Src would make distuv fall back to the global generator).
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
// # Syntax
//
//	dist      = duration | name "(" [ args ] ")"
//	name      = "const" | "empirical" | "exp" | "lognormal" | "uniform"
//	args      = arg { "," arg }
//	arg       = duration | number | file
//	duration  = what time.ParseDuration accepts: 5ms, 1.5s, 250us, 250µs, 1h2m
//
// A bare duration means const. Blanks around names, parentheses, commas and arguments are
// ignored; names are lower-case. Durations must be non-negative (and exp and lognormal means
// positive); uniform needs lo <= hi; sigma is a Go float (strconv.ParseFloat). The single
// argument of empirical(file) is a file name when it is not a duration: Parse rejects it, and
// ParseWith hands it to a loader, typically one that opens the file and calls
// [ReadEmpiricalCSV].
//
// String gives canonical text: lower-case names, ", " between arguments, durations as
// time.Duration.String prints them, sigma in the shortest form that reads back exactly, and
// empirical values sorted. Parse(d.String()) always gives a distribution with the same String.
//
//	5ms                    const(5ms)
//	exp( 5ms )             exp(5ms)
//	lognormal(3ms,0.50)    lognormal(3ms, 0.5)
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

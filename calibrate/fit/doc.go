// Package fit fits service-time distributions to measured latencies: the exponential, the
// lognormal and the gamma of package dist, each by maximum likelihood, to a list of samples
// ([Samples]) or to a histogram such as MongoDB's opLatencies ([Histogram]). [Best] picks one by
// Akaike's information criterion and [Fit.Dist] writes it in the dist syntax a scenario reads:
// exp(5ms), lognormal(5.12ms, 0.5), gamma(312µs, 2.37).
//
// # Units
//
// Samples, range bounds and Fit.Mean are in seconds (float64); Fit.Shape has no unit (σ of ln S
// for the lognormal, the shape k for the gamma). Every family is parametrised by its mean, as in
// dist, so that a fitted mean can be replaced by one measured better elsewhere ([Fit.WithMean])
// without touching the shape.
//
// # Estimators for samples
//
// For n positive samples x₁ … xₙ with mean x̄, L = Σ ln xᵢ and ℓ̄ = L/n:
//
//	exp          m̂ = x̄                                  lnL = −n·ln m̂ − n
//	lognormal    μ̂ = ℓ̄,  σ̂² = (1/n)·Σ (ln xᵢ − μ̂)²,      lnL = −L − n·ln σ̂ − (n/2)·ln 2π − n/2
//	             m̂ = e^(μ̂ + σ̂²/2)
//	gamma        m̂ = x̄,  k̂ solves ln k − ψ(k) = s,       lnL = (k̂−1)·L − n·k̂ − n·ln Γ(k̂) − n·k̂·ln θ̂
//	             s = ln x̄ − ℓ̄,  θ̂ = m̂/k̂
//
// These are the exact maximum-likelihood estimates (the gamma's mean is x̄ at the maximum for
// any k). s is computed as (1/n)·Σ (dᵢ − ln(1 + dᵢ)) with dᵢ = xᵢ/x̄ − 1, a sum of non-negative
// terms that keeps its digits for samples close together; ψ is the digamma function, and
// ln k − ψ(k) is evaluated by its asymptotic series after the recurrence ψ(k) = ψ(k+1) − 1/k,
// and the equation solved by bisection on ln k to the last bit.
//
// # Binned likelihood for histograms
//
// A histogram gives counts cᵢ of samples in ranges [lᵢ, uᵢ), uᵢ = lᵢ₊₁ and the last range
// open-ended (u = ∞). Under a family with CDF F the count vector is multinomial with range
// probabilities Pᵢ = F(uᵢ) − F(lᵢ), and the binned log-likelihood is
//
//	lnL = Σᵢ cᵢ·ln Pᵢ,
//
// the multinomial log-likelihood without its constant ln(n! / Πᵢ cᵢ!), which is the same for
// every family and so leaves the comparison of fits unchanged. Empty ranges contribute nothing;
// a range probability below 1e-300 counts as 1e-300 (the exponential's is exact in any tail),
// so that a search that starts far from the data stays finite. There is no closed form: lnL is
// maximised over (ln m, ln shape) with gonum's Nelder–Mead (optimize.Minimize), from the
// sample estimators applied to one point per range (the geometric midpoint of [l, u), u/2 for
// [0, u), 2l for the open range) weighted by the counts, and once more from where that search
// stopped. The search stays within σ ∈ [0.001, 20], k ∈ [0.001, 10⁷] and a mean within 10⁶ of
// the histogram's outer edges.
//
// # Criterion and quality
//
// Each fit carries AIC = 2·(number of parameters) − 2·lnL: one parameter for exp, two for the
// others. Best returns the lowest AIC; on a tie the simpler family wins (fewer parameters, then
// the order exp, lognormal, gamma). AIC compares fits to the same data only, never a sample fit
// with a histogram fit.
//
// The quality printed with a fit is its Kolmogorov–Smirnov distance KS = sup |Fₙ(x) − F(x)|
// between the empirical CDF Fₙ and the fitted F: over every sample for Samples, and at the
// range edges for Histogram (the only points where a histogram knows its CDF, so a histogram's
// KS is a lower bound on the samples'). It is a distance in probability: at 0.01 the fitted
// CDF is nowhere more than one percentage point from the data's. Because the parameters were
// fitted to the same data, the usual KS test's critical values do not apply to it.
//
// # Output
//
// Dist rounds the mean to nearest at DurationDigits (3) significant digits of nanoseconds, and
// writes at least MinMean (1µs, the resolution of MongoDB's latencies); the shape is rounded
// to ShapeDigits (3) significant digits and held in dist's range for the family. The text is
// dist's canonical String, so dist.Parse reads it back unchanged.
//
// # Determinism
//
// On one platform the same input gives the same fits, bit for bit: Samples sums over a sorted
// copy of its input (so the order of the samples does not matter either), no map is iterated,
// the package starts no goroutines, and the Nelder–Mead search runs one evaluation at a time
// (Settings.Concurrent = 1), so its sequence of points is fixed (optimize.Minimize hands each
// point to a worker goroutine of its own and waits for it). No product of this package meets a
// sum unrounded (docs/conventions.md §9). Between platforms, the standard library's math
// functions and gonum's special functions may differ in a last bit (amd64 and arm64 do, for
// some fits), which Dist's rounding to three digits absorbs except at an exact rounding
// boundary: the Example prints the same text on both.
//
// # Errors
//
// Invalid input gives a *field.Error (package field) after "fit: " naming the field, the value
// and the rule, for example
//
//	fit: samples: 12 values: need at least 30
//	fit: samples[3]: -0.002: must be a number of seconds in (0, 4.611686018427388e+09] (dist.MaxDuration)
//	fit: counts: 500 samples in 1 non-empty range: need at least 3 non-empty ranges to fit a shape
//
// and never a fit with NaN in it.
package fit

// Package workload describes what drives simulated applications: how fast they issue
// operations (a load profile), when exactly (an arrival process, or think times for a closed
// loop), and which operations (a mix).
//
// # Open and closed loops
//
// An open-loop application issues operations at the instants of an [Arrivals] process, whether
// or not earlier operations have completed: independent users behave this way, and it is the
// workload under which retries can amplify load without bound. [Poisson] gives a
// non-homogeneous Poisson process (independent users), [Fixed] evenly spaced arrivals (a
// pacer). Both follow a [Profile].
//
// A closed-loop application runs N threads; each issues an operation, waits for its final
// result, pauses for a [ThinkTime], and issues the next. It never has more than N operations
// outstanding, so a slow server throttles its own offered load. The client package runs the
// threads; this package only draws the pauses.
//
// Measuring latency from the instant an open-loop arrival was due, not from when a busy
// generator got round to sending it, is what avoids coordinated omission: a closed-loop load
// generator that waits for replies silently stops sending during a stall and so under-reports
// the latency users would have seen (Gil Tene, "How NOT to Measure Latency", 2013; the vegeta
// README). Scenarios say which loop they use.
//
// # Units
//
// Rates are operations per second, as float64, in [0, MaxOpsRate]. Times are [time.Duration]
// since the start of the run (profile parameters, in [0, MaxTime]) or [sim.Time] (arrival
// instants, integer nanoseconds). Integrated rates are operations.
//
// # Profiles
//
//	Constant(r)                       rate(t) = r
//	Step(b, a, T)                     rate(t) = b for t < T, a for t >= T
//	Ramp(r₀, r₁, S, E)                rate(t) = r₀ for t <= S, r₀ + (r₁−r₀)(t−S)/(E−S) for S < t < E, r₁ for t >= E
//	Spike(b, p, S, D)                 rate(t) = p for S <= t < S+D, b otherwise
//	Sine(m, A, P, φ)                  rate(t) = m + A·sin(2π·t/P + φ),  0 <= A <= m
//	Piecewise((T₀,R₀), …, (Tₙ,Rₙ))    linear between points, R₀ before T₀, Rₙ after Tₙ
//	Trace((T₀,R₀), …, (Tₙ,Rₙ))        Rᵢ on [Tᵢ, Tᵢ₊₁) (a step function), R₀ before T₀, Rₙ after Tₙ
//
// Every profile gives its rate, an upper bound of its rate on a window ([Profile].MaxRate),
// its integrated rate Λ(a, b) = ∫ₐᵇ rate dt ([Profile].Integral, the expected number of Poisson
// arrivals in [a, b)), and a canonical String for run headers, such as
//
//	spike(100/s, 2000/s, 30s, 20s)
//	sine(500/s, 400/s, 1m0s, 0)
//
// # Mix
//
// A [Mix] picks the kind of each operation independently, with probabilities proportional to
// its weights.
//
// # Determinism
//
// Nothing here reads the clock, keeps global state or draws from a global generator: every
// draw comes from the *rand.Rand the caller passes (a stream from sim.NewStream), and the
// values are immutable, so one profile, process or mix can serve many applications. Next and
// Pick allocate nothing.
//
// Errors from the constructors are *field.Error values after the family's name, naming the
// parameter, its value and the rule, for example
//
//	workload: sine: amplitude: 150: must be ≤ mean 100 (the rate would go negative)
//
// and match [ErrInvalid] (or [ErrSyntax], for unreadable trace text) under errors.Is. Every
// violation is reported, one per line.
package workload

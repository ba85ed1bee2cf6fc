// Package queueing holds the closed-form results of queueing theory that overloadsim validates
// its models against. Rates are per second, times are in seconds; every function states its
// source and its domain, and returns NaN outside it (an unstable queue has no steady state).
package queueing

import "math"

// ErlangC returns the probability that an arrival to an M/M/c queue must wait, for c servers and
// offered load a = λ/μ (in Erlangs), with a < c.
//
// It uses the Erlang B recursion B(0) = 1, B(k) = a·B(k−1) / (k + a·B(k−1)) and
// C = B(c) / (1 − ρ(1 − B(c))) with ρ = a/c, which is numerically stable for large c.
// Source: Kleinrock, Queueing Systems Vol. 1 (1975), §3.5, eq. 3.40; the recursion is from
// Jagerman, "Some properties of the Erlang loss function", Bell Syst. Tech. J. 53 (1974).
func ErlangC(c int, a float64) float64 {
	if c < 1 || !(a >= 0) || a >= float64(c) {
		return math.NaN()
	}
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + float64(a*b))
	}
	rho := a / float64(c)
	return b / (1 - float64(rho*(1-b)))
}

// MMcWait returns the mean time in queue Wq of an M/M/c queue with arrival rate lambda, service
// rate mu per server and c servers: Wq = C(c, λ/μ) / (cμ − λ). Source: Kleinrock (1975), eq. 3.43.
func MMcWait(lambda, mu float64, c int) float64 {
	return ErlangC(c, lambda/mu) / (float64(float64(c)*mu) - lambda)
}

// MM1Wait returns Wq = ρ/(μ − λ) for an M/M/1 queue (Kleinrock 1975, eq. 3.26 with W = Wq + 1/μ).
func MM1Wait(lambda, mu float64) float64 {
	if !(lambda >= 0) || lambda >= mu {
		return math.NaN()
	}
	return lambda / mu / (mu - lambda)
}

// MG1Wait returns the Pollaczek–Khinchine mean wait of an M/G/1 queue,
// Wq = λ·E[S²] / (2(1 − ρ)) with ρ = λ·E[S]. Source: Kleinrock (1975), eq. 5.76.
func MG1Wait(lambda, meanS, secondMomentS float64) float64 {
	rho := float64(lambda * meanS)
	if !(lambda >= 0) || rho >= 1 {
		return math.NaN()
	}
	return lambda * secondMomentS / (2 * (1 - rho))
}

// MD1Wait returns the M/D/1 mean wait Wq = ρ / (2μ(1 − ρ)): Pollaczek–Khinchine with E[S²] = 1/μ².
func MD1Wait(lambda, mu float64) float64 { return MG1Wait(lambda, 1/mu, 1/(mu*mu)) }

// USLThroughput returns the Universal Scalability Law throughput at concurrency n,
// X(n) = n·X₁ / (1 + σ(n−1) + κ·n(n−1)), where x1 is the throughput at concurrency 1, sigma the
// contention and kappa the coherency coefficient. Source: Gunther, Guerrilla Capacity Planning
// (2007), ch. 4, eq. 4.31.
func USLThroughput(n int, x1, sigma, kappa float64) float64 {
	N := float64(n)
	return N * x1 / (1 + float64(sigma*(N-1)) + float64(kappa*N*(N-1)))
}

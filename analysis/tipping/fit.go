package tipping

import "math"

// Fit is a logistic regression P(stuck | x) = 1/(1 + exp(−(Intercept + Slope·x))) fitted by
// maximum likelihood to the decided runs of all probes: a point estimate that uses every run,
// secondary to the bracket (see the package doc for its caveats).
type Fit struct {
	Intercept, Slope float64
	// X50 = −Intercept/Slope is where the fitted P(stuck) is 1/2.
	X50 float64
	// Lo and Hi are the delta-method interval for X50 at Result.Confidence (approximate).
	Lo, Hi float64
}

// fitLogistic fits the regression by Newton's method, or returns nil when the maximum
// likelihood estimate does not exist (the probes separate stuck from recovered runs, or fewer
// than two probe values have decided runs) or the iteration fails.
func fitLogistic(probes []ProbeResult, confidence float64) *Fit {
	type point struct{ x, s, n float64 }
	var pts []point
	var w, mean float64
	minS, maxS := math.Inf(1), math.Inf(-1) // range of x with stuck runs
	minR, maxR := math.Inf(1), math.Inf(-1) // range of x with recovered runs
	for _, p := range probes {
		n := p.Stuck + p.Recovered
		if n == 0 {
			continue
		}
		pts = append(pts, point{p.X, float64(p.Stuck), float64(n)})
		w += float64(n)
		mean += float64(float64(n) * p.X)
		if p.Stuck > 0 {
			minS, maxS = math.Min(minS, p.X), math.Max(maxS, p.X)
		}
		if p.Recovered > 0 {
			minR, maxR = math.Min(minR, p.X), math.Max(maxR, p.X)
		}
	}
	// In one dimension the estimate is finite unless a cut puts all stuck runs on one side
	// and all recovered runs on the other (quasi-complete separation allows ties at the cut).
	if len(pts) < 2 || maxR <= minS || maxS <= minR {
		return nil
	}
	// Work on standardised u = (x − mean)/sd, for conditioning.
	mean /= w
	var sd float64
	for _, p := range pts {
		sd += float64(p.n * (p.x - mean) * (p.x - mean))
	}
	sd = math.Sqrt(sd / w)
	loglik := func(a, b float64) float64 {
		var l float64
		for _, p := range pts {
			eta := a + b*(p.x-mean)/sd
			l += float64(p.s*eta) - float64(p.n*softplus(eta))
		}
		return l
	}
	// info returns the score and the inverse Fisher information at (a, b).
	info := func(a, b float64) (ga, gb, caa, cab, cbb float64, ok bool) {
		var iaa, iab, ibb float64
		for _, p := range pts {
			u := (p.x - mean) / sd
			q := 1 / (1 + math.Exp(-(a + float64(b*u))))
			ga += p.s - float64(p.n*q)
			gb += float64((p.s - float64(p.n*q)) * u)
			v := float64(p.n * q * (1 - q))
			iaa += v
			iab += float64(v * u)
			ibb += float64(v * u * u)
		}
		det := float64(iaa*ibb) - float64(iab*iab)
		if !(det > 0) {
			return 0, 0, 0, 0, 0, false
		}
		return ga, gb, ibb / det, -iab / det, iaa / det, true
	}
	var a, b float64
	l := loglik(a, b)
	converged := false
	for iter := 0; iter < 100 && !converged; iter++ {
		ga, gb, caa, cab, cbb, ok := info(a, b)
		if !ok {
			return nil
		}
		da, db := float64(caa*ga)+float64(cab*gb), float64(cab*ga)+float64(cbb*gb)
		// Halve the Newton step until the likelihood does not fall.
		for h := 0; ; h++ {
			if h == 50 {
				return nil
			}
			na, nb := a+da, b+db
			if nl := loglik(na, nb); nl >= l {
				converged = math.Abs(da)+math.Abs(db) < 1e-10 || nl-l < 1e-13*(1+math.Abs(l))
				a, b, l = na, nb, nl
				break
			}
			da, db = float64(da/2), float64(db/2)
		}
	}
	_, _, caa, cab, cbb, ok := info(a, b)
	if !converged || !ok || b == 0 {
		return nil
	}
	u50 := -a / b
	// Delta method: the gradient of −a/b is (−1/b, a/b²).
	da, db := -1/b, a/(b*b)
	se := sd * math.Sqrt(float64(da*da*caa)+float64(2*da*db*cab)+float64(db*db*cbb))
	z := math.Sqrt2 * math.Erfcinv(1-confidence)
	x50 := mean + float64(sd*u50)
	return &Fit{
		Intercept: a - b*mean/sd,
		Slope:     b / sd,
		X50:       x50,
		Lo:        x50 - float64(z*se),
		Hi:        x50 + float64(z*se),
	}
}

// softplus is log(1 + e^x) without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

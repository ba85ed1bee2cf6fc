// Package fma is the fixture of CheckFusable: every line marked "want" must be reported and no
// other line.
package fma

import "math"

const twoPi = 2 * math.Pi

func flagged(a, b, c float64, x float32) float64 {
	s := a*b + c       // want: a product is an operand of +
	s -= a * b         // want: and of -=
	s = c - (-(a * b)) // want: under a unary minus and parentheses
	x += x * x         // want: float32 fuses too
	p := a * b         // want: stored, then an operand of + below
	s += p
	s = 2 * (a * c)             // want: 2*q compiles to q+q
	s = (a-b)/2 + c             // want: a/2 compiles to a*0.5
	s = math.Log10(a) + c       // want: math.Log10 is inlined and ends in a product
	return s*float64(x) + a*c/b // want: the first product only; a*c/b is a quotient
}

func returned(a, b float64) float64 {
	return a * b // want: a caller may inline this and fuse the product with its sum
}

func clean(a, b, c float64, i, j int) (float64, int, bool) {
	s := float64(a*b) + c // explicitly rounded
	q := float64(a * b)
	s += q
	s += a / 3           // a quotient by 3 stays a division
	s += twoPi*2 + a     // constant products are exact
	k := i*j + 1         // integers do not fuse
	less := a*b < c      // a comparison is no sum
	s *= a * b           // a product of a product is no sum
	s += float64(a * -b) // rounded
	// lint:ignore the fixture checks that the escape hatch works
	s += a * b
	return s, k, less
}

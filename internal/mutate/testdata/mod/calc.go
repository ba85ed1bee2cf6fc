// Package calc is a tiny module for mutate's own tests: Max is tested, Abs is not.
package calc

// Max is the larger of a and b.
func Max(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// Abs is |x|.
func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

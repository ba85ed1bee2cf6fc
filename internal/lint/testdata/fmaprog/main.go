// Command fmaprog holds two fused multiply-adds for TestFusedLinesFinds: one the compiler fuses
// on its own and one written with math.FMA.
package main

import (
	"fmt"
	"math"
	"os"
)

//go:noinline
func fused(a, b, c float64) float64 {
	return a*b + c
}

//go:noinline
func explicit(a, b, c float64) float64 {
	return math.FMA(a, b, c)
}

func main() {
	fmt.Println(fused(0.1, float64(len(os.Args)), 0.3), explicit(0.1, 0.2, 0.3))
}

//go:build !race

package splitting_test

// raceEnabled is true under the race detector, which slows the walk tenfold.
const raceEnabled = false

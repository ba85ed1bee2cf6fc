//go:build !race

package main

// raceEnabled is true under the race detector, whose shadow memory lies outside the Go
// runtime's accounting: resident memory is then no measure of what --max-memory holds.
const raceEnabled = false

//go:build !unix

package main

import "time"

// cpuTime returns 0 where the process's CPU time is not read: the benchmarks then report wall
// time only.
func cpuTime() time.Duration { return 0 }

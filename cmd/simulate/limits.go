package main

import (
	"github.com/spf13/pflag"

	"github.com/overloadsim/overloadsim/experiment"
)

// limits are a command's --max-time and --max-memory: work estimated to cross them is refused
// before any of it runs (experiment.Limits), and work that crosses them while it runs anyway is
// stopped (limits.enforce, watchdog.go).
type limits struct {
	experiment.Limits
}

// addLimitFlags adds --max-time and --max-memory to fs.
func addLimitFlags(fs *pflag.FlagSet) *limits {
	l := &limits{experiment.Limits{MaxTime: experiment.DefaultMaxTime, MaxMemory: experiment.DefaultMaxMemory}}
	fs.DurationVar(&l.MaxTime, "max-time", experiment.DefaultMaxTime, "refuse work estimated to take longer than this (wall time on the workers), and stop work still running after it (exit 1, what finished kept, marked partial)")
	fs.Var(&l.MaxMemory, "max-memory", "refuse work estimated to need more memory than this (e.g. 8GiB, 512MiB), and stop work whose memory in use crosses it while running")
	return l
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

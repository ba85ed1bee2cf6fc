package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/overloadsim/overloadsim/bench"

	"github.com/spf13/pflag"
)

var versionCommand = command{
	summary: "print the version",
	usage:   "Usage: simulate version",
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		return func(args []string, stdout, _ io.Writer) error {
			if len(args) > 0 {
				return usageErrorf("version takes no arguments, got %q", args)
			}
			fmt.Fprintf(stdout, "simulate %s\n", buildVersion())
			return nil
		}
	},
}

// label names this build in the headers of the runs it makes.
func label() bench.Label {
	return bench.Label{Tool: bench.DefaultLabel().Tool, Version: buildVersion()}
}

// runOptions are the options of every run the command-line tool makes: its label, and the stop
// of a command that crossed its --max-memory or --max-time while running (limits.enforce).
func runOptions() bench.RunOptions {
	return bench.RunOptions{Label: label(), Stop: limitStopped}
}

// buildVersion returns the -ldflags version, else the module version, else the VCS revision.
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 && (v == "" || v == "(devel)") {
			v = "devel-" + s.Value[:12]
		}
	}
	if v == "" {
		v = "(devel)"
	}
	return v
}

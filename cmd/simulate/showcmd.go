package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/overloadsim/overloadsim/scenarios"

	"github.com/spf13/pflag"
)

var showCommand = command{
	summary: "print a library scenario's YAML",
	usage: `Usage: simulate show NAME

Prints the library file of the scenario NAME exactly as written, which reads back to the same
scenario; its description and claim say what it models and demonstrates. Copy it to start a
scenario of your own. Every field, its default and its units: 'simulate help scenario'. Which
drivers it models (a Client Backpressure spec text, or a release as it ships, such as
retryPolicy: go-2.10.0) is said on stderr.
'simulate list' names the library's scenarios.

Examples:
  simulate show spike > my-scenario.yaml`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		return func(args []string, stdout, stderr io.Writer) error {
			if len(args) != 1 {
				return usageErrorf("want exactly one NAME (%s)", strings.Join(scenarios.Names(), ", "))
			}
			src, err := scenarios.Source(args[0])
			if err != nil {
				return usageErrorf("%v", err)
			}
			if _, err = stdout.Write(src); err != nil {
				return err
			}
			// Which drivers it models goes to stderr, so that stdout stays the file as written.
			if sc, err := scenarios.Lookup(args[0]); err == nil {
				if d := driversOf(sc); len(d) > 0 {
					fmt.Fprintf(stderr, "%s models the drivers %s (docs/drivers.md)\n", args[0], strings.Join(d, ", "))
				}
			}
			return nil
		}
	},
}

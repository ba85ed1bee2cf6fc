package main

import (
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
scenario of your own. Every field, its default and its units: go doc ./scenarios.
'simulate list' names the library's scenarios.

Examples:
  simulate show spike > my-scenario.yaml`,
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		return func(args []string, stdout, _ io.Writer) error {
			if len(args) != 1 {
				return usageErrorf("want exactly one NAME (%s)", strings.Join(scenarios.Names(), ", "))
			}
			src, err := scenarios.Source(args[0])
			if err != nil {
				return usageErrorf("%v", err)
			}
			_, err = stdout.Write(src)
			return err
		}
	},
}

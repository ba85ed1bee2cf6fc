package main

import (
	"fmt"
	"io"

	"github.com/overloadsim/overloadsim/scenarios"

	"github.com/spf13/pflag"
)

var listCommand = command{
	summary: "list the library's scenarios and what each demonstrates",
	usage:   "Usage: simulate list",
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		return func(args []string, stdout, _ io.Writer) error {
			if len(args) > 0 {
				return usageErrorf("list takes no arguments, got %q", args)
			}
			for _, name := range scenarios.Names() {
				sc, err := scenarios.Lookup(name)
				if err != nil {
					return err
				}
				mark := " "
				if name == scenarios.Default() {
					mark = "*"
				}
				fmt.Fprintf(stdout, "%s %-24s %s\n", mark, name, sc.Claim)
			}
			fmt.Fprintln(stdout, "\n* the default scenario of simulate run")
			return nil
		}
	},
}

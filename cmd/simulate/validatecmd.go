package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"
)

var validateCommand = command{
	summary: "check scenario files and report every problem",
	usage:   "Usage: simulate validate FILE...\n\nReports every problem of every file as file:line: field: value: rule. A FILE of - is\nstandard input.",
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		return func(args []string, stdout, stderr io.Writer) error {
			if len(args) == 0 {
				return usageErrorf("want at least one FILE")
			}
			bad := 0
			for _, f := range args {
				if _, err := loadFile(f); err != nil {
					bad++
					fmt.Fprintln(stderr, err)
					continue
				}
				fmt.Fprintf(stdout, "%s: ok\n", f)
			}
			if bad > 0 {
				return fmt.Errorf("%d of %d files invalid", bad, len(args))
			}
			return nil
		}
	},
}

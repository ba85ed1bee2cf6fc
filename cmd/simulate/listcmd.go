package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/overloadsim/overloadsim/scenarios"

	"github.com/spf13/pflag"
)

var listCommand = command{
	summary: "list the library's scenarios and what each demonstrates",
	usage:   "Usage: simulate list [--format text|json]",
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		format := fs.String("format", "text", "text, or json: an array of {name, default, description, claim}")
		return func(args []string, stdout, _ io.Writer) error {
			if len(args) > 0 {
				return usageErrorf("list takes no arguments, got %q", args)
			}
			if err := checkFormat(*format); err != nil {
				return err
			}
			if *format == "json" {
				type entry struct {
					Name        string `json:"name"`
					Default     bool   `json:"default"`
					Description string `json:"description"`
					Claim       string `json:"claim"`
				}
				var out []entry
				for _, name := range scenarios.Names() {
					sc, err := scenarios.Lookup(name)
					if err != nil {
						return err
					}
					out = append(out, entry{name, name == scenarios.Default(), sc.Description, sc.Claim})
				}
				b, err := json.MarshalIndent(out, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(stdout, "%s\n", b)
				return err
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

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/scenarios"

	"github.com/spf13/pflag"
)

var listCommand = command{
	summary: "list the library's scenarios, what each demonstrates and which drivers it models",
	usage:   "Usage: simulate list [--format text|json]",
	flags: func(fs *pflag.FlagSet) func([]string, io.Writer, io.Writer) error {
		format := fs.String("format", "text", "text, or json: an array of {name, default, description, claim, drivers}")
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
					// Drivers are the MongoDB driver models its groups use: a spec text or a
					// release preset each.
					Drivers []string `json:"drivers"`
				}
				var out []entry
				for _, name := range scenarios.Names() {
					sc, err := scenarios.Lookup(name)
					if err != nil {
						return err
					}
					out = append(out, entry{name, name == scenarios.Default(), sc.Description, sc.Claim, driversOf(sc)})
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
				if d := driversOf(sc); len(d) > 0 {
					fmt.Fprintf(stdout, "  %-24s drivers: %s\n", "", strings.Join(d, ", "))
				}
			}
			fmt.Fprintln(stdout, "\n* the default scenario of simulate run")
			fmt.Fprintln(stdout, "drivers: a spec text models the Client Backpressure specification as written; a release, the driver as it ships (docs/drivers.md)")
			return nil
		}
	},
}

// driversOf names the MongoDB driver models a scenario's groups use, in group order without
// repeats, each marked as a specification text or a shipped release (docs/drivers.md).
func driversOf(sc *scenarios.Scenario) []string {
	out := []string{} // a JSON array even when empty
	for _, g := range sc.Clients {
		p := g.Driver.RetryPolicy
		var s string
		switch {
		case retry.Release(p):
			s = p + " (release)"
		case strings.HasPrefix(p, "mongodb-20"):
			s = p + " (spec text)"
		default:
			continue // legacy, none, and the other stacks' policies model no Client Backpressure text
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Command lab is the conformance lab's command: it runs the lab's experiments against real
// driver releases and writes their records.
//
// Usage:
//
//	lab <command> [flags] [args]
//
// Each command lives in a file of its own and adds itself to the commands table; `lab help`
// lists them.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/overloadsim/overloadsim/lab/harness"
	"github.com/overloadsim/overloadsim/lab/record"
)

// command is one subcommand.
type command struct {
	// summary is a one-line description for `lab help`.
	summary string
	// run runs it with the arguments after its name; a usageError exits 2, any other error 1.
	run func(args []string, stdout, stderr io.Writer) error
}

// commands are the subcommands by name; each file adds its own in an init function.
var commands = map[string]command{}

// usageError is a command line that cannot be run as written.
type usageError struct{ error }

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs the subcommand args[0] and returns the exit status.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "lab: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	err := c.run(args[1:], stdout, stderr)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "lab %s: %v\n", args[0], err)
		return 2
	}
	fmt.Fprintf(stderr, "lab %s: %v\n", args[0], err)
	return 1
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: lab <command> [flags] [args]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}

// parseFlags parses args into fs: -h passes flag.ErrHelp through, anything else wrong is a
// usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	return nil
}

// labFolders sets each empty folder flag to its default inside the lab (experiments/,
// records/), and returns the lab's own folder.
func labFolders(dirs map[*string]string) (string, error) {
	lab, err := harness.FindLab(".")
	if err != nil {
		return "", err
	}
	for dir, sub := range dirs {
		if *dir == "" {
			*dir = filepath.Join(lab, sub)
		}
	}
	return lab, nil
}

// writeRecord writes r to DIR/<release>/<experiment>.json, the release's ':' made '-' so that
// "sim:go-2.10.0" names a folder.
func writeRecord(dir string, r *record.Record) error {
	dir = filepath.Join(dir, strings.ReplaceAll(r.Release, ":", "-"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, r.Experiment+".json"), recordJSON(r))
}

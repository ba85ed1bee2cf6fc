// Command simulate runs overloadsim scenarios on the virtual clock and reports what they
// measured: single runs, sweeps over parameters, metastability maps, tipping points, rare-event
// estimates, checks against baselines, figures and reports.
//
// Usage:
//
//	simulate <command> [arguments] [options]
//
// Commands (one file each, <command>cmd.go):
//
//	check      compare a run or sweep with a baseline; exit 1 on a regression
//	list       list the library's scenarios and what each demonstrates
//	map        map where an overload sticks: P(stuck) over a grid of two or three parameters
//	mmc        run the built-in M/M/c queue and compare it with Erlang C
//	plot       draw the figures of a run, sweep or map (SVG and PNG) next to its files
//	rare       estimate a rare probability of sticking by multilevel splitting
//	report     write a self-contained report.html of a run, sweep or map
//	run        run a scenario, print a summary and write its result files
//	show       print a library scenario's YAML
//	sweep      vary parameters over replications and write points with confidence intervals
//	tip        find the tipping point of one parameter, where runs flip from recovering to sticking
//	validate   check scenario files and report every problem
//	version    print the version
//
// Run 'simulate <command> --help' for a command's options. Data goes to stdout, diagnostics to
// stderr. Exit status: 0 success, 1 runtime failure, 2 usage error.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// version is set at build time with -ldflags "-X main.version=v1.2.3"; otherwise the module
// version or VCS revision from the build info is reported.
var version = ""

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// errUsage marks an error as a usage error (exit 2) rather than a runtime failure (exit 1).
type errUsage struct{ err error }

func (e errUsage) Error() string { return e.err.Error() }
func (e errUsage) Unwrap() error { return e.err }

func usageErrorf(format string, a ...any) error { return errUsage{fmt.Errorf(format, a...)} }

// command is one subcommand: its flags, a one-line summary, the usage text, and the action.
type command struct {
	summary string
	usage   string
	flags   func(fs *pflag.FlagSet) func(args []string, stdout, stderr io.Writer) error
}

var commands map[string]command

func init() {
	commands = map[string]command{
		"check":    checkCommand,
		"list":     listCommand,
		"map":      mapCommand,
		"mmc":      mmcCommand,
		"plot":     plotCommand,
		"rare":     rareCommand,
		"report":   reportCommand,
		"run":      runCommand,
		"show":     showCommand,
		"sweep":    sweepCommand,
		"tip":      tipCommand,
		"validate": validateCommand,
		"version":  versionCommand,
	}
}

// run is the whole CLI: it parses args, runs the command and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		w := stdout
		status := exitOK
		if len(args) == 0 {
			w, status = stderr, exitUsage
		}
		printUsage(w)
		return status
	}
	name := args[0]
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "simulate: unknown command %q\n\n", name)
		printUsage(stderr)
		return exitUsage
	}
	fs := pflag.NewFlagSet("simulate "+name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	action := cmd.flags(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\n\nOptions:\n%s", strings.TrimSpace(cmd.usage), fs.FlagUsages())
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "simulate %s: %v\n", name, err)
		return exitUsage
	}
	if err := action(fs.Args(), stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "simulate %s: %v\n", name, err)
		var u errUsage
		if errors.As(err, &u) {
			fmt.Fprintf(stderr, "run 'simulate %s --help' for usage\n", name)
			return exitUsage
		}
		return exitFailure
	}
	return exitOK
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, "Usage: simulate <command> [arguments] [options]\n\nCommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, "\nRun 'simulate <command> --help' for a command's options.\n")
}

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
//	calibrate  write a scenario of your cluster from its serverStatus documents, or check one against them
//	check      compare a run or sweep with a baseline; exit 1 on a regression
//	compare    compare runs or sweeps side by side: what differs, better or worse, figure and report
//	help       print a command's help, a topic, or the list of commands and topics
//	list       list the library's scenarios, what each demonstrates and which drivers it models
//	map        map where an overload sticks: P(stuck) over a grid of two or three parameters
//	merge      merge the shards of a sweep, map or tuning run with --shard into the one-machine result
//	mmc        run the built-in M/M/c queue and compare it with Erlang C
//	plot       draw the figures of a run, sweep, map or tuning (SVG and PNG) next to its files
//	rare       estimate a rare probability of sticking by multilevel splitting
//	report     write a self-contained report.html of a run, sweep, map or tipping-point search
//	run        run a scenario, print a summary and write its result files
//	show       print a library scenario's YAML
//	sweep      vary parameters over replications and write points with confidence intervals
//	tip        find the tipping point: the value of one parameter where runs flip from recovering to sticking
//	tune       search parameters for the setting that optimises a metric under constraints, with evidence
//	validate   check scenario files and report every problem
//	version    print the version
//
// Topics ('simulate help TOPIC', topics.go): the references an installed binary has no source
// for, built from the docs' own text:
//
//	metrics    every metric: its name, unit, direction and meaning, and the recovery rule
//	scenario   the scenario format: every field, its default and its units (go doc ./scenarios)
//
// Run 'simulate <command> --help' or 'simulate help <command>' for a command's options; help
// goes to stdout. Data goes to stdout, diagnostics (usage errors included) to stderr. Exit
// status: 0 success, 1 runtime failure, 2 usage error or work refused by --max-time or
// --max-memory, 3 an expectation of the scenario's expect: block failed (the results are
// written), 130 stopped by SIGINT or SIGTERM.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/overloadsim/overloadsim/experiment"

	"github.com/spf13/pflag"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// version is set at build time with -ldflags "-X main.version=v1.2.3"; otherwise the module
// version or VCS revision from the build info is reported.
var version = ""

// Exit codes (exitInterrupted, 130, is in interrupt.go).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	// exitExpectation: the work ran and its results are written, but an expectation of the
	// scenario's expect: block failed (errExpectation).
	exitExpectation = 3
)

// errExpectation marks a run or sweep one of whose scenario's expectations failed.
var errExpectation = errors.New("the scenario's claim does not hold")

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
		"calibrate": calibrateCommand,
		"check":     checkCommand,
		"compare":   compareCommand,
		"list":      listCommand,
		"map":       mapCommand,
		"merge":     mergeCommand,
		"mmc":       mmcCommand,
		"plot":      plotCommand,
		"rare":      rareCommand,
		"report":    reportCommand,
		"run":       runCommand,
		"show":      showCommand,
		"sweep":     sweepCommand,
		"tip":       tipCommand,
		"tune":      tuneCommand,
		"validate":  validateCommand,
		"version":   versionCommand,
	}
}

// run is the whole CLI: it parses args, runs the command and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help":
		printUsage(stdout)
		return exitOK
	case "help":
		return runHelp(args[1:], stdout, stderr)
	}
	name := args[0]
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "simulate: unknown command %q\n\n", name)
		printUsage(stderr)
		return exitUsage
	}
	fs, action := newFlagSet(name, cmd, stderr)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) { // --help or -h: the help is the output asked for
			printCommandHelp(stdout, cmd, fs)
			return exitOK
		}
		fmt.Fprintf(stderr, "simulate %s: %v\n", name, err)
		fmt.Fprintf(stderr, "run 'simulate %s --help' for usage\n", name)
		return exitUsage
	}
	err := action(fs.Args(), stdout, stderr)
	// Every exit path releases the folders' locks (a second signal releases them before it exits).
	releaseAll()
	if limitStopped() { // whatever the command made of it: it did not finish its work
		if err == nil {
			err = errors.New(stopCause())
		}
		fmt.Fprintf(stderr, "simulate %s: %v\n", name, err)
		return exitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "simulate %s: %v\n", name, err)
		var u errUsage
		if errors.As(err, &u) || errors.Is(err, experiment.ErrRefused) {
			fmt.Fprintf(stderr, "run 'simulate %s --help' for usage\n", name)
			return exitUsage
		}
		if errors.Is(err, errInterrupted) || signalled.Load() {
			return exitInterrupted
		}
		if errors.Is(err, errExpectation) {
			return exitExpectation
		}
		return exitFailure
	}
	return exitOK
}

// newFlagSet returns the flag set of the command name, whose parse errors go to stderr, and
// its action. Its Usage does nothing: run prints the help itself, on stdout, when asked for it.
func newFlagSet(name string, cmd command, stderr io.Writer) (*pflag.FlagSet, func([]string, io.Writer, io.Writer) error) {
	fs := pflag.NewFlagSet("simulate "+name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	action := cmd.flags(fs)
	fs.Usage = func() {}
	return fs, action
}

// printCommandHelp writes a command's usage text and its options.
func printCommandHelp(w io.Writer, cmd command, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "%s\n", strings.TrimSpace(cmd.usage))
	if opts := fs.FlagUsages(); opts != "" {
		fmt.Fprintf(w, "\nOptions:\n%s", opts)
	}
}

// helpSummary is the summary of 'simulate help', which is not in commands: it is part of run.
const helpSummary = "print a command's help, a topic, or the list of commands and topics"

// runHelp is 'simulate help [CMD|TOPIC]': the list of commands and topics, one command's help,
// or one topic, on stdout.
func runHelp(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0 || len(args) == 1 && args[0] == "help":
		printUsage(stdout)
		return exitOK
	case len(args) > 1:
		fmt.Fprintf(stderr, "simulate help: want at most one command or topic, got %q\n", args)
		return exitUsage
	}
	if t, ok := topics[args[0]]; ok {
		if err := t.write(stdout); err != nil {
			fmt.Fprintf(stderr, "simulate help %s: %v\n", args[0], err)
			return exitFailure
		}
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "simulate help: unknown command or topic %q\n\n", args[0])
		printUsage(stderr)
		return exitUsage
	}
	fs, _ := newFlagSet(args[0], cmd, stderr)
	printCommandHelp(stdout, cmd, fs)
	return exitOK
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, "Usage: simulate <command> [arguments] [options]\n\nCommands:\n")
	names := []string{"help"}
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		summary := commands[n].summary
		if n == "help" {
			summary = helpSummary
		}
		fmt.Fprintf(w, "  %-10s %s\n", n, summary)
	}
	fmt.Fprint(w, "\nTopics:\n")
	for _, n := range topicNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, topics[n].summary)
	}
	fmt.Fprint(w, "\nRun 'simulate help <command>' or 'simulate <command> --help' for a command's options,\n'simulate help <topic>' for a topic.\n")
}

package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"overloadsim/scenarios"
)

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
func label() scenarios.Label {
	return scenarios.Label{Tool: scenarios.DefaultLabel().Tool, Version: buildVersion()}
}

// runOptions are the options of every run the command-line tool makes: its label.
func runOptions() scenarios.RunOptions { return scenarios.RunOptions{Label: label()} }

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

// Countergen gives a counter struct its Add and Sub methods, so that adding a counter to a
// statistics struct takes two edits: the field and the line that increments it. Run it with
// go generate from a directive next to the type:
//
//	//go:generate go run github.com/overloadsim/overloadsim/internal/countergen -type=Stats
//
// For each type named by -type (a comma-separated list), it writes <type>_counters.go
// (snake_case: GroupStats → group_stats_counters.go) into the package in the current directory
// (or the directory given as the argument), holding
//
//	func (s *T) Add(o *T) // s += o, field by field
//	func (s *T) Sub(o *T) // s -= o: with s later than o, s becomes the interval's counts
//
// as plain field-by-field statements with no reflection, no calls and no allocation: they run on
// the sampling path. internal/counters has the generic helpers built on them
// (Diff, Sum, Deltas).
//
// # Which fields count
//
// Every number (any integer or float kind, and types defined on them such as time.Duration) is a
// counter: Add sums it and Sub differences it. Fixed arrays of counters are done element by
// element, and nested or embedded structs field by field, recursively, with the same rules.
//
// A field tagged `counter:"gauge"` is a level, not a count (a queue length, a token bucket's
// balance): Add and Sub both leave it at the receiver's value, which for Sub is the newer
// snapshot's. `counter:"-"` does the same for a field that is not a measurement at all (a
// label, a flag), and `counter:"sum"` states the default. Any other field type (bool, string,
// pointer, slice, map, interface) is an error unless tagged gauge or "-", and so is an untagged
// field whose comment calls it a gauge: the generator refuses to guess. The generated doc
// comments list the fields that are kept.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// options are countergen's command line.
type options struct {
	types  []string
	output string
	dir    string
}

// parseArgs reads countergen's arguments (without the program name).
func parseArgs(args []string) (options, error) {
	fs := flag.NewFlagSet("countergen", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // main prints the error and the usage line
	typeList := fs.String("type", "", "comma-separated names of the struct types to generate for (required)")
	output := fs.String("output", "", "output file name (default <type>_counters.go; only with one type)")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	o := options{output: *output, dir: "."}
	for _, t := range strings.Split(*typeList, ",") {
		if t = strings.TrimSpace(t); t != "" {
			o.types = append(o.types, t)
		}
	}
	switch {
	case len(o.types) == 0:
		return o, errors.New("-type: empty: name at least one struct type")
	case o.output != "" && len(o.types) > 1:
		return o, errors.New("-output: only with a single -type")
	case fs.NArg() > 1:
		return o, fmt.Errorf("too many arguments %q: give at most one package directory", fs.Args())
	case fs.NArg() == 1:
		o.dir = fs.Arg(0)
	}
	return o, nil
}

// outputFile returns the file the methods of typeName go to.
func (o options) outputFile(typeName string) string {
	if o.output != "" {
		return filepath.Join(o.dir, o.output)
	}
	return filepath.Join(o.dir, fileName(typeName))
}

// load type-checks the package in dir from source (its dependencies from export data).
func load(dir string) (*packages.Package, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  dir,
	}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return nil, fmt.Errorf("countergen: loading %s: %w", dir, err)
	}
	if len(pkgs) != 1 || pkgs[0].Types == nil {
		return nil, fmt.Errorf("countergen: %s: want one Go package, found %d", dir, len(pkgs))
	}
	return pkgs[0], nil
}

// run generates the files o asks for and returns them by path, without writing them.
func run(o options) (map[string][]byte, error) {
	pkg, err := load(o.dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	var errs []error
	for _, t := range o.types {
		src, err := Generate(pkg, t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[o.outputFile(t)] = src
	}
	return out, errors.Join(errs...)
}

func main() {
	o, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "countergen:", err)
		fmt.Fprintln(os.Stderr, "usage: countergen -type=T[,U…] [-output=file.go] [package directory]")
		os.Exit(2)
	}
	files, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for path, src := range files {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "countergen:", err)
			os.Exit(1)
		}
	}
}

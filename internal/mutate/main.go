// Mutate checks that the project's tests pin its rules: it applies each mutant of a list — a
// single-line change that breaks one rule — and runs the test named as its killer, which must
// fail. Go has no standard mutation tool; this one is small on purpose.
//
//	go run ./internal/mutate [-run REGEXP] [-j N] [-list] [FILE|DIR ...]
//
// Without arguments it reads every *.txt under internal/mutate/mutants. The source tree is never
// written: each mutated file is handed to the go command through a build overlay (go help
// build, -overlay), so the build cache serves every package the mutant does not touch and runs
// can go side by side.
//
// # The list format
//
// Blocks of "key: value" lines, separated by blank lines; # starts a comment line.
//
//	mutant: aws-quota-exact-cost
//	pins: a retry is admitted when the quota holds exactly its cost (docs/policies.md)
//	file: client/retry/aws.go
//	old: if q.tokens < cost {
//	new: if q.tokens <= cost {
//	killer: ./client/retry TestAWSQuotaExactCost
//
// old (spaces around it trimmed) must occur on exactly one line of file, or give occurrence: N
// to pick the N-th such line; new replaces it there and may be empty, to drop a clause or a
// statement. killer is a package and a test name (anchored) or a -run regular expression.
//
// # What counts
//
// Before any mutant, each killer runs on the unchanged tree and must pass and run a test. Then,
// per mutant: killed when the killer fails; SURVIVED when it passes; INVALID when the mutated
// package does not build (a mutant that only breaks compilation proves nothing) or old is not
// where the list says (the code moved: update the list). The exit status is 0 when every mutant
// is killed, 1 otherwise, 2 on a usage error or a list that does not parse.
//
// docs/conventions.md §17 says how the project uses it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// options are mutate's command line.
type options struct {
	run     *regexp.Regexp
	jobs    int
	list    bool
	timeout time.Duration
	root    string
	files   []string
}

func parseArgs(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runPat := fs.String("run", "", "only the mutants whose name matches this regular expression")
	jobs := fs.Int("j", 1, "mutants tested side by side")
	list := fs.Bool("list", false, "check the lists and where each mutant applies; run nothing")
	timeout := fs.Duration("timeout", 5*time.Minute, "time limit for one killer run")
	root := fs.String("C", "", "module root (default: the nearest folder above holding go.mod)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./internal/mutate [-run REGEXP] [-j N] [-list] [-timeout D] [-C ROOT] [FILE|DIR ...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	o := options{jobs: *jobs, list: *list, timeout: *timeout, root: *root, files: fs.Args()}
	if *runPat != "" {
		re, err := regexp.Compile(*runPat)
		if err != nil {
			return o, fmt.Errorf("-run: %q: %v", *runPat, err)
		}
		o.run = re
	}
	if o.jobs < 1 || o.jobs > 64 {
		return o, fmt.Errorf("-j: %d: must be from 1 to 64", o.jobs)
	}
	if o.timeout <= 0 {
		return o, fmt.Errorf("-timeout: %v: must be > 0", o.timeout)
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 2
	}
	if o.root == "" {
		if o.root, err = moduleRoot(); err != nil {
			fmt.Fprintln(stderr, "mutate:", err)
			return 2
		}
	}
	if len(o.files) == 0 {
		o.files = []string{filepath.Join(o.root, "internal", "mutate", "mutants")}
	}
	mutants, err := load(o.files)
	if err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 2
	}
	if o.run != nil {
		var keep []Mutant
		for _, m := range mutants {
			if o.run.MatchString(m.Name) {
				keep = append(keep, m)
			}
		}
		mutants = keep
	}
	if len(mutants) == 0 {
		fmt.Fprintln(stderr, "mutate: no mutant selected")
		return 2
	}

	// Apply every mutant first, so a list that no longer matches the code fails before any
	// test runs.
	scratch, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 2
	}
	defer os.RemoveAll(scratch)
	jobs := make([]job, len(mutants))
	bad := 0
	for i, m := range mutants {
		jobs[i] = job{m: m}
		if err := jobs[i].prepare(o.root, scratch, i); err != nil {
			fmt.Fprintln(stderr, err)
			bad++
		}
	}
	if bad > 0 {
		fmt.Fprintf(stderr, "mutate: %d of %d mutants do not apply; nothing run\n", bad, len(mutants))
		return 1
	}
	if o.list {
		for _, j := range jobs {
			fmt.Fprintf(stdout, "%-40s %s:%d  %s %s\n", j.m.Name, j.m.File, j.line, j.m.Package, j.m.Test)
		}
		return 0
	}

	// The killers must pass on the unchanged tree: a killer that always fails kills everything.
	type base struct{ pkg, pattern string }
	var bases []base
	seen := map[base]bool{}
	for _, j := range jobs {
		b := base{j.m.Package, j.m.RunPattern()}
		if !seen[b] {
			seen[b] = true
			bases = append(bases, b)
		}
	}
	sort.Slice(bases, func(a, b int) bool {
		return bases[a].pkg+" "+bases[a].pattern < bases[b].pkg+" "+bases[b].pattern
	})
	baseErr := make([]string, len(bases))
	parallel(o.jobs, len(bases), func(i int) {
		out, err := goTest(ctx, o.root, "", bases[i].pkg, bases[i].pattern, o.timeout)
		switch {
		case err != nil:
			baseErr[i] = fmt.Sprintf("fails on the unchanged tree:\n%s", indent(out))
		case strings.Contains(out, "[no tests to run]"):
			baseErr[i] = "runs no test"
		}
	})
	for i, b := range bases {
		if baseErr[i] != "" {
			fmt.Fprintf(stderr, "mutate: killer %s %s %s\n", b.pkg, b.pattern, baseErr[i])
			bad++
		}
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "mutate: interrupted")
		return 130
	}
	if bad > 0 {
		return 1
	}

	parallel(o.jobs, len(jobs), func(i int) { jobs[i].test(ctx, o.root, o.timeout) })
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "mutate: interrupted; the verdicts below are incomplete")
	}
	counts := map[string]int{}
	for _, j := range jobs {
		counts[j.verdict]++
		fmt.Fprintf(stdout, "%-8s %-40s %s:%d  %s %s (%.1fs)\n", j.verdict, j.m.Name, j.m.File, j.line, j.m.Package, j.m.Test, j.took.Seconds())
		if j.verdict != "killed" && j.detail != "" {
			fmt.Fprintln(stdout, indent(j.detail))
		}
	}
	fmt.Fprintf(stdout, "%d mutants: %d killed, %d survived, %d invalid\n", len(jobs), counts["killed"], counts["SURVIVED"], counts["INVALID"])
	if ctx.Err() != nil {
		return 130
	}
	if counts["killed"] != len(jobs) {
		return 1
	}
	return 0
}

// load reads the named list files, and every *.txt in a named folder, in name order.
func load(paths []string) ([]Mutant, error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".txt") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	var all []Mutant
	var probs []string
	names := map[string]string{}
	for _, f := range files {
		ms, err := ParseFile(f)
		if err != nil {
			probs = append(probs, err.Error())
			continue
		}
		for _, m := range ms {
			if w, dup := names[m.Name]; dup {
				probs = append(probs, fmt.Sprintf("%s: mutant: %q: names must be unique (also at %s)", m.Where, m.Name, w))
			}
			names[m.Name] = m.Where
		}
		all = append(all, ms...)
	}
	if len(probs) > 0 {
		return nil, errors.New(strings.Join(probs, "\n"))
	}
	return all, nil
}

// A job is one mutant on its way through the tool.
type job struct {
	m       Mutant
	line    int    // the line the mutant changes
	overlay string // the overlay file handing the mutated source to go
	verdict string // killed, SURVIVED or INVALID
	detail  string // the go command's output when the verdict is not killed
	took    time.Duration
}

// prepare writes the mutated file and its overlay into scratch.
func (j *job) prepare(root, scratch string, i int) error {
	path := filepath.Join(root, filepath.FromSlash(j.m.File))
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: mutant %s: file: %w", j.m.Where, j.m.Name, err)
	}
	mutated, err := j.m.Apply(string(src))
	if err != nil {
		return err
	}
	j.line = j.m.Line(string(src))
	dir := filepath.Join(scratch, fmt.Sprint(i))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	repl := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(repl, []byte(mutated), 0o644); err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	ov, err := json.Marshal(map[string]map[string]string{"Replace": {abs: repl}})
	if err != nil {
		return err
	}
	j.overlay = filepath.Join(dir, "overlay.json")
	return os.WriteFile(j.overlay, ov, 0o644)
}

// test runs the killer against the mutated tree and records the verdict.
func (j *job) test(ctx context.Context, root string, timeout time.Duration) {
	start := time.Now()
	out, err := goTest(ctx, root, j.overlay, j.m.Package, j.m.RunPattern(), timeout)
	j.took = time.Since(start)
	switch {
	case err == nil:
		j.verdict, j.detail = "SURVIVED", "the killer passed with the mutant in place"
	case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
		j.verdict, j.detail = "INVALID", "the mutant does not build:\n"+out
	case ctx.Err() != nil:
		j.verdict, j.detail = "INVALID", "interrupted"
	default:
		j.verdict = "killed"
	}
}

// goTest runs one package's tests matching pattern, with an overlay when one is given.
func goTest(ctx context.Context, root, overlay, pkg, pattern string, timeout time.Duration) (string, error) {
	// -vet=off: vet says nothing about whether a killer fails, and costs a run per mutant.
	args := []string{"test", "-count=1", "-vet=off", "-timeout", timeout.String(), "-run", pattern}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	args = append(args, pkg)
	ctx, cancel := context.WithTimeout(ctx, timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// parallel calls f(0) … f(n-1) on at most jobs goroutines.
func parallel(jobs, n int, f func(int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// moduleRoot is the nearest folder at or above the working directory that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory: give -C ROOT")
		}
		dir = parent
	}
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

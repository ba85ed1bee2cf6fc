package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Runner says how to start one real driver release's runner program (the runner protocol: a
// job on stdin, one JSON line per operation on stdout).
type Runner interface {
	// Name is the driver, as records name their runner: "go" or "node".
	Name() string
	// Release names the release: "go-2.10.0", "node-7.9.0".
	Release() string
	// Program returns the program to start for one job, preparing it on first use (the Go
	// runner is built then).
	Program(ctx context.Context) (Program, error)
}

// Program is a command line and the folder it runs in.
type Program struct {
	Argv []string
	Dir  string
}

var releaseRE = regexp.MustCompile(`^(go|node)-(\d+\.\d+\.\d+)$`)

// Release returns the runner of a release name, "go-<version>" or "node-<version>", with the
// lab's folder (the lab module's root) holding drivers/go and drivers/node.
func Release(labDir, name string) (Runner, error) {
	m := releaseRE.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("release %q: must be go-<x.y.z> or node-<x.y.z>", name)
	}
	if m[1] == "go" {
		return GoRunner(labDir, m[2])
	}
	return NodeRunner(labDir, m[2])
}

// GoRunner is the runner of Go driver release version, built from labDir/drivers/go with
// go.mod (when it pins version) or go.v<version>.mod.
func GoRunner(labDir, version string) (Runner, error) {
	dir := filepath.Join(labDir, "drivers", "go")
	modfile := "go.v" + version + ".mod"
	if pinned, err := pins(filepath.Join(dir, "go.mod"), version); err != nil {
		return nil, err
	} else if pinned {
		modfile = "go.mod"
	}
	if _, err := os.Stat(filepath.Join(dir, modfile)); err != nil {
		have, _ := filepath.Glob(filepath.Join(dir, "go.v*.mod"))
		var names []string
		for _, h := range have {
			names = append(names, "go-"+strings.TrimSuffix(strings.TrimPrefix(filepath.Base(h), "go.v"), ".mod"))
		}
		sort.Strings(names)
		return nil, fmt.Errorf("release go-%s: no module file %s in %s (go.mod pins another release; pinned: %s)",
			version, modfile, dir, strings.Join(names, ", "))
	}
	return &goRunner{dir: dir, version: version, modfile: modfile}, nil
}

// pins says whether the module file requires the Go driver at version.
func pins(modfile, version string) (bool, error) {
	b, err := os.ReadFile(modfile)
	if err != nil {
		return false, err
	}
	return regexp.MustCompile(`(?m)^\s*(require\s+)?go\.mongodb\.org/mongo-driver/v2 v` + regexp.QuoteMeta(version) + `\s*$`).Match(b), nil
}

type goRunner struct {
	dir, version, modfile string
}

func (r *goRunner) Name() string    { return "go" }
func (r *goRunner) Release() string { return "go-" + r.version }

// Program builds the runner once into the user's cache, under a name keyed by the sources and
// module files, so an edited runner is rebuilt and an unchanged one is not.
func (r *goRunner) Program(ctx context.Context) (Program, error) {
	bin, err := r.build(ctx)
	if err != nil {
		return Program{}, err
	}
	return Program{Argv: []string{bin}, Dir: r.dir}, nil
}

// BuildError is a runner that could not be built; Offline says the go command could not reach
// the module proxy, so the machine, not the runner, is at fault.
type BuildError struct {
	Release string
	Output  string
	Err     error
	Offline bool
}

// Error says which release's runner could not be built and why.
func (e *BuildError) Error() string {
	return fmt.Sprintf("building the runner of %s: %v\n%s", e.Release, e.Err, e.Output)
}

// Unwrap returns the build's own error.
func (e *BuildError) Unwrap() error { return e.Err }

// offlineRE matches the go command's words for a module it could not download.
var offlineRE = regexp.MustCompile(`dial tcp|no such host|lookup .*: |connection refused|i/o timeout|TLS handshake timeout|proxyconnect|network is unreachable`)

var buildMu sync.Mutex // one build at a time in this process: tests may share a release

func (r *goRunner) build(ctx context.Context) (string, error) {
	key, err := r.key()
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("building the runner of %s: %w", r.Release(), err)
	}
	dir := filepath.Join(cache, "overloadsim-lab", r.Release(), key)
	bin := filepath.Join(dir, "runner")
	buildMu.Lock()
	defer buildMu.Unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Build beside the final name and rename, so another process never runs half a binary.
	tmp := fmt.Sprintf("%s.%d.tmp", bin, os.Getpid())
	cmd := exec.CommandContext(ctx, "go", "build", "-modfile="+r.modfile, "-o", tmp, ".")
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		_ = os.Remove(tmp)
		o := strings.TrimSpace(out.String())
		return "", &BuildError{Release: r.Release(), Output: o, Err: err, Offline: offlineRE.MatchString(o)}
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	return bin, nil
}

// key digests the runner's Go files and the release's module files.
func (r *goRunner) key() (string, error) {
	files, err := filepath.Glob(filepath.Join(r.dir, "*.go"))
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	sum := strings.TrimSuffix(r.modfile, ".mod") + ".sum"
	files = append(files, filepath.Join(r.dir, r.modfile), filepath.Join(r.dir, sum))
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("the runner of %s: %w", r.Release(), err)
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// NodeRunner is the runner of Node driver release version: node drivers/node/run.mjs <version>,
// run in labDir.
func NodeRunner(labDir, version string) (Runner, error) {
	script := filepath.Join(labDir, "drivers", "node", "run.mjs")
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("release node-%s: %w", version, err)
	}
	return &nodeRunner{labDir: labDir, version: version}, nil
}

type nodeRunner struct{ labDir, version string }

func (r *nodeRunner) Name() string    { return "node" }
func (r *nodeRunner) Release() string { return "node-" + r.version }
func (r *nodeRunner) Program(context.Context) (Program, error) {
	return Program{Argv: []string{"node", filepath.Join("drivers", "node", "run.mjs"), r.version}, Dir: r.labDir}, nil
}

// FindLab returns the lab module's root: from dir or one of its parents, the folder whose go.mod
// is the lab module, or the "lab" folder beside it (so the repository's root works too).
func FindLab(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		for _, c := range []string{d, filepath.Join(d, "lab")} {
			if b, err := os.ReadFile(filepath.Join(c, "go.mod")); err == nil &&
				regexp.MustCompile(`(?m)^module github\.com/overloadsim/overloadsim/lab\s*$`).Match(b) {
				return c, nil
			}
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no lab module (github.com/overloadsim/overloadsim/lab) in " + abs + " or its parents")
		}
	}
}

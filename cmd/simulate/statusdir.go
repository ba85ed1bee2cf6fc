package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/overloadsim/overloadsim/record"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/serverstatus"
	"github.com/overloadsim/overloadsim/scenarios"
)

// The files of a serverStatus export (run --serverstatus DIR), in DIR/<node>/.
const (
	statusFile = "serverStatus.json" // one document per line, in time order
	paramsFile = "getParameter.json" // one document
)

// statusFiles are the only files an export's node folder holds.
var statusFiles = []string{paramsFile, statusFile}

// checkStatusDir decides up front whether a run may write its serverStatus export to dir: a
// folder that does not exist or is empty, or, with force, one that holds an earlier export and
// nothing else (only that is ever replaced: files of anyone else's are refused even then). It
// also refuses the run's --out folder, and a node whose name cannot name a folder. It creates
// dir's parent and checks that it can be written.
func checkStatusDir(dir, out string, sc *scenarios.Scenario, force bool) error {
	dir = filepath.Clean(dir)
	a, errA := results.ResolvePath(dir)
	b, errB := results.ResolvePath(out)
	if errA == nil && errB == nil && a == b {
		return usageErrorf("--serverstatus %s: it is the --out folder; give the export a folder of its own", dir)
	}
	for _, n := range sc.Topology.Nodes {
		if n.Name == "." || n.Name == ".." {
			return usageErrorf("--serverstatus: node %q cannot name a folder of the export; rename it", n.Name)
		}
	}
	if err := statusDirState(dir, force); err != nil {
		return err
	}
	if err := checkWritable(filepath.Dir(filepath.Clean(dir)), true); err != nil {
		return fmt.Errorf("--serverstatus: %w", err)
	}
	return nil
}

// statusDirState refuses dir unless it is absent, empty, or (with force) an earlier export.
func statusDirState(dir string, force bool) error {
	st, err := os.Lstat(filepath.Clean(dir))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--serverstatus: %w", err)
	case !st.IsDir():
		return usageErrorf("--serverstatus %s: not a folder", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("--serverstatus: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	if !force {
		return usageErrorf("--serverstatus %s: not empty (%s): choose a new or empty folder, or give --force to replace the export simulate wrote there",
			dir, listNames(entries))
	}
	if foreign := foreignInExport(dir, entries); len(foreign) > 0 {
		return usageErrorf("--serverstatus %s %v (%s): --force replaces only a serverStatus export, never anything else; move them away or choose another folder",
			dir, results.ErrForeign, strings.Join(foreign[:min(len(foreign), 3)], ", ")+more(len(foreign), 3))
	}
	return nil
}

// foreignInExport returns the paths under dir (relative to it) that an export does not write:
// anything but node folders (real folders, not links) holding serverStatus.json and
// getParameter.json as regular files.
func foreignInExport(dir string, entries []os.DirEntry) []string {
	var foreign []string
	for _, e := range entries {
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			foreign = append(foreign, e.Name())
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, e.Name()))
		if err != nil {
			foreign = append(foreign, e.Name())
			continue
		}
		for _, f := range files {
			if !slices.Contains(statusFiles, f.Name()) || !f.Type().IsRegular() {
				foreign = append(foreign, filepath.Join(e.Name(), f.Name()))
			}
		}
	}
	return foreign
}

// listNames lists a few of entries' names.
func listNames(entries []os.DirEntry) string {
	var names []string
	for _, e := range entries[:min(len(entries), 3)] {
		names = append(names, e.Name())
	}
	return strings.Join(names, ", ") + more(len(entries), 3)
}

// more says how many of n names were not shown.
func more(n, shown int) string {
	if n <= shown {
		return ""
	}
	return fmt.Sprintf(" and %d more", n-shown)
}

// writeStatusDir writes log to dir, whole or not at all: every node's files go into a new
// temporary folder beside dir, which then takes dir's place (dir, if there is one, must still be
// what checkStatusDir accepted: empty, or with force an earlier export, which is removed once
// the new one is in place).
func writeStatusDir(dir string, log *record.StatusLog, force bool) (err error) {
	dir = filepath.Clean(dir)
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	tmp, err := os.MkdirTemp(parent, "."+base+"-*.tmp")
	if err != nil {
		return fmt.Errorf("--serverstatus: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("--serverstatus: %w", err)
	}
	for i := range log.Nodes {
		n := &log.Nodes[i]
		nodeDir := filepath.Join(tmp, n.Name)
		if err := os.Mkdir(nodeDir, 0o755); err != nil {
			return fmt.Errorf("--serverstatus: %w", err)
		}
		if err := writeLines(filepath.Join(nodeDir, statusFile), len(n.Docs), func(w *bufio.Writer, k int) error {
			return serverstatus.Write(w, n.Docs[k])
		}); err != nil {
			return err
		}
		if err := writeLines(filepath.Join(nodeDir, paramsFile), 1, func(w *bufio.Writer, _ int) error {
			return serverstatus.Write(w, n.Params)
		}); err != nil {
			return err
		}
	}
	// dir may have changed while the run ran: check it again before it is replaced.
	if err := statusDirState(dir, force); err != nil {
		return err
	}
	var old string
	if _, err := os.Lstat(dir); err == nil {
		if entries, _ := os.ReadDir(dir); len(entries) == 0 {
			if err := os.Remove(dir); err != nil {
				return fmt.Errorf("--serverstatus: %w", err)
			}
		} else {
			// An earlier export (checked above): moved aside, then removed once the new one
			// stands in its place.
			if old, err = os.MkdirTemp(parent, "."+base+"-old-*.tmp"); err != nil {
				return fmt.Errorf("--serverstatus: %w", err)
			}
			if err := os.Remove(old); err != nil {
				return fmt.Errorf("--serverstatus: %w", err)
			}
			if err := os.Rename(dir, old); err != nil {
				return fmt.Errorf("--serverstatus: %w", err)
			}
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return fmt.Errorf("--serverstatus: %w", err)
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("--serverstatus: the earlier export, moved to %s: %w", old, err)
		}
	}
	return nil
}

// writeLines creates path (which must not exist) and writes n lines to it with line.
func writeLines(path string, n int, line func(w *bufio.Writer, k int) error) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("--serverstatus: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("--serverstatus: %w", cerr)
		}
	}()
	w := bufio.NewWriter(f)
	for k := range n {
		if err := line(w, k); err != nil {
			return fmt.Errorf("--serverstatus: writing %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("--serverstatus: writing %s: %w", path, err)
	}
	return nil
}

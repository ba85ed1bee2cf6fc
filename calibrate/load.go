package calibrate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/results/serverstatus"
)

// Inputs is what a calibration reads: the serverStatus documents of every node, oldest first,
// the getParameter output that applies to each, and the mongod log entries.
type Inputs struct {
	Nodes []*Node                 // by host
	Log   []serverstatus.LogEntry // slow operations and client metadata, in file order
	Files []string                // every file read, in the order read
	// Unplaced are the log files no node could be tied to: their slow operations are not
	// used for service times (name a log for its node: rs0a.log).
	Unplaced []string
}

// Node is one mongod or mongos: its documents in time order and its parameters.
type Node struct {
	Host       string
	Docs       []serverstatus.Doc
	Sources    []string // the file of each document
	Params     *serverstatus.Params
	ParamsFrom string // the file Params came from; "" when none applies
	// Log is the slow operations of the node's own log: a log file named for the node
	// (rs0a.log, rs0a-mongod.log), or in a directory holding only this node's documents, or
	// the only node read.
	Log     []serverstatus.LogEntry
	LogFrom string
}

// Name is the node's name in the scenario: its host without the port.
func (n *Node) Name() string {
	h := n.Host
	if i := strings.LastIndexByte(h, ':'); i > 0 && !strings.Contains(h[i+1:], "]") {
		h = h[:i]
	}
	return h
}

// Last is the node's newest document.
func (n *Node) Last() *serverstatus.Doc { return &n.Docs[len(n.Docs)-1] }

// maxInputFiles bounds how many files one calibration reads, so that a path naming a home
// directory by mistake is refused rather than read for minutes.
const maxInputFiles = 10_000

// Load reads the files at paths (directories are walked, in lexical order, for *.json, *.jsonl,
// *.log and *.ejson files) and checks the documents together: every problem is a *field.Error
// naming the file and the field, and all of them are returned at once (errors.Join).
func Load(paths []string) (*Inputs, error) {
	if len(paths) == 0 {
		return nil, field.New("inputs", "none", "name at least one serverStatus, getParameter or mongod log file, or a directory of them")
	}
	var files []string
	var errs []error
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !inputExt(path) {
				return nil
			}
			if len(files) >= maxInputFiles {
				return field.New(p, fmt.Sprintf("more than %d files", maxInputFiles), "name the directories of one cluster's documents")
			}
			files = append(files, path)
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var read []*serverstatus.File
	for _, f := range files {
		sf, err := serverstatus.ReadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		read = append(read, sf)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return assemble(read)
}

func inputExt(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".jsonl", ".log", ".ejson":
		return true
	}
	return false
}

// assemble groups the files' documents by node, orders them in time, gives each node the
// getParameter output that applies to it, and checks the documents together.
func assemble(files []*serverstatus.File) (*Inputs, error) {
	in := &Inputs{}
	byHost := map[string]*Node{}
	dirHosts := map[string]map[string]bool{} // directory → hosts whose documents are in it
	var errs []error
	for _, f := range files {
		in.Files = append(in.Files, f.Path)
		for i := range f.Status {
			d := f.Status[i]
			if d.Host == "" {
				errs = append(errs, field.New(f.Path+": host", `""`, "a serverStatus document must name its host"))
				continue
			}
			n := byHost[d.Host]
			if n == nil {
				n = &Node{Host: d.Host}
				byHost[d.Host] = n
			}
			n.Docs = append(n.Docs, d)
			n.Sources = append(n.Sources, f.Path)
			dir := filepath.Dir(f.Path)
			if dirHosts[dir] == nil {
				dirHosts[dir] = map[string]bool{}
			}
			dirHosts[dir][d.Host] = true
		}
		in.Log = append(in.Log, f.Log...)
	}
	for _, h := range sortedKeys(byHost) {
		in.Nodes = append(in.Nodes, byHost[h])
	}
	for _, n := range in.Nodes {
		errs = append(errs, n.order()...)
	}
	errs = append(errs, in.attachParams(files, dirHosts)...)
	in.attachLogs(files, dirHosts)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return in, nil
}

// order sorts the node's documents by time and checks that time and every counter move forward:
// two documents at the same instant, or a counter that went back (the process restarted), are
// errors naming the files.
func (n *Node) order() []error {
	idx := make([]int, len(n.Docs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return docTime(&n.Docs[idx[a]]).Before(docTime(&n.Docs[idx[b]])) })
	docs := make([]serverstatus.Doc, len(idx))
	srcs := make([]string, len(idx))
	for i, j := range idx {
		docs[i], srcs[i] = n.Docs[j], n.Sources[j]
	}
	n.Docs, n.Sources = docs, srcs
	var errs []error
	for i := 1; i < len(n.Docs); i++ {
		a, b := &n.Docs[i-1], &n.Docs[i]
		ta, tb := docTime(a), docTime(b)
		where := fmt.Sprintf("%s and %s: host %s", n.Sources[i-1], n.Sources[i], n.Host)
		if n.Sources[i-1] == n.Sources[i] {
			where = fmt.Sprintf("%s: host %s", n.Sources[i], n.Host)
		}
		if !tb.After(ta) {
			errs = append(errs, field.New(where+": localTime", tb.UTC().Format(time.RFC3339Nano),
				"two documents of one host taken at the same instant: take them some seconds apart, or drop one"))
			continue
		}
		if b.UptimeMillis < a.UptimeMillis || (b.UptimeMillis == 0 && b.Uptime < a.Uptime) {
			errs = append(errs, field.New(where+": uptime", fmt.Sprintf("%v after %v", b.Uptime, a.Uptime),
				"the process restarted between the documents: its counters started again; calibrate from the documents after the restart"))
			continue
		}
		if path, from, to, ok := counterBack(reflect.ValueOf(*a), reflect.ValueOf(*b), ""); ok {
			errs = append(errs, field.New(where+": "+path, fmt.Sprintf("%d after %d", to, from),
				"a cumulative counter went back: the process restarted, or the documents come from different processes; calibrate from the documents after the restart"))
		}
	}
	return errs
}

// docTime is when a document was taken: localTime, or its uptime when localTime is absent.
func docTime(d *serverstatus.Doc) time.Time {
	if !d.LocalTime.IsZero() {
		return d.LocalTime
	}
	return time.Unix(0, 0).Add(time.Duration(d.UptimeMillis) * time.Millisecond)
}

// gauges are the int64 fields that are not cumulative counters.
var gauges = map[string]bool{
	"current": true, "available": true, "active": true, "queuedForEstablishment": true,
	"totalAvailableTokens": true, "out": true, "totalTickets": true, "queueLength": true,
	"processing": true, "uptimeMillis": true, "micros": true,
}

// counterBack finds the first cumulative counter (an int64 field that is not a gauge) smaller in
// b than in a, walking the two documents together, and returns its path.
func counterBack(a, b reflect.Value, path string) (string, int64, int64, bool) {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return "", 0, 0, false
		}
		return counterBack(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		t := a.Type()
		for i := 0; i < t.NumField(); i++ {
			name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
			if name == "" || name == "-" || name == "histogram" || gauges[name] {
				continue
			}
			if p, x, y, ok := counterBack(a.Field(i), b.Field(i), field.Join(path, name)); ok {
				return p, x, y, true
			}
		}
	case reflect.Map:
		keys := a.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				continue
			}
			if p, x, y, ok := counterBack(a.MapIndex(k), bv, field.Join(path, k.String())); ok {
				return p, x, y, true
			}
		}
	case reflect.Int64:
		if b.Int() < a.Int() {
			return path, a.Int(), b.Int(), true
		}
	}
	return "", 0, 0, false
}

// attachParams gives each node the getParameter output that applies to it: one in a file
// whose name starts with the node's name and a separator (rs0a.getParameter.json), else one in the directory
// that holds the node's documents, else the only one read. A file named for another node read
// is that node's only (sh0a.json holds sh0a's output, not its neighbours'). Two different ones
// for a node are an error.
func (in *Inputs) attachParams(files []*serverstatus.File, dirHosts map[string]map[string]bool) []error {
	type src struct {
		p    serverstatus.Params
		file string
	}
	var all, unnamed []src
	for _, f := range files {
		for _, p := range f.Params {
			all = append(all, src{p, f.Path})
			if !slices.ContainsFunc(in.Nodes, func(n *Node) bool { return namedFor(filepath.Base(f.Path), n.Name()) }) {
				unnamed = append(unnamed, src{p, f.Path})
			}
		}
	}
	var errs []error
	for _, n := range in.Nodes {
		var pick []src
		for _, s := range all {
			if namedFor(filepath.Base(s.file), n.Name()) {
				pick = append(pick, s)
			}
		}
		if len(pick) == 0 {
			for _, s := range unnamed {
				if dirHosts[filepath.Dir(s.file)][n.Host] {
					pick = append(pick, s)
				}
			}
		}
		if len(pick) == 0 && len(all) == 1 && len(unnamed) == 1 {
			pick = unnamed
		}
		if len(pick) == 0 {
			continue
		}
		for _, s := range pick[1:] {
			if !reflect.DeepEqual(s.p, pick[0].p) {
				errs = append(errs, field.New(s.file, "getParameter", fmt.Sprintf(
					"differs from %s, which also applies to host %s: keep one getParameter output per node (name it %s.getParameter.json)",
					pick[0].file, n.Host, n.Name())))
			}
		}
		p := pick[0].p
		n.Params, n.ParamsFrom = &p, pick[0].file
	}
	return errs
}

// attachLogs gives each node the slow operations of its own log. A log that cannot be tied to
// one node still counts its client metadata (Inputs.Log), and a note says so.
func (in *Inputs) attachLogs(files []*serverstatus.File, dirHosts map[string]map[string]bool) {
	for _, f := range files {
		if len(f.Log) == 0 {
			continue
		}
		var owner *Node
		for _, n := range in.Nodes {
			if namedFor(filepath.Base(f.Path), n.Name()) {
				owner = n
			}
		}
		if owner == nil {
			if hs := dirHosts[filepath.Dir(f.Path)]; len(hs) == 1 {
				for _, n := range in.Nodes {
					if hs[n.Host] {
						owner = n
					}
				}
			} else if len(in.Nodes) == 1 {
				owner = in.Nodes[0]
			}
		}
		if owner == nil {
			in.Unplaced = append(in.Unplaced, f.Path)
			continue
		}
		for _, e := range f.Log {
			if e.ID == serverstatus.LogSlowQuery {
				owner.Log = append(owner.Log, e)
			}
		}
		owner.LogFrom = f.Path
	}
}

// namedFor reports whether a file's base name starts with the node's name and a separator
// (rs0a.getParameter.json, rs0a-getparameter.json, rs0a_params.json).
func namedFor(base, name string) bool {
	rest, ok := strings.CutPrefix(base, name)
	return ok && rest != "" && strings.ContainsRune(".-_", rune(rest[0]))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

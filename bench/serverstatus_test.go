package bench

import (
	"bytes"
	"errors"
	"github.com/overloadsim/overloadsim/scenarios"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/overloadsim/overloadsim/record"
	"github.com/overloadsim/overloadsim/results"
)

// Rule (RunOptions.ServerStatus's doc): a run that fills a serverStatus log writes the same
// bytes as one that does not, and the log has every MongoDB node, a document at time 0 and one
// per interval end, mongos nodes as mongos without execution tickets, and replica-set members
// with their set's name (the shard's, or rs0 for a cluster's only set) and its primary of the
// moment: after the stepdown at 10 s and the 3 s election, b.
func TestRunWithServerStatus(t *testing.T) {
	tests := []struct {
		name     string
		duration string
		nodes    []string
		sets     map[string]string // node → setName; absent: no repl section
		mongos   map[string]bool
		primary  map[string]string // node → primary in its last document
	}{
		{"sharded-layered-retries", "3s",
			[]string{"s0a", "s0b", "s0c", "s1a", "s1b", "s1c", "mongos1", "mongos2"},
			map[string]string{"s0a": "s0", "s0b": "s0", "s0c": "s0", "s1a": "s1", "s1b": "s1", "s1c": "s1"},
			map[string]bool{"mongos1": true, "mongos2": true},
			map[string]string{"s0b": "s0a:27017", "s1c": "s1a:27017"}},
		{"stepdown", "15s", []string{"a", "b", "c"},
			map[string]string{"a": "rs0", "b": "rs0", "c": "rs0"}, nil,
			map[string]string{"a": "b:27017", "b": "b:27017"}},
		{"healthy", "2s", []string{"db"}, nil, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenarios.Lookup(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			for _, set := range [][2]string{{"warmup", "0s"}, {"duration", tc.duration}} {
				if err := sc.Set(set[0], set[1]); err != nil {
					t.Fatal(err)
				}
			}
			plain, err := Run(sc, sc.Seed, 0)
			if err != nil {
				t.Fatal(err)
			}
			log := &record.StatusLog{}
			seen, err := RunWith(sc, sc.Seed, 0, RunOptions{ServerStatus: log})
			if err != nil {
				t.Fatal(err)
			}
			a, b := runFiles(t, plain), runFiles(t, seen)
			for name, want := range a {
				if !bytes.Equal(b[name], want) {
					t.Errorf("%s differs with a serverStatus log", name)
				}
			}
			if len(log.Nodes) != len(tc.nodes) {
				t.Fatalf("%d nodes in the log, want %d", len(log.Nodes), len(tc.nodes))
			}
			wantDocs := int(sc.Duration/sc.Interval) + 1
			var commands int64
			for i, n := range log.Nodes {
				if n.Name != tc.nodes[i] || len(n.Docs) != wantDocs {
					t.Errorf("node %d: %s with %d documents, want %s with %d", i, n.Name, len(n.Docs), tc.nodes[i], wantDocs)
					continue
				}
				last := n.Docs[len(n.Docs)-1]
				if last.UptimeMillis != sc.Duration.Milliseconds() || last.Metrics == nil {
					t.Errorf("%s: last document at %d ms, want the horizon", n.Name, last.UptimeMillis)
				}
				process := "mongod"
				if tc.mongos[n.Name] {
					process = "mongos"
				}
				if last.Process != process || (last.Queues.Execution == nil) != tc.mongos[n.Name] ||
					(n.Params.ExecutionControlConcurrentReadTransactions == nil) != tc.mongos[n.Name] {
					t.Errorf("%s: process %s, execution tickets %v, ticket parameters %v; want %s, tickets only on a mongod",
						n.Name, last.Process, last.Queues.Execution != nil, n.Params.ExecutionControlConcurrentReadTransactions != nil, process)
				}
				set, member := tc.sets[n.Name]
				if (last.Repl != nil) != member || member && (last.Repl.SetName != set || last.Repl.Me != n.Name+":27017" || len(last.Repl.Hosts) != 3) {
					t.Errorf("%s: repl %+v, want set %q (member: %v)", n.Name, last.Repl, set, member)
				}
				if p, ok := tc.primary[n.Name]; ok && last.Repl.Primary != p {
					t.Errorf("%s: primary %q at the end, want %q", n.Name, last.Repl.Primary, p)
				}
				for _, c := range last.Metrics.Commands {
					commands += c.Total
				}
			}
			if commands == 0 {
				t.Error("no command counted on any node")
			}
		})
	}
}

// runFiles returns the files a run's folder holds, by name.
func runFiles(t *testing.T, run *results.Run) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	if err := results.WriteRunDir(dir, run); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, name := range []string{results.RunFile, results.TimeseriesFile, results.SummaryFile, results.ShardsFile, results.ManifestFile} {
		if b, err := readIfThere(dir, name); err != nil {
			t.Fatal(err)
		} else if b != nil {
			out[name] = b
		}
	}
	if len(out) < 4 {
		t.Fatalf("run folder has %d of its files", len(out))
	}
	return out
}

// readIfThere returns the file dir/name, nil if there is none.
func readIfThere(dir, name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

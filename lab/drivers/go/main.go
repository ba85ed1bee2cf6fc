// Command go is the conformance lab's runner for the Go driver: it reads one job as JSON on
// stdin, makes one client from the job's URI, runs the job's operations (each tagged with the
// comment "op-<index>" so the mock server can tell their attempts apart) at most Concurrency at a
// time, and writes one JSON line per operation on stdout saying what the driver returned.
//
// It is built against one driver release at a time (go.mod, or go.v<release>.mod with
// -modfile), so it uses only the API every pinned release shares. The pinned releases are one of
// each kind of overload behaviour: v2.5.0 (none), v2.6.0 (the first, discrete jitter), v2.7.0
// (continuous jitter), v2.8.2 (a write's un-retried NoWritesPerformed error no longer reads as
// success), v2.9.1 (backoff doubled, baseBackoffMS honoured, that bug back), v2.9.3 and
// v2.10.0 (the bug fixed again).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// job is what the harness asks for.
type job struct {
	URI            string `json:"uri"`
	Operation      string `json:"operation"`
	ReadPreference string `json:"readPreference"`
	Count          int    `json:"count"`
	Concurrency    int    `json:"concurrency"`
	Database       string `json:"database"`
	Collection     string `json:"collection"`
}

// line is one operation's outcome as the driver returned it.
type line struct {
	Op        int      `json:"op"`
	OK        bool     `json:"ok"`
	Code      int      `json:"code"`
	CodeName  string   `json:"codeName"`
	Labels    []string `json:"labels"`
	Network   bool     `json:"network"`
	Timeout   bool     `json:"timeout"`
	Selection bool     `json:"selection"`
	Message   string   `json:"message"`
}

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "go runner:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(in)
	dec.DisallowUnknownFields()
	var j job
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("job on stdin: %w", err)
	}
	if j.Count < 1 || j.Concurrency < 1 {
		return fmt.Errorf("job: count %d, concurrency %d: both must be ≥ 1", j.Count, j.Concurrency)
	}
	op, err := operation(j)
	if err != nil {
		return err
	}
	opts := options.Client().ApplyURI(j.URI)
	discovered := watchDiscovery(opts)
	client, err := mongo.Connect(opts)
	if err != nil {
		return fmt.Errorf("connect %s: %w", j.URI, err)
	}
	defer func() { _ = client.Disconnect(context.Background()) }()
	// Operations start once every server has answered its monitor, so the first ones see the
	// whole topology (a replica set's primary, every mongos) as later ones do.
	select {
	case <-discovered:
	case <-time.After(discoveryWait):
		fmt.Fprintf(os.Stderr, "go runner: not every server of %s was discovered within %v; running anyway\n", j.URI, discoveryWait)
	}
	rp, err := readPreference(j.ReadPreference)
	if err != nil {
		return err
	}
	db := client.Database(j.Database)
	coll := db.Collection(j.Collection, options.Collection().SetReadPreference(rp))

	var mu sync.Mutex
	var werr error
	enc := json.NewEncoder(out)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(j.Concurrency, j.Count) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				l := outcome(i, op(context.Background(), db, coll, rp, i))
				mu.Lock()
				if err := enc.Encode(l); err != nil && werr == nil {
					werr = err
				}
				mu.Unlock()
			}
		}()
	}
	for i := range j.Count {
		next <- i
	}
	close(next)
	wg.Wait()
	return werr
}

// discoveryWait bounds the wait for the monitors: the mock answers at once.
const discoveryWait = 10 * time.Second

// watchDiscovery returns a channel closed when every host of the URI has a known server type,
// learned from topology events alone (no command is sent, so the servers' script is untouched).
func watchDiscovery(opts *options.ClientOptions) <-chan struct{} {
	done := make(chan struct{})
	var once sync.Once
	want := len(opts.Hosts)
	opts.SetServerMonitor(&event.ServerMonitor{
		TopologyDescriptionChanged: func(ev *event.TopologyDescriptionChangedEvent) {
			known := 0
			for _, s := range ev.NewDescription.Servers {
				if s.Kind != "Unknown" && s.Kind != "" {
					known++
				}
			}
			if known >= want {
				once.Do(func() { close(done) })
			}
		},
	})
	return done
}

// opFunc runs operation i.
type opFunc func(ctx context.Context, db *mongo.Database, coll *mongo.Collection, rp *readpref.ReadPref, i int) error

// operation returns the job's operation, as the runner protocol defines each.
func operation(j job) (opFunc, error) {
	switch j.Operation {
	case "find":
		return func(ctx context.Context, _ *mongo.Database, coll *mongo.Collection, _ *readpref.ReadPref, i int) error {
			cur, err := coll.Find(ctx, bson.D{}, options.Find().SetComment(tag(i)))
			if err != nil {
				return err
			}
			defer func() { _ = cur.Close(ctx) }()
			cur.Next(ctx) // the first batch is empty and the cursor closed: nothing more is sent
			return cur.Err()
		}, nil
	case "insertOne":
		return func(ctx context.Context, _ *mongo.Database, coll *mongo.Collection, _ *readpref.ReadPref, i int) error {
			_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}, options.InsertOne().SetComment(tag(i)))
			return err
		}, nil
	case "runCommand":
		return func(ctx context.Context, db *mongo.Database, coll *mongo.Collection, rp *readpref.ReadPref, i int) error {
			cmd := bson.D{{Key: "find", Value: coll.Name()}, {Key: "filter", Value: bson.D{}}, {Key: "comment", Value: tag(i)}}
			return db.RunCommand(ctx, cmd, options.RunCmd().SetReadPreference(rp)).Err()
		}, nil
	case "aggregateOut":
		return func(ctx context.Context, _ *mongo.Database, coll *mongo.Collection, _ *readpref.ReadPref, i int) error {
			pipeline := mongo.Pipeline{{{Key: "$out", Value: "out"}}}
			cur, err := coll.Aggregate(ctx, pipeline, options.Aggregate().SetComment(tag(i)))
			if err != nil {
				return err
			}
			defer func() { _ = cur.Close(ctx) }()
			for cur.Next(ctx) {
			}
			return cur.Err()
		}, nil
	}
	return nil, fmt.Errorf("job: operation %q: must be find, insertOne, runCommand or aggregateOut", j.Operation)
}

func tag(i int) string { return fmt.Sprintf("op-%d", i) }

func readPreference(mode string) (*readpref.ReadPref, error) {
	if mode == "" {
		mode = "primary"
	}
	m, err := readpref.ModeFromString(mode)
	if err != nil {
		return nil, fmt.Errorf("job: readPreference %q: %w", mode, err)
	}
	rp, err := readpref.New(m)
	if err != nil {
		return nil, fmt.Errorf("job: readPreference %q: %w", mode, err)
	}
	return rp, nil
}

// knownLabels are the labels asked of errors that carry labels without exposing their list.
var knownLabels = []string{"NetworkError", "NoWritesPerformed", "RetryableError", "RetryableWriteError",
	"SystemOverloadedError", "TransientTransactionError", "UnknownTransactionCommitResult"}

// outcome describes what operation i returned.
func outcome(i int, err error) line {
	l := line{Op: i, OK: err == nil, Labels: []string{}}
	if err == nil {
		return l
	}
	l.Message = err.Error()
	var labels []string
	var we mongo.WriteException
	var bwe mongo.BulkWriteException
	switch {
	case errors.As(err, &we):
		labels = we.Labels
		if len(we.WriteErrors) > 0 {
			l.Code = we.WriteErrors[0].Code
		} else if we.WriteConcernError != nil {
			l.Code, l.CodeName = we.WriteConcernError.Code, we.WriteConcernError.Name
		}
	case errors.As(err, &bwe):
		labels = bwe.Labels
		if len(bwe.WriteErrors) > 0 {
			l.Code = bwe.WriteErrors[0].Code
		} else if bwe.WriteConcernError != nil {
			l.Code, l.CodeName = bwe.WriteConcernError.Code, bwe.WriteConcernError.Name
		}
	}
	// A command error's code may sit below a code-less wrapper: every pinned release reports a
	// failed connection handshake as a labelled error without a code around the connection
	// error, which wraps the server's reply. The first non-zero code in the chain is the server's.
	for e := err; e != nil; e = errors.Unwrap(e) {
		var code int32
		var name string
		var ls []string
		switch x := e.(type) {
		case mongo.CommandError:
			code, name, ls = x.Code, x.Name, x.Labels
		case driver.Error:
			code, name, ls = x.Code, x.Name, x.Labels
		default:
			continue
		}
		labels = append(labels, ls...)
		if l.Code == 0 && code != 0 {
			l.Code, l.CodeName = int(code), name
		}
	}
	var le mongo.LabeledError
	if errors.As(err, &le) {
		for _, k := range knownLabels {
			if le.HasErrorLabel(k) {
				labels = append(labels, k)
			}
		}
	}
	slices.Sort(labels)
	l.Labels = append(l.Labels, slices.Compact(labels)...)
	var sse topology.ServerSelectionError
	l.Selection = errors.As(err, &sse)
	l.Network = mongo.IsNetworkError(err)
	// The driver's server selection timeout is a context deadline, which IsTimeout counts; the
	// protocol's selection class is the more specific answer for it.
	l.Timeout = mongo.IsTimeout(err) && !l.Selection
	return l
}

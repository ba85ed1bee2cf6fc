package harness

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/overloadsim/overloadsim/lab/experiment"
	"github.com/overloadsim/overloadsim/lab/record"
)

// The test binary doubles as a fake runner: with LAB_FAKE_RUNNER set it acts as that mode
// says instead of running the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("LAB_FAKE_RUNNER"); mode != "" {
		os.Exit(fakeRunner(mode))
	}
	os.Exit(m.Run())
}

// fake is a Runner starting the test binary in a fake mode.
type fake struct{ mode string }

func (f fake) Name() string    { return "fake" }
func (f fake) Release() string { return "fake-" + f.mode }
func (f fake) Program(context.Context) (Program, error) {
	// The mode travels in the environment, which the child inherits.
	return Program{Argv: []string{"/usr/bin/env", "LAB_FAKE_RUNNER=" + f.mode, os.Args[0]}}, nil
}

func fakeRunner(mode string) int {
	var j Job
	if err := json.NewDecoder(os.Stdin).Decode(&j); err != nil {
		fmt.Fprintln(os.Stderr, "fake runner:", err)
		return 1
	}
	out := json.NewEncoder(os.Stdout)
	switch mode {
	case "wire":
		if err := wireRunner(j, out); err != nil {
			fmt.Fprintln(os.Stderr, "fake runner:", err)
			return 1
		}
	case "garbage":
		fmt.Println(`{"op": 0, "ok": true}`)
		fmt.Println("hello, world")
	case "unknown-field":
		fmt.Println(`{"op": 0, "ok": true, "speed": 3}`)
	case "out-of-range":
		fmt.Printf(`{"op": %d, "ok": true}`+"\n", j.Count)
	case "dup":
		fmt.Println(`{"op": 0, "ok": true}`)
		fmt.Println(`{"op": 0, "ok": true}`)
	case "missing":
		fmt.Println(`{"op": 1, "ok": true}`)
	case "exit1":
		fmt.Fprintln(os.Stderr, "fake runner: no client today")
		return 1
	case "hang":
		// A child in the runner's process group, which must die with it.
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			return 1
		}
		fmt.Fprintf(os.Stderr, "child %d\n", child.Process.Pid)
		time.Sleep(5 * time.Minute)
	}
	return 0
}

// wireRunner speaks just enough wire protocol to run the job's finds: a monitoring connection
// and one application connection to the first host (its handshake tried up to 3 times); each
// operation retries an error reply up to twice and gives up on a closed connection.
func wireRunner(j Job, out *json.Encoder) error {
	host := strings.Split(strings.TrimPrefix(strings.SplitN(j.URI, "/?", 2)[0], "mongodb://"), ",")[0]
	host = strings.TrimSuffix(host, "/")
	mon, err := net.Dial("tcp", host)
	if err != nil {
		return err
	}
	defer mon.Close()
	if _, err := roundTrip(mon, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}}); err != nil {
		return err
	}
	var c net.Conn
	for i := range j.Count {
		line := map[string]any{"op": i, "ok": false, "labels": []string{}}
		for range 3 {
			for try := 0; c == nil; try++ { // a failed handshake is retried, not counted
				if c, err = net.Dial("tcp", host); err != nil {
					return err
				}
				if _, err := roundTrip(c, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}}); err != nil {
					c.Close()
					c = nil
					if try == 2 {
						return err
					}
				}
			}
			doc, err := roundTrip(c, bson.D{{Key: "find", Value: j.Collection}, {Key: "comment", Value: "op-" + strconv.Itoa(i)}, {Key: "$db", Value: j.Database}})
			if err != nil {
				c.Close()
				c = nil
				line["network"] = true
				break
			}
			if doc.Lookup("ok").Double() == 1 {
				line = map[string]any{"op": i, "ok": true}
				break
			}
			line["code"] = int(doc.Lookup("code").Int32())
			var labels []string
			if arr, ok := doc.Lookup("errorLabels").ArrayOK(); ok {
				vals, _ := arr.Values()
				for _, v := range vals {
					labels = append(labels, v.StringValue())
				}
			}
			line["labels"] = labels
		}
		if err := out.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

func roundTrip(c net.Conn, cmd bson.D) (bson.Raw, error) {
	body, err := bson.Marshal(cmd)
	if err != nil {
		return nil, err
	}
	b := binary.LittleEndian.AppendUint32(nil, uint32(16+4+1+len(body)))
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 2013)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = append(append(b, 0), body...)
	if _, err := c.Write(b); err != nil {
		return nil, err
	}
	r := bufio.NewReader(c)
	var h [16]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	p := make([]byte, binary.LittleEndian.Uint32(h[:])-16)
	if _, err := io.ReadFull(r, p); err != nil {
		return nil, err
	}
	return bson.Raw(p[5:]), nil
}

func exp(count int, script ...experiment.Entry) *experiment.Experiment {
	return &experiment.Experiment{Name: "t", Doc: "test", Rules: []string{"attempts"},
		Topology: experiment.Topology{Kind: "standalone", Nodes: 1}, Operation: "find",
		Count: count, Concurrency: 1, Script: script}
}

var overload = &experiment.Error{Code: 462, CodeName: "IngressRequestRateLimitExceeded", Labels: experiment.Overloaded}

// TestRunMerges: attempts are grouped per operation in arrival order with times after the
// operation's first attempt, handshakes after the first handshake, outcomes classified.
func TestRunMerges(t *testing.T) {
	e := exp(3, experiment.Entry{Command: "find", Answers: []experiment.Answer{
		{Error: overload}, {Error: &experiment.Error{Code: 10107}, DelayMS: 30}, {OK: true}}})
	e.Handshake = []experiment.Answer{{Close: true}}
	res, err := Execute(context.Background(), e, fake{"wire"})
	if err != nil {
		t.Fatal(err)
	}
	rec := res.Record
	if rec.Experiment != "t" || rec.Runner != "fake" || rec.Release != "fake-wire" || len(rec.Ops) != 3 {
		t.Fatalf("record %+v", rec)
	}
	for i, op := range rec.Ops {
		var got []string
		for _, a := range op.Attempts {
			got = append(got, a.Server+" "+a.Answer)
		}
		if want := []string{"n0 error 462", "n0 error 10107", "n0 ok"}; op.Index != i || !slices.Equal(got, want) {
			t.Errorf("op %d: index %d, attempts %v, want %v", i, op.Index, got, want)
		}
		if op.Attempts[0].AtMS != 0 || op.Attempts[2].AtMS-op.Attempts[1].AtMS < 30 {
			t.Errorf("op %d: times %+v: want 0 first and the delayed reply's 30 ms before the third", i, op.Attempts)
		}
		if o := op.Outcome; !o.OK || o.Class != "ok" || o.Code != 0 || o.Labels != nil {
			t.Errorf("op %d: outcome %+v", i, op.Outcome)
		}
	}
	if len(rec.Handshakes) != 2 || rec.Handshakes[0].Answer != "close" || rec.Handshakes[0].AtMS != 0 ||
		rec.Handshakes[1].Answer != "ok" || rec.Handshakes[1].AtMS <= 0 {
		t.Errorf("handshakes %+v, want close at 0 then ok", rec.Handshakes)
	}
	if len(res.Lines) != 3 || !strings.HasPrefix(res.URI, "mongodb://127.0.0.1:") || len(res.Log) != 2+9 {
		t.Errorf("result: %d lines, URI %s, %d log entries", len(res.Lines), res.URI, len(res.Log))
	}
}

// TestRunFailures: a runner that breaks the protocol, fails or hangs is named with the reason.
func TestRunFailures(t *testing.T) {
	defer func(f func(*experiment.Experiment) time.Duration) { limitFor = f }(limitFor)
	limitFor = func(*experiment.Experiment) time.Duration { return 2 * time.Second }
	cases := []struct {
		mode string
		want []string
	}{
		{"garbage", []string{"fake-garbage on t: output line 2: not an outcome", `"hello, world"`}},
		{"unknown-field", []string{"output line 1", `unknown field "speed"`}},
		{"out-of-range", []string{"output line 1: op 2: must be 0 to 1"}},
		{"dup", []string{"output line 2: operation 0 reported twice"}},
		{"missing", []string{"without reporting 1 of 2 operations (first: op 0)"}},
		{"exit1", []string{"the runner failed: exit status 1", "no client today"}},
		{"hang", []string{"did not finish within 2s", "process group was killed"}},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t0 := time.Now()
			_, err := Execute(context.Background(), exp(2), fake{c.mode})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if d := time.Since(t0); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			if c.mode == "hang" {
				checkChildDead(t, err.Error())
			}
		})
	}
}

// checkChildDead finds the fake runner's child in its stderr and checks it is gone (or a zombie
// waiting for its new parent to reap it).
func checkChildDead(t *testing.T, msg string) {
	t.Helper()
	_, after, ok := strings.Cut(msg, "child ")
	if !ok {
		t.Fatalf("no child pid in %q", msg)
	}
	pid, err := strconv.Atoi(strings.Fields(after)[0])
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("the runner's child %d outlived it", pid)
}

// TestRunCancelled: cancelling the caller's context stops the runner and says so.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := Execute(ctx, exp(1), fake{"hang"})
	if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "time limit") {
		t.Errorf("err %v, want the caller's deadline", err)
	}
}

// TestClassify: the protocol's order of classes.
func TestClassify(t *testing.T) {
	cases := []struct {
		l    Line
		want record.Outcome
	}{
		{Line{OK: true, Code: 5}, record.Outcome{OK: true, Class: "ok"}},
		{Line{Timeout: true, Selection: true, Network: true}, record.Outcome{Class: "timeout"}},
		{Line{Selection: true, Network: true}, record.Outcome{Class: "selection"}},
		{Line{Network: true, Labels: []string{"SystemOverloadedError", "NetworkError", "RetryableError"}},
			record.Outcome{Class: "network", Labels: []string{"NetworkError", "RetryableError", "SystemOverloadedError"}}},
		{Line{Code: 462, Labels: []string{"SystemOverloadedError", "RetryableError", "RetryableError"}},
			record.Outcome{Class: "overload", Code: 462, Labels: []string{"RetryableError", "SystemOverloadedError"}}},
		{Line{Code: 10107}, record.Outcome{Class: "server", Code: 10107}},
		{Line{Labels: []string{}}, record.Outcome{Class: "other"}},
	}
	for i, c := range cases {
		got := Classify(c.l)
		if got.OK != c.want.OK || got.Class != c.want.Class || got.Code != c.want.Code || !slices.Equal(got.Labels, c.want.Labels) {
			t.Errorf("case %d: %+v, want %+v", i, got, c.want)
		}
	}
}

// TestTimeLimit: more waves, timeoutMS and delays each lengthen the limit, which is capped.
func TestTimeLimit(t *testing.T) {
	base := exp(10)
	waves := exp(20)
	csot := exp(10)
	csot.URI = map[string]string{"timeoutMS": "1500"}
	delayed := exp(10, experiment.Entry{Command: "find", Answers: []experiment.Answer{{OK: true, DelayMS: 1000}}})
	huge := exp(5000)
	b := TimeLimit(base)
	if TimeLimit(waves) <= b || TimeLimit(csot) != b+10*1500*time.Millisecond || TimeLimit(delayed) != b+10*8*time.Second {
		t.Errorf("limits: base %v, waves %v, csot %v, delayed %v", b, TimeLimit(waves), TimeLimit(csot), TimeLimit(delayed))
	}
	if TimeLimit(huge) != 30*time.Minute {
		t.Errorf("huge: %v, want the cap", TimeLimit(huge))
	}
}

// TestRelease: release names pick the runner and its module file, and unknown ones are refused
// with what there is.
func TestRelease(t *testing.T) {
	lab := t.TempDir()
	godir := filepath.Join(lab, "drivers", "go")
	if err := os.MkdirAll(godir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"go.mod":        "module x\n\nrequire go.mongodb.org/mongo-driver/v2 v2.10.0\n",
		"go.v2.7.0.mod": "module x\n\nrequire go.mongodb.org/mongo-driver/v2 v2.7.0\n",
	} {
		if err := os.WriteFile(filepath.Join(godir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ name, modfile, err string }{
		{"go-2.10.0", "go.mod", ""},
		{"go-2.7.0", "go.v2.7.0.mod", ""},
		{"go-2.8.0", "", "no module file go.v2.8.0.mod"},
		{"node-7.9.0", "", "run.mjs"},
		{"java-5.0.0", "", "must be go-<x.y.z> or node-<x.y.z>"},
		{"go-2.10", "", "must be go-<x.y.z>"},
	}
	for _, c := range cases {
		r, err := Release(lab, c.name)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if g := r.(*goRunner); g.modfile != c.modfile || r.Release() != c.name || r.Name() != "go" {
			t.Errorf("%s: modfile %s, release %s", c.name, g.modfile, r.Release())
		}
	}
	if err := os.MkdirAll(filepath.Join(lab, "drivers", "node"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lab, "drivers", "node", "run.mjs"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Release(lab, "node-7.9.0")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := r.Program(context.Background())
	if !slices.Equal(p.Argv, []string{"node", filepath.Join("drivers", "node", "run.mjs"), "7.9.0"}) || p.Dir != lab {
		t.Errorf("node program %+v", p)
	}
}

// TestFindLab: the lab is found from inside it and from the repository's root.
func TestFindLab(t *testing.T) {
	want, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{".", "..", "../.."} {
		got, err := FindLab(from)
		if err != nil || got != want {
			t.Errorf("from %s: %s, %v; want %s", from, got, err, want)
		}
	}
	if _, err := FindLab(t.TempDir()); err == nil {
		t.Error("found a lab in an empty folder")
	}
}

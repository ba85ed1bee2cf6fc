package serverstatus

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/field"
)

// calibrationData is the folder of the calibration test data (calibrate/testdata, README.md
// there), which gen.go there writes.
const calibrationData = "../../calibrate/testdata"

// readOK reads path and fails the test on any problem.
func readOK(t *testing.T, path string) *File {
	t.Helper()
	f, err := ReadFile(path)
	if err != nil {
		t.Fatalf("ReadFile(%s) = %v", path, err)
	}
	return f
}

// writeFile writes text to a file named name in a fresh folder and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// problems returns the messages of err's parts, each of which must be a *field.Error, with the
// folder of the files read cut from their fields.
func problems(t *testing.T, err error, dir string) []string {
	t.Helper()
	var out []string
	for _, p := range field.Parts(err) {
		var fe *field.Error
		if !errors.As(p, &fe) {
			t.Errorf("problem %q is a %T, not a *field.Error", p, p)
			continue
		}
		out = append(out, strings.TrimPrefix(fe.Error(), dir+string(filepath.Separator)))
	}
	return out
}

// delta is the increase of a counter between two snapshots.
func delta(a, b int64) int64 { return b - a }

// TestReadCalibrationData reads each deployment of the calibration test data and checks the
// shape each server version gives its documents and the load README.md says they show: rates
// per command are exact (counts over the interval), so they are checked exactly.
func TestReadCalibrationData(t *testing.T) {
	t.Run("standalone 7.0: canonical, admission.execution, no ingress sections", func(t *testing.T) {
		dir := filepath.Join(calibrationData, "standalone-7.0")
		f := readOK(t, filepath.Join(dir, "serverstatus.json"))
		if len(f.Status) != 3 || len(f.Params) != 0 || len(f.Log) != 0 {
			t.Fatalf("read %d status, %d params, %d log entries; want 3, 0, 0", len(f.Status), len(f.Params), len(f.Log))
		}
		for i, d := range f.Status {
			if d.Host != "db7:27017" || d.Version != "7.0.14" || d.Process != "mongod" {
				t.Errorf("doc %d: host, version, process = %q, %q, %q", i, d.Host, d.Version, d.Process)
			}
			if d.Admission == nil || d.Admission.Execution == nil || d.Admission.Execution.Read.NormalPriority == nil {
				t.Errorf("doc %d: admission.execution.read.normalPriority missing", i)
			}
			if d.Queues != nil || d.Network.IngressRequestRateLimiter != nil || d.Connections.EstablishmentRateLimit != nil || d.Repl != nil {
				t.Errorf("doc %d: has sections 7.0 does not report: queues %v, network %v, repl %v", i, d.Queues, d.Network, d.Repl)
			}
			if d.Execution() != d.Admission.Execution {
				t.Errorf("doc %d: Execution() is not admission.execution", i)
			}
			if d.OpLatencies.Reads.Histogram == nil {
				t.Errorf("doc %d: opLatencies.reads has no histogram", i)
			}
			if got := d.Execution().Read.TotalTickets; got != 16 {
				t.Errorf("doc %d: read totalTickets = %d, want 16", i, got)
			}
		}
		a, b := f.Status[0], f.Status[1]
		if got := b.LocalTime.Sub(a.LocalTime); got != 10*time.Second {
			t.Errorf("snapshots %v apart, want 10s", got)
		}
		for _, c := range []struct {
			name      string
			got, want int64
		}{
			{"opcounters.query", delta(a.Opcounters.Query, b.Opcounters.Query), 5000},
			{"opcounters.getmore", delta(a.Opcounters.Getmore, b.Opcounters.Getmore), 500},
			{"opcounters.insert", delta(a.Opcounters.Insert, b.Opcounters.Insert), 1200},
			{"opcounters.update", delta(a.Opcounters.Update, b.Opcounters.Update), 800},
			{"opcounters.delete", delta(a.Opcounters.Delete, b.Opcounters.Delete), 100},
			{"opcounters.command", delta(a.Opcounters.Command, b.Opcounters.Command), 100},
			{"metrics.commands.ping.total", delta(a.Metrics.Commands["ping"].Total, b.Metrics.Commands["ping"].Total), 100},
			{"opLatencies.reads.ops", delta(a.OpLatencies.Reads.Ops, b.OpLatencies.Reads.Ops), 5500},
			{"opLatencies.writes.ops", delta(a.OpLatencies.Writes.Ops, b.OpLatencies.Writes.Ops), 2100},
			{"read pool finishedProcessing", delta(a.Execution().Read.NormalPriority.FinishedProcessing, b.Execution().Read.NormalPriority.FinishedProcessing), 5600},
			{"write pool startedProcessing", delta(a.Execution().Write.NormalPriority.StartedProcessing, b.Execution().Write.NormalPriority.StartedProcessing), 2100},
		} {
			if c.got != c.want {
				t.Errorf("%s rose by %d in 10 s, want %d", c.name, c.got, c.want)
			}
		}
		p := readOK(t, filepath.Join(dir, "getparameter.json"))
		if len(p.Params) != 1 {
			t.Fatalf("getparameter.json: %d params, want 1", len(p.Params))
		}
		pp := p.Params[0]
		if *pp.StorageEngineConcurrentReadTransactions != 16 || *pp.StorageEngineConcurrencyAdjustmentAlgorithm != "fixedConcurrentTransactions" ||
			pp.IngressRequestRateLimiterEnabled != nil || pp.ExecutionControlConcurrentReadTransactions != nil {
			t.Errorf("getparameter.json = %+v, want 7.0's storageEngine tickets (16, fixed) and no ingress parameters", pp)
		}
	})

	t.Run("replica set 8.0: relaxed, queues.execution, a log", func(t *testing.T) {
		dir := filepath.Join(calibrationData, "replset-8.0")
		for _, c := range []struct {
			member                string
			primary               bool
			query, command, write int64 // per 15 s
		}{
			{"rs0a", true, 12000, 300, 6000},
			{"rs0b", false, 2250, 75, 0},
			{"rs0c", false, 2250, 75, 0},
		} {
			f := readOK(t, filepath.Join(dir, c.member+".json"))
			if len(f.Status) != 3 {
				t.Fatalf("%s: %d snapshots, want 3", c.member, len(f.Status))
			}
			for i, d := range f.Status {
				if d.Version != "8.0.4" || d.Repl == nil || d.Repl.SetName != "rs0" || d.Repl.IsWritablePrimary != c.primary ||
					d.Repl.Secondary == c.primary || d.Repl.Primary != "rs0a:27017" || len(d.Repl.Hosts) != 3 {
					t.Errorf("%s doc %d: version %q, repl %+v", c.member, i, d.Version, d.Repl)
				}
				if d.Queues == nil || d.Queues.Execution == nil || d.Admission != nil || d.WiredTiger.ConcurrentTransactions != nil {
					t.Errorf("%s doc %d: want queues.execution only", c.member, i)
				}
				if d.Network == nil || d.Network.IngressRequestRateLimiter != nil || d.Queues.IngressSessionEstablishment != nil {
					t.Errorf("%s doc %d: 8.0.4 has no ingress limiters", c.member, i)
				}
			}
			for i := 1; i < 3; i++ {
				a, b := f.Status[i-1], f.Status[i]
				if got := b.LocalTime.Sub(a.LocalTime); got != 15*time.Second {
					t.Errorf("%s: snapshots %d and %d %v apart, want 15s", c.member, i-1, i, got)
				}
				if got := delta(a.Opcounters.Query, b.Opcounters.Query); got != c.query {
					t.Errorf("%s: opcounters.query rose by %d, want %d", c.member, got, c.query)
				}
				if got := delta(a.Opcounters.Command, b.Opcounters.Command); got != c.command {
					t.Errorf("%s: opcounters.command rose by %d, want %d", c.member, got, c.command)
				}
				if got := delta(a.OpLatencies.Writes.Ops, b.OpLatencies.Writes.Ops); got != c.write {
					t.Errorf("%s: opLatencies.writes.ops rose by %d, want %d", c.member, got, c.write)
				}
			}
			p := readOK(t, filepath.Join(dir, c.member+"-getparameter.json"))
			if len(p.Params) != 1 || *p.Params[0].ExecutionControlConcurrentReadTransactions != 12 || p.Params[0].IngressRequestRateLimiterEnabled != nil {
				t.Errorf("%s-getparameter.json = %+v, want executionControl tickets 12 and no ingress limiter", c.member, p.Params)
			}
		}

		l := readOK(t, filepath.Join(dir, "rs0a.log"))
		if len(l.Log) != 210 || l.Skipped != 13 {
			t.Fatalf("rs0a.log: %d entries kept, %d skipped; want 210, 13", len(l.Log), l.Skipped)
		}
		commands, apps := map[string]int{}, map[string]int{}
		for i, e := range l.Log {
			switch e.ID {
			case LogSlowQuery:
				commands[e.Command]++
				if e.DurationMillis == nil || e.WorkingMillis == nil || e.CPUNanos == nil || e.TotalTimeQueuedMicros == nil {
					t.Errorf("entry %d (%s): durationMillis, workingMillis, cpuNanos or queues missing", i, e.Command)
				} else if *e.WorkingMillis > *e.DurationMillis {
					t.Errorf("entry %d: workingMillis %d > durationMillis %d", i, *e.WorkingMillis, *e.DurationMillis)
				}
			case LogClientMetadata:
				apps[e.AppName]++
				if !strings.HasPrefix(e.Remote, "10.0.") {
					t.Errorf("entry %d: remote %q", i, e.Remote)
				}
			}
			if i > 0 && e.Time.Before(l.Log[i-1].Time) {
				t.Errorf("entry %d at %v is before the one above it", i, e.Time)
			}
		}
		if want := map[string]int{"find": 127, "insert": 44, "update": 29}; !reflect.DeepEqual(commands, want) {
			t.Errorf("slow queries by command = %v, want %v", commands, want)
		}
		if want := map[string]int{"orders-api": 8, "reporting": 2}; !reflect.DeepEqual(apps, want) {
			t.Errorf("client metadata by app = %v, want %v", apps, want)
		}
	})

	t.Run("sharded 8.2: the shard primaries' request limiters reject", func(t *testing.T) {
		dir := filepath.Join(calibrationData, "sharded-8.2")
		for _, node := range []string{"mongos1", "mongos2", "sh0a", "sh0b", "sh0c", "sh1a", "sh1b", "sh1c"} {
			f := readOK(t, filepath.Join(dir, node+".json"))
			if len(f.Params) != 1 || len(f.Status) != 2 {
				t.Fatalf("%s: %d params and %d snapshots, want 1 and 2", node, len(f.Params), len(f.Status))
			}
			p, a, b := f.Params[0], f.Status[0], f.Status[1]
			mongos, primary := strings.HasPrefix(node, "mongos"), strings.HasSuffix(node, "a")
			if got := b.LocalTime.Sub(a.LocalTime); got != 10*time.Second {
				t.Errorf("%s: snapshots %v apart, want 10s", node, got)
			}
			if b.Network.IngressRequestRateLimiter == nil || b.Queues.IngressSessionEstablishment == nil || b.Connections.EstablishmentRateLimit == nil ||
				b.Connections.QueuedForEstablishment == nil {
				t.Fatalf("%s: 8.2's ingress sections missing", node)
			}
			lim := func(d Doc) *RateLimiter { return d.Network.IngressRequestRateLimiter }
			switch {
			case mongos:
				if b.Process != "mongos" || b.Execution() != nil || b.Repl != nil {
					t.Errorf("%s: process %q, execution %v, repl %v; a mongos has no tickets and no repl", node, b.Process, b.Execution(), b.Repl)
				}
				if got := delta(a.Metrics.Commands["find"].Failed, b.Metrics.Commands["find"].Failed); got != 2500 {
					t.Errorf("%s: find failed rose by %d, want 2500", node, got)
				}
				if got := delta(a.Opcounters.Query, b.Opcounters.Query); got != 29500 {
					t.Errorf("%s: opcounters.query rose by %d, want 29500", node, got)
				}
			case primary:
				if *p.IngressRequestRateLimiterEnabled != true || *p.IngressRequestAdmissionRatePerSec != 4000 ||
					*p.IngressRequestAdmissionBurstCapacitySecs != 1 || *p.IngressRequestAdmissionMaxQueueDepth != 0 {
					t.Errorf("%s: limiter parameters %+v, want on at 4000/s, burst 1 s, no queue", node, p)
				}
				for _, c := range []struct {
					name      string
					got, want int64
				}{
					{"attemptedAdmissions", delta(lim(a).AttemptedAdmissions, lim(b).AttemptedAdmissions), 44000},
					{"successfulAdmissions", delta(lim(a).SuccessfulAdmissions, lim(b).SuccessfulAdmissions), 40000},
					{"rejectedAdmissions", delta(lim(a).RejectedAdmissions, lim(b).RejectedAdmissions), 4000},
					{"exemptedAdmissions", delta(lim(a).ExemptedAdmissions, lim(b).ExemptedAdmissions), 20},
					{"opcounters.query", delta(a.Opcounters.Query, b.Opcounters.Query), 25000},
					{"opcounters.insert", delta(a.Opcounters.Insert, b.Opcounters.Insert), 10000},
					{"opcounters.update", delta(a.Opcounters.Update, b.Opcounters.Update), 5000},
					{"opcounters.command", delta(a.Opcounters.Command, b.Opcounters.Command), 20},
				} {
					if c.got != c.want {
						t.Errorf("%s: %s rose by %d in 10 s, want %d", node, c.name, c.got, c.want)
					}
				}
				if tok := lim(b).TotalAvailableTokens; tok < 0 || tok > 30 {
					t.Errorf("%s: totalAvailableTokens = %d, want a drained bucket (0–30)", node, tok)
				}
				if !*p.IngressConnectionEstablishmentRateLimiterEnabled || b.Queues.IngressSessionEstablishment.AttemptedAdmissions == 0 {
					t.Errorf("%s: the connection-establishment limiter should be on and counting", node)
				}
			default:
				if *p.IngressRequestRateLimiterEnabled || *p.IngressRequestAdmissionRatePerSec != 2147483647 || *p.IngressRequestAdmissionBurstCapacitySecs != 1.7976931348623157e308 {
					t.Errorf("%s: limiter parameters %+v, want MongoDB's defaults", node, p)
				}
			}
			if !primary || mongos {
				if got := lim(b).TotalAvailableTokens; got != 1<<63-1 {
					t.Errorf("%s: an unlimited limiter's tokens read %d, want math.MaxInt64", node, got)
				}
			}
		}
	})
}

// TestCanonicalAndRelaxedAgree reads one serverStatus and one getParameter output written in
// canonical and in relaxed Extended JSON (mongosh's EJSON.stringify with relaxed false and
// true) and checks they read to equal values.
func TestCanonicalAndRelaxedAgree(t *testing.T) {
	for _, c := range []struct {
		gloss              string
		canonical, relaxed string
	}{
		{"a serverStatus",
			`{"host":"db:27017","version":"8.0.4","process":"mongod","uptime":{"$numberDouble":"3600.0"},"uptimeMillis":{"$numberLong":"3600250"},` +
				`"localTime":{"$date":{"$numberLong":"1772445600250"}},"connections":{"current":{"$numberInt":"12"},"available":{"$numberInt":"838848"},` +
				`"totalCreated":{"$numberInt":"40"},"active":{"$numberInt":"3"}},"opcounters":{"insert":{"$numberLong":"9000000000"},"query":{"$numberLong":"5"},` +
				`"update":{"$numberLong":"0"},"delete":{"$numberLong":"0"},"getmore":{"$numberLong":"0"},"command":{"$numberLong":"7"}},` +
				`"opLatencies":{"reads":{"latency":{"$numberLong":"700"},"ops":{"$numberLong":"5"},"histogram":[{"micros":{"$numberLong":"128"},"count":{"$numberLong":"5"}}]}},` +
				`"queues":{"execution":{"read":{"out":{"$numberInt":"1"},"available":{"$numberInt":"-1"},"totalTickets":{"$numberInt":"0"},` +
				`"normalPriority":{"startedProcessing":{"$numberLong":"5"},"totalTimeQueuedMicros":{"$numberLong":"12"}}}}},` +
				`"ok":{"$numberDouble":"1.0"}}`,
			`{"host":"db:27017","version":"8.0.4","process":"mongod","uptime":3600,"uptimeMillis":3600250,` +
				`"localTime":{"$date":"2026-03-02T10:00:00.250Z"},"connections":{"current":12,"available":838848,"totalCreated":40,"active":3},` +
				`"opcounters":{"insert":9000000000,"query":5,"update":0,"delete":0,"getmore":0,"command":7},` +
				`"opLatencies":{"reads":{"latency":700,"ops":5,"histogram":[{"micros":128,"count":5}]}},` +
				`"queues":{"execution":{"read":{"out":1,"available":-1,"totalTickets":0,"normalPriority":{"startedProcessing":5,"totalTimeQueuedMicros":12}}}},"ok":1}`},
		{"a getParameter output",
			`{"ingressRequestAdmissionBurstCapacitySecs":{"$numberDouble":"1.7976931348623157E+308"},"ingressRequestAdmissionRatePerSec":{"$numberInt":"2147483647"},` +
				`"ingressRequestAdmissionMaxQueueDepth":{"$numberLong":"0"},"ingressRequestRateLimiterEnabled":false,"externalClientBaseBackoffMS":{"$numberInt":"0"},` +
				`"ingressConnectionEstablishmentBurstCapacitySecs":{"$numberDouble":"2.5"},"ok":{"$numberDouble":"1.0"}}`,
			`{"ingressRequestAdmissionBurstCapacitySecs":1.7976931348623157e+308,"ingressRequestAdmissionRatePerSec":2147483647,` +
				`"ingressRequestAdmissionMaxQueueDepth":0,"ingressRequestRateLimiterEnabled":false,"externalClientBaseBackoffMS":0,` +
				`"ingressConnectionEstablishmentBurstCapacitySecs":2.5,"ok":1}`},
	} {
		can := readOK(t, writeFile(t, "canonical.json", c.canonical))
		rel := readOK(t, writeFile(t, "relaxed.json", c.relaxed))
		can.Path, rel.Path = "", ""
		if !reflect.DeepEqual(can, rel) {
			t.Errorf("%s: canonical reads %+v, relaxed %+v", c.gloss, can, rel)
		}
		if len(can.Status)+len(can.Params) != 1 {
			t.Errorf("%s: read %d status and %d params, want one document", c.gloss, len(can.Status), len(can.Params))
		}
	}
}

// TestReadOlderVersions checks that the ticket pools of each version land in the same place:
// 6.x's counters at the top of wiredTiger.concurrentTransactions.read and .write move into
// NormalPriority, and Execution finds 8.0's queues.execution, 7.0's admission.execution and
// 6.x's wiredTiger.concurrentTransactions.
func TestReadOlderVersions(t *testing.T) {
	f := readOK(t, filepath.Join(calibrationData, "hostile", "version-6.0.json"))
	d := f.Status[0]
	if d.Version != "6.0.19" || d.Queues != nil || d.Admission != nil {
		t.Fatalf("version %q, queues %v, admission %v; want 6.0.19 with neither", d.Version, d.Queues, d.Admission)
	}
	e := d.Execution()
	if e == nil || e != d.WiredTiger.ConcurrentTransactions || e.Read.NormalPriority == nil || e.Write.NormalPriority == nil {
		t.Fatalf("Execution() = %+v, want wiredTiger.concurrentTransactions with its counters in normalPriority", e)
	}
	if e.Read.TotalTickets != 8 || e.Read.NormalPriority.StartedProcessing != 720000 || e.Write.NormalPriority.StartedProcessing != 180000 {
		t.Errorf("read pool %+v %+v, write %+v; want 8 tickets, 720000 and 180000 started", e.Read, e.Read.NormalPriority, e.Write.NormalPriority)
	}
}

// TestReadProblems is the table of what ReadFile refuses in a document, with the exact
// message of each problem: the file and line, the path in the document, the value and the
// rule.
func TestReadProblems(t *testing.T) {
	const head = `{"host":"db:27017","process":"mongod","uptime":1,"localTime":{"$date":"2026-01-01T00:00:00Z"},`
	for _, c := range []struct {
		gloss string
		text  string
		want  []string
	}{
		// Counters.
		{"a negative counter", head + `"opcounters":{"query":-1}}`,
			[]string{"f.json:1: opcounters.query: -1: a count must be ≥ 0"}},
		{"a counter that is a string", head + `"opcounters":{"insert":"12"}}`,
			[]string{`f.json:1: opcounters.insert: "12": must be a number`}},
		{"a counter with a fraction", head + `"opcounters":{"update":1.5}}`,
			[]string{"f.json:1: opcounters.update: 1.5: must be a whole number"}},
		{"a $numberLong that is no integer", head + `"opcounters":{"delete":{"$numberLong":"1e3"}}}`,
			[]string{`f.json:1: opcounters.delete: {$numberLong: "1e3"}: $numberLong must hold a 64-bit integer`}},
		{"a NaN counter", head + `"opcounters":{"delete":{"$numberDouble":"NaN"}}}`,
			[]string{`f.json:1: opcounters.delete: {$numberDouble: "NaN"}: must be a finite number`}},
		{"every bad counter of a document, in order", head + `"opcounters":{"query":-1,"insert":"x"},"connections":{"current":-2}}`,
			[]string{"f.json:1: opcounters.query: -1: a count must be ≥ 0", `f.json:1: opcounters.insert: "x": must be a number`,
				"f.json:1: connections.current: -2: a count must be ≥ 0"}},
		{"a section that is not a document", head + `"opcounters":5}`,
			[]string{"f.json:1: opcounters: 5: must be a document"}},
		{"a histogram range MongoDB does not have", head + `"opLatencies":{"reads":{"ops":1,"histogram":[{"micros":3,"count":1}]}}}`,
			[]string{"f.json:1: opLatencies.reads.histogram[0].micros: 3: must be a lower bound of MongoDB's latency histogram (0, 2, 4, 8, …, 2048, 3072, 4096, 6144, …)"}},
		{"histogram ranges out of order", head + `"opLatencies":{"reads":{"ops":2,"histogram":[{"micros":4,"count":1},{"micros":2,"count":1}]}}}`,
			[]string{"f.json:1: opLatencies.reads.histogram[1].micros: 2: must be greater than the range before it (4)"}},

		// What a serverStatus must have.
		{"no host", `{"process":"mongod","uptime":1,"localTime":{"$date":"2026-01-01T00:00:00Z"},"opcounters":{}}`,
			[]string{"f.json:1: host: missing: a serverStatus document names its host"}},
		{"no localTime and no uptimeMillis", `{"host":"db:27017","opcounters":{}}`,
			[]string{"f.json:1: localTime: missing: a serverStatus document has localTime (or uptimeMillis) to place it in time"}},
		{"a localTime that is not a date", `{"host":"db:27017","localTime":"2026-01-01","opcounters":{}}`,
			[]string{`f.json:1: localTime: "2026-01-01": must be a date: {"$date": "2026-01-01T00:00:00.000Z"} or {"$date": {"$numberLong": "1767225600000"}}`}},
		{"a localTime without a zone", `{"host":"db:27017","localTime":{"$date":"2026-01-01T00:00:00"},"opcounters":{}}`,
			[]string{`f.json:1: localTime: "2026-01-01T00:00:00": must be an ISO-8601 date and time (2026-01-01T00:00:00.000Z, or with an offset: +01:00, -0500)`}},
		{"a localTime past the year 9999", `{"host":"db:27017","localTime":{"$date":{"$numberLong":"253402300800000"}},"opcounters":{}}`,
			[]string{`f.json:1: localTime: {$numberLong: "253402300800000"}: must be a date from the year 1 to 9999`}},

		// What a document must be.
		{"another kind of document", `{"a":1,"b":2}`,
			[]string{"f.json:1: {a, b}: not a serverStatus, getParameter or mongod log document"}},
		{"a number alone", `42`,
			[]string{"f.json:1: 42: not a serverStatus, getParameter or mongod log document"}},
		{"the reply of a command that failed", `{"ok":0,"errmsg":"not authorized on admin to execute command { serverStatus: 1 }","code":13}`,
			[]string{"f.json:1: ok: 0: the command failed: not authorized on admin to execute command { serverStatus: 1 }"}},
		{"an element of a top-level array", `[` + head + `"opcounters":{}}, {"x":1}]`,
			[]string{"f.json:1: [1]: {x}: not a serverStatus, getParameter or mongod log document"}},

		// JSON.
		{"a document cut off inside an object", head + `"opcounters":{"query":12`,
			[]string{"f.json:1: opcounters: truncated: the document ends inside an object"}},
		{"a document cut off inside an array", head + `"repl":{"hosts":["a:1",`,
			[]string{"f.json:1: repl.hosts: truncated: the document ends inside an array"}},
		{"a document cut off inside a string", head + `"version":"8.0`,
			[]string{"f.json:1: version: truncated: the document ends inside a string"}},
		{"a document cut off, and the next one read", head + `"opcounters":{"query":12` + "\n" + head + `"opcounters":{"query":-4}}`,
			[]string{"f.json:1: opcounters: truncated: the document ends inside an object", "f.json:2: opcounters.query: -4: a count must be ≥ 0"}},
		{"lines counted through a pretty-printed document", "{\n  \"host\": \"db:27017\",\n  \"uptimeMillis\": 5,\n  \"opcounters\": {\n    \"query\": true\n  }\n}\n",
			[]string{"f.json:5: opcounters.query: true: must be a number"}},
		{"mongosh's shell notation", `{"host":"db:27017","uptimeMillis":Long('3600000')}`,
			[]string{"f.json:1: uptimeMillis: Long('3600000')}: is mongosh's shell notation, not Extended JSON: print the document with EJSON.stringify(…)"}},
		{"a bare key", "{\n  host: 'db:27017'\n}",
			[]string{"f.json:2: host: 'db:27017': a key must be a quoted string: this is mongosh's shell notation, not Extended JSON; print the document with EJSON.stringify(…)"}},
		{"a missing comma", `{"host":"db:27017" "uptimeMillis":5}`,
			[]string{`f.json:1: host: "uptimeMillis":5}: a value must be followed by ',' or '}'`}},
		{"a raw control character in a string", "{\"host\":\"db\t27017\"}",
			[]string{`f.json:1: host: "\t": a string must not hold a control character (JSON writes it as an escape: \n, \t, \u0000)`}},
		{"garbage after a document", head + `"opcounters":{}} x`,
			[]string{"f.json:1: x: must be a JSON value (Extended JSON, as EJSON.stringify prints it)"}},
		{"nesting past the limit", strings.Repeat("[", 300) + strings.Repeat("]", 300),
			[]string{"f.json:1: more than 256 levels: a document nests at most 256 levels deep"}},

		// getParameter.
		{"a parameter of the wrong type", `{"ingressRequestRateLimiterEnabled":"yes","ingressRequestAdmissionRatePerSec":-5,"ok":1}`,
			[]string{`f.json:1: ingressRequestRateLimiterEnabled: "yes": must be true or false`, "f.json:1: ingressRequestAdmissionRatePerSec: -5: must be ≥ 0"}},
		{"exemptions that are not names", `{"ingressRequestRateLimiterApplicationExemptions":{"appNames":["a",7]}}`,
			[]string{"f.json:1: ingressRequestRateLimiterApplicationExemptions.appNames[1]: 7: must be a string"}},
		{"a negative burst", `{"ingressRequestAdmissionBurstCapacitySecs":-1}`,
			[]string{"f.json:1: ingressRequestAdmissionBurstCapacitySecs: -1: must be ≥ 0"}},

		// Log lines.
		{"a log line whose id is a string", `{"t":{"$date":"2026-03-02T10:00:00.000+00:00"},"s":"I","c":"COMMAND","id":"51803","msg":"Slow query"}`,
			[]string{`f.json:1: id: "51803": must be a number`}},
		{"a log line whose t is not a date", `{"t":"yesterday","s":"I","c":"COMMAND","id":51803,"msg":"Slow query"}`,
			[]string{`f.json:1: t: "yesterday": must be a date: {"$date": "2026-01-01T00:00:00.000Z"} or {"$date": {"$numberLong": "1767225600000"}}`}},
		{"a slow query with a negative duration", `{"t":{"$date":"2026-03-02T10:00:00.000Z"},"s":"I","c":"COMMAND","id":51803,"msg":"Slow query","attr":{"command":{"find":"c"},"durationMillis":-3}}`,
			[]string{"f.json:1: attr.durationMillis: -3: a count must be ≥ 0"}},
		{"client metadata whose name is a number", `{"t":{"$date":"2026-03-02T10:00:00.000Z"},"s":"I","c":"NETWORK","id":51800,"msg":"client metadata","attr":{"remote":"10.0.0.1:1","doc":{"application":{"name":5}}}}`,
			[]string{"f.json:1: attr.doc.application.name: 5: must be a string"}},
	} {
		path := writeFile(t, "f.json", c.text)
		f, err := ReadFile(path)
		got := problems(t, err, filepath.Dir(path))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: ReadFile = %q, want %q", c.gloss, got, c.want)
		}
		if err != nil && f != nil {
			t.Errorf("%s: ReadFile returned a File with its problems", c.gloss)
		}
	}
}

// TestReadHostileCalibrationData reads the hostile files of the calibration test data:
// a problem the reader finds is named exactly; what only several documents show (a restart,
// two snapshots at one time) reads without a problem, for the caller to find.
func TestReadHostileCalibrationData(t *testing.T) {
	dir := filepath.Join(calibrationData, "hostile")
	for _, c := range []struct {
		file string
		want []string // nil: it reads
	}{
		{"truncated.json", []string{"truncated.json:1: opcounters: truncated: the document ends inside an object"}},
		{"wrong-type.log", []string{`wrong-type.log:3: attr.durationMillis: "142ms": must be a number`}},
		{"shell-notation.txt", []string{"shell-notation.txt:2: host: 'db:27017',: a key must be a quoted string: this is mongosh's shell notation, not Extended JSON; print the document with EJSON.stringify(…)"}},
		{"counters-reset.json", nil},
		{"same-localtime.json", nil},
		{"version-6.0.json", nil},
	} {
		f, err := ReadFile(filepath.Join(dir, c.file))
		if got := problems(t, err, dir); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ReadFile(%s) = %q, want %q", c.file, got, c.want)
		}
		switch c.file {
		case "counters-reset.json":
			if f == nil || len(f.Status) != 2 || f.Status[1].Opcounters.Query >= f.Status[0].Opcounters.Query || !f.Status[1].LocalTime.After(f.Status[0].LocalTime) {
				t.Errorf("%s: want two snapshots, the later one with lower counters", c.file)
			}
		case "same-localtime.json":
			if f == nil || len(f.Status) != 2 || !f.Status[1].LocalTime.Equal(f.Status[0].LocalTime) || f.Status[0].Host != f.Status[1].Host {
				t.Errorf("%s: want two snapshots of one host at one time", c.file)
			}
		}
	}
}

// TestReadLogEntries checks what a log line gives: the command of a slow query (the first key
// of attr.command; attr.type for a statement the WRITE component logs; commandName), its times,
// and a client's metadata, with the timestamp formats the server writes (iso8601-utc,
// iso8601-local with either offset form, milliseconds).
func TestReadLogEntries(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	at := time.Date(2026, 3, 2, 10, 0, 0, 123_000_000, time.UTC)
	for _, c := range []struct {
		gloss string
		line  string
		want  LogEntry
	}{
		{"a slow find of 8.0 with its queue time",
			`{"t":{"$date":"2026-03-02T10:00:00.123+00:00"},"s":"I",  "c":"COMMAND",  "id":51803,   "ctx":"conn3","msg":"Slow query","attr":{"type":"command","ns":"db.coll","command":{"find":"coll","filter":{"b":-1},"$db":"db"},"cpuNanos":20987385,"queues":{"ingress":{"admissions":7,"totalTimeQueuedMicros":0},"execution":{"admissions":328,"totalTimeQueuedMicros":2109}},"workingMillis":89,"durationMillis":101}}`,
			LogEntry{Time: at, ID: 51803, Msg: "Slow query", Component: "COMMAND", Command: "find", DurationMillis: i64(101), WorkingMillis: i64(89), CPUNanos: i64(20987385), TotalTimeQueuedMicros: i64(2109)}},
		{"a slow insert of 7.0: no workingMillis, no queues",
			`{"t":{"$date":"2026-03-02T05:00:00.123-0500"},"s":"I","c":"COMMAND","id":51803,"ctx":"conn14","msg":"Slow query","attr":{"type":"command","ns":"db.coll","command":{"insert":"coll","ordered":true,"$db":"db"},"ninserted":1,"cpuNanos":{"$numberLong":"29640339"},"durationMillis":20334}}`,
			LogEntry{Time: at, ID: 51803, Msg: "Slow query", Component: "COMMAND", Command: "insert", DurationMillis: i64(20334), CPUNanos: i64(29640339)}},
		{"a statement logged by the WRITE component names its type",
			`{"t":{"$date":"2026-03-02T11:00:00.123+01:00"},"s":"I","c":"WRITE","id":51803,"ctx":"conn9","msg":"Slow query","attr":{"type":"remove","ns":"db.coll","command":{"q":{"a":1},"limit":0},"durationMillis":150}}`,
			LogEntry{Time: at, ID: 51803, Msg: "Slow query", Component: "WRITE", Command: "delete", DurationMillis: i64(150)}},
		{"commandName when there is no command",
			`{"t":{"$date":{"$numberLong":"1772445600123"}},"s":"I","c":"COMMAND","id":51803,"ctx":"conn9","msg":"Slow query","attr":{"commandName":"getMore","durationMillis":0}}`,
			LogEntry{Time: at, ID: 51803, Msg: "Slow query", Component: "COMMAND", Command: "getMore", DurationMillis: i64(0)}},
		{"a client's metadata",
			`{"t":{"$date":"2026-03-02T10:00:00.123Z"},"s":"I","c":"NETWORK","id":51800,"ctx":"conn281","msg":"client metadata","attr":{"remote":"192.168.14.15:37666","client":"conn281","doc":{"application":{"name":"MongoDB Shell"},"driver":{"name":"MongoDB Internal Client","version":"4.4.0"}}}}`,
			LogEntry{Time: at, ID: 51800, Msg: "client metadata", Component: "NETWORK", Remote: "192.168.14.15:37666", AppName: "MongoDB Shell"}},
		{"a client without an application name",
			`{"t":{"$date":"2026-03-02T10:00:00.123Z"},"s":"I","c":"NETWORK","id":51800,"ctx":"conn2","msg":"client metadata","attr":{"remote":"10.0.0.9:5000","doc":{"driver":{"name":"nodejs","version":"6.9.0"}}}}`,
			LogEntry{Time: at, ID: 51800, Msg: "client metadata", Component: "NETWORK", Remote: "10.0.0.9:5000"}},
	} {
		f, err := ReadFile(writeFile(t, "mongod.log", c.line+"\n"))
		if err != nil {
			t.Errorf("%s: ReadFile = %v", c.gloss, err)
			continue
		}
		if len(f.Log) != 1 || !reflect.DeepEqual(f.Log[0], c.want) {
			t.Errorf("%s: ReadFile gave %+v, want %+v", c.gloss, f.Log, c.want)
		}
	}

	// Lines of other ids are counted, not kept.
	f := readOK(t, writeFile(t, "mongod.log", strings.Join([]string{
		`{"t":{"$date":"2026-03-02T10:00:00.000Z"},"s":"I","c":"NETWORK","id":22943,"ctx":"listener","msg":"Connection accepted","attr":{"remote":"10.0.0.1:1"}}`,
		`{"t":{"$date":"2026-03-02T10:00:00.000Z"},"s":"I","c":"CONTROL","id":23285,"ctx":"main","msg":"Automatically disabling TLS 1.0"}`,
	}, "\n")))
	if len(f.Log) != 0 || f.Skipped != 2 {
		t.Errorf("two lines of other ids: %d kept, %d skipped; want 0 and 2", len(f.Log), f.Skipped)
	}
}

// TestReadStopsAtMaxProblems checks that a file of many bad documents reports the first
// maxProblems and says there are more, rather than a message as long as the file.
func TestReadStopsAtMaxProblems(t *testing.T) {
	text := strings.Repeat(`{"x":1}`+"\n", 3*maxProblems)
	_, err := ReadFile(writeFile(t, "f.json", text))
	got := problems(t, err, "")
	if len(got) != maxProblems+1 {
		t.Fatalf("ReadFile gave %d problems, want %d", len(got), maxProblems+1)
	}
	if last := got[maxProblems]; !strings.HasSuffix(last, "more problems: only the first 100 problems are listed") {
		t.Errorf("last problem = %q", last)
	}
}

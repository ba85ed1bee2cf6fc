package serverstatus

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/field"
)

func ptr[T any](v T) *T { return &v }

// fullDoc is a Doc with every field set, as an 8.2 primary's snapshot would be.
func fullDoc() Doc {
	pool := func(k int64) *TicketPool {
		return &TicketPool{AddedToQueue: 10 * k, RemovedFromQueue: 10 * k, QueueLength: 0, StartedProcessing: 100 * k, Processing: 1,
			FinishedProcessing: 100*k - 1, TotalTimeProcessingMicros: 150000 * k, Canceled: 0, NewAdmissions: 100 * k, TotalTimeQueuedMicros: ptr(2000 * k)}
	}
	return Doc{
		Host: "sh0a:27018", Version: "8.2.1", Process: "mongod", Uptime: 1800, UptimeMillis: 1800050,
		LocalTime: time.Date(2026, 3, 2, 10, 0, 0, 50_000_000, time.UTC),
		Repl: &Repl{SetName: "sh0", Hosts: []string{"sh0a:27018", "sh0b:27018", "sh0c:27018"}, Primary: "sh0a:27018", Me: "sh0a:27018",
			IsWritablePrimary: true},
		Opcounters: &Opcounters{Insert: 1, Query: 2, Update: 3, Delete: 4, Getmore: 5, Command: 6},
		OpLatencies: &OpLatencies{
			Reads:        &Latency{Latency: 1000, Ops: 3, Histogram: []Bucket{{Micros: 0, Count: 1}, {Micros: 256, Count: 2}}},
			Writes:       &Latency{Latency: 9000, Ops: 4, Histogram: []Bucket{{Micros: 2048, Count: 4}}},
			Commands:     &Latency{Latency: 30, Ops: 1},
			Transactions: &Latency{},
		},
		Connections: &Connections{Current: 140, Available: ptr[int64](838720), TotalCreated: 760, Active: 32, QueuedForEstablishment: ptr[int64](0),
			EstablishmentRateLimit: &EstablishmentRateLimit{Rejected: 0, Exempted: 60, InterruptedDueToClientDisconnect: 1}},
		Network: &Network{IngressRequestRateLimiter: &RateLimiter{AttemptedAdmissions: 44000, SuccessfulAdmissions: 40000, RejectedAdmissions: 4000,
			ExemptedAdmissions: 20, AddedToQueue: ptr[int64](0), RemovedFromQueue: ptr[int64](0), InterruptedInQueue: ptr[int64](0),
			AverageTimeQueuedMicros: ptr(0.0), TotalAvailableTokens: 12}},
		Queues: &Queues{
			Execution: &Execution{Read: &Tickets{Out: 2, Available: 14, TotalTickets: 16, NormalPriority: pool(3)},
				Write: &Tickets{Out: 1, Available: 15, TotalTickets: 16, NormalPriority: pool(1)}},
			IngressSessionEstablishment: &RateLimiter{AttemptedAdmissions: 300, SuccessfulAdmissions: 300, AverageTimeQueuedMicros: ptr(850.5),
				TotalAvailableTokens: math.MaxInt64},
		},
		Admission:  &Queues{Execution: &Execution{Read: &Tickets{Out: -0, Available: -3, TotalTickets: 5}}},
		WiredTiger: &WiredTiger{ConcurrentTransactions: &Execution{Write: &Tickets{TotalTickets: 128}}},
		Metrics:    &Metrics{Commands: map[string]CommandCount{"update": {Failed: 50, Total: 5550}, "find": {Failed: 250, Total: 27500}, "<b>\"q\"": {Total: 1}}},
	}
}

// fullParams is a Params with every parameter set.
func fullParams() Params {
	return Params{
		IngressRequestRateLimiterEnabled:                 ptr(true),
		IngressRequestAdmissionRatePerSec:                ptr[int64](4000),
		IngressRequestAdmissionBurstCapacitySecs:         ptr(math.MaxFloat64),
		IngressRequestAdmissionMaxQueueDepth:             ptr[int64](0),
		IngressRequestRateLimiterApplicationExemptions:   &AppNames{AppNames: []string{"mms-automation", "MongoDB Automation Agent"}},
		IngressConnectionEstablishmentRateLimiterEnabled: ptr(false),
		IngressConnectionEstablishmentRatePerSec:         ptr[int64](2147483647),
		IngressConnectionEstablishmentBurstCapacitySecs:  ptr(0.25),
		IngressConnectionEstablishmentMaxQueueDepth:      ptr[int64](100),
		ExternalClientBaseBackoffMS:                      ptr[int64](200),
		ExecutionControlConcurrentReadTransactions:       ptr[int64](16),
		ExecutionControlConcurrentWriteTransactions:      ptr[int64](16),
		ExecutionControlConcurrencyAdjustmentAlgo:        ptr("fixedConcurrentTransactions"),
		StorageEngineConcurrentReadTransactions:          ptr[int64](8),
		StorageEngineConcurrentWriteTransactions:         ptr[int64](8),
		StorageEngineConcurrencyAdjustmentAlgorithm:      ptr("throughputProbing"),
		WiredTigerConcurrentReadTransactions:             ptr[int64](128),
		WiredTigerConcurrentWriteTransactions:            ptr[int64](128),
	}
}

// TestWriteBytes pins what Write writes: the field order of the structs, plain integers, dates
// to the millisecond, floats as JavaScript prints them, the values JSON has no number for,
// sorted command names, nil sections left out, and "ok": 1 last.
func TestWriteBytes(t *testing.T) {
	for _, c := range []struct {
		gloss string
		v     any
		want  string
	}{
		{"a small serverStatus",
			Doc{Host: "db:27017", Version: "8.2.0", Process: "mongod", Uptime: 1.5, UptimeMillis: 1500, LocalTime: time.Date(2026, 1, 1, 0, 0, 1, 987_654_321, time.UTC),
				Opcounters: &Opcounters{Query: 7}, Metrics: &Metrics{Commands: map[string]CommandCount{"ping": {Total: 2}, "find": {Failed: 1, Total: 7}}}},
			`{"host":"db:27017","version":"8.2.0","process":"mongod","uptime":1.5,"uptimeMillis":1500,"localTime":{"$date":"2026-01-01T00:00:01.987Z"},` +
				`"opcounters":{"insert":0,"query":7,"update":0,"delete":0,"getmore":0,"command":0},"metrics":{"commands":{"find":{"failed":1,"total":7},"ping":{"failed":0,"total":2}}},"ok":1}` + "\n"},
		{"floats JSON cannot hold, and a date before 1970",
			Doc{Host: "h", Uptime: math.Inf(1), LocalTime: time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC),
				Network: &Network{IngressRequestRateLimiter: &RateLimiter{AverageTimeQueuedMicros: ptr(math.Copysign(0, -1)), TotalAvailableTokens: math.MaxInt64}}},
			`{"host":"h","version":"","process":"","uptime":{"$numberDouble":"Infinity"},"uptimeMillis":0,"localTime":{"$date":{"$numberLong":"-1000"}},` +
				`"network":{"ingressRequestRateLimiter":{"attemptedAdmissions":0,"successfulAdmissions":0,"rejectedAdmissions":0,"exemptedAdmissions":0,` +
				`"averageTimeQueuedMicros":{"$numberDouble":"-0.0"},"totalAvailableTokens":9223372036854775807}},"ok":1}` + "\n"},
		{"the default limiter parameters",
			Params{IngressRequestRateLimiterEnabled: ptr(false), IngressRequestAdmissionRatePerSec: ptr[int64](2147483647),
				IngressRequestAdmissionBurstCapacitySecs: ptr(math.MaxFloat64), IngressRequestAdmissionMaxQueueDepth: ptr[int64](0),
				IngressConnectionEstablishmentBurstCapacitySecs: ptr(1e-7), ExternalClientBaseBackoffMS: ptr[int64](0)},
			`{"ingressRequestRateLimiterEnabled":false,"ingressRequestAdmissionRatePerSec":2147483647,"ingressRequestAdmissionBurstCapacitySecs":1.7976931348623157e+308,` +
				`"ingressRequestAdmissionMaxQueueDepth":0,"ingressConnectionEstablishmentBurstCapacitySecs":1e-7,"externalClientBaseBackoffMS":0,"ok":1}` + "\n"},
	} {
		var b bytes.Buffer
		if err := Write(&b, c.v); err != nil {
			t.Fatalf("%s: Write = %v", c.gloss, err)
		}
		if got := b.String(); got != c.want {
			t.Errorf("%s: Write =\n%s\nwant\n%s", c.gloss, got, c.want)
		}
	}
	for _, v := range []any{LogEntry{}, 5, (*Doc)(nil), nil} {
		if err := Write(new(bytes.Buffer), v); err == nil {
			t.Errorf("Write(%T) = nil, want an error", v)
		}
	}
}

// roundTrip writes v, reads it back and returns what it read, with the file's problems.
func roundTrip(t *testing.T, v any) (*File, error) {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, v); err != nil {
		t.Fatalf("Write(%T) = %v", v, err)
	}
	path := filepath.Join(t.TempDir(), "doc.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return ReadFile(path)
}

// TestWriteReadsBack writes full values and every document of the calibration test data and
// checks that ReadFile reads each back to an equal value.
func TestWriteReadsBack(t *testing.T) {
	check := func(gloss string, v any) {
		t.Helper()
		f, err := roundTrip(t, v)
		if err != nil {
			t.Errorf("%s: read back: %v", gloss, err)
			return
		}
		var got any
		switch {
		case len(f.Status) == 1 && len(f.Params) == 0:
			got = f.Status[0]
		case len(f.Params) == 1 && len(f.Status) == 0:
			got = f.Params[0]
		default:
			t.Errorf("%s: read back %d status and %d params", gloss, len(f.Status), len(f.Params))
			return
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("%s: read back\n%+v\nwant\n%+v", gloss, got, v)
		}
	}
	check("a full Doc", fullDoc())
	check("a full Params", fullParams())
	check("a Doc with only uptimeMillis for its time", Doc{Host: "db:27017", UptimeMillis: 5, Opcounters: &Opcounters{}})

	files, err := filepath.Glob(filepath.Join(calibrationData, "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no calibration test data: %v", err)
	}
	n := 0
	for _, path := range files {
		f, err := ReadFile(path)
		if err != nil {
			continue // the hostile files
		}
		for i, d := range f.Status {
			check(path+" status "+string(rune('0'+i)), d)
			n++
		}
		for _, p := range f.Params {
			check(path+" params", p)
			n++
		}
	}
	if n < 30 {
		t.Errorf("round-tripped %d documents of the calibration test data, want all of them (≥ 30)", n)
	}
}

// FuzzReadFile reads arbitrary bytes as a file: it never panics or hangs, every problem is a
// *field.Error, and what reads writes back to bytes that read to the same value (Write of
// what was read is a fixed point).
func FuzzReadFile(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(calibrationData, "*", "*"))
	for _, s := range seeds {
		if strings.HasSuffix(s, ".go") || strings.HasSuffix(s, ".md") {
			continue
		}
		data, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		if len(data) > 4096 {
			// The first lines of a long file.
			cut := bytes.LastIndexByte(data[:4096], '\n')
			data = data[:cut+1]
		}
		f.Add(data)
	}
	for _, s := range []string{
		`{"host":"a","uptimeMillis":{"$numberLong":"5"},"opcounters":{"query":{"$numberDouble":"1e3"}}}`,
		`[{"ingressRequestAdmissionBurstCapacitySecs":{"$numberDecimal":"1E+400"}}]`,
		`{"t":{"$date":{"$numberLong":"-62135596800000"}},"id":51803,"msg":"","attr":{"type":"update","command":{}}}`,
		"{\"host\":\"\xff\",\"uptimeMillis\":1,\"opcounters\":{}}\n{\n\"a\":[\"\\ud800\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			for _, p := range field.Parts(err) {
				var fe *field.Error
				if !errors.As(p, &fe) {
					t.Fatalf("problem %q is a %T, not a *field.Error", p, p)
				}
			}
			if file != nil {
				t.Fatalf("Read returned a File with its problems")
			}
			return
		}
		var docs []any
		for _, d := range file.Status {
			docs = append(docs, d)
		}
		for _, p := range file.Params {
			docs = append(docs, p)
		}
		for _, d := range docs {
			var once, twice bytes.Buffer
			if err := Write(&once, d); err != nil {
				t.Fatalf("Write(%+v) = %v", d, err)
			}
			again, err := Read(bytes.NewReader(once.Bytes()), "written.json")
			if err != nil {
				t.Fatalf("Write wrote %s, which reads with %v", once.Bytes(), err)
			}
			if len(again.Status)+len(again.Params) != 1 {
				t.Fatalf("Write wrote %s, which reads as %d documents", once.Bytes(), len(again.Status)+len(again.Params))
			}
			var back any
			if len(again.Status) == 1 {
				back = again.Status[0]
			} else {
				back = again.Params[0]
			}
			if err := Write(&twice, back); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(once.Bytes(), twice.Bytes()) {
				t.Fatalf("Write of what it wrote differs:\n%s\n%s", once.Bytes(), twice.Bytes())
			}
		}
	})
}

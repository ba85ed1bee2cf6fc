package serverstatus_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/results/serverstatus"
)

// Two serverStatus snapshots of one mongod, taken ten seconds apart and saved one per line:
// the query rate and the mean latency of reads between them are differences of counters.
func ExampleReadFile() {
	dir, _ := os.MkdirTemp("", "serverstatus")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "db.json")
	os.WriteFile(path, []byte(strings.Join([]string{
		`{"host":"db:27017","version":"8.0.4","process":"mongod","uptime":3600,"uptimeMillis":3600000,"localTime":{"$date":"2026-03-02T10:00:00.000Z"},` +
			`"opcounters":{"insert":{"$numberLong":"360000"},"query":{"$numberLong":"1800000"}},"opLatencies":{"reads":{"latency":2700000000,"ops":1800000}}}`,
		`{"host":"db:27017","version":"8.0.4","process":"mongod","uptime":3610,"uptimeMillis":3610000,"localTime":{"$date":"2026-03-02T10:00:10.000Z"},` +
			`"opcounters":{"insert":{"$numberLong":"361000"},"query":{"$numberLong":"1805000"}},"opLatencies":{"reads":{"latency":2707600000,"ops":1805000}}}`,
	}, "\n")), 0o644)

	f, err := serverstatus.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, b := f.Status[0], f.Status[1]
	secs := b.LocalTime.Sub(a.LocalTime).Seconds()
	fmt.Printf("%s %s: %d snapshots %v apart\n", b.Host, b.Version, len(f.Status), b.LocalTime.Sub(a.LocalTime))
	fmt.Printf("queries %.0f/s, inserts %.0f/s\n", float64(b.Opcounters.Query-a.Opcounters.Query)/secs, float64(b.Opcounters.Insert-a.Opcounters.Insert)/secs)
	reads := float64(b.OpLatencies.Reads.Latency-a.OpLatencies.Reads.Latency) / float64(b.OpLatencies.Reads.Ops-a.OpLatencies.Reads.Ops)
	fmt.Printf("mean read latency %v\n", time.Duration(reads*1000))
	// Output:
	// db:27017 8.0.4: 2 snapshots 10s apart
	// queries 500/s, inserts 100/s
	// mean read latency 1.52ms
}

// A problem names the file, the line, the field in the document, the value and the rule.
func ExampleReadFile_problem() {
	dir, _ := os.MkdirTemp("", "serverstatus")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rs0a.json")
	os.WriteFile(path, []byte("{\n  \"host\": \"rs0a:27017\",\n  \"uptimeMillis\": 5000,\n  \"opcounters\": {\"query\": -3}\n}\n"), 0o644)

	_, err := serverstatus.ReadFile(path)
	fmt.Println(strings.TrimPrefix(err.Error(), dir+string(filepath.Separator)))
	// Output:
	// rs0a.json:4: opcounters.query: -3: a count must be ≥ 0
}

// Write writes a document as one line of relaxed Extended JSON, which ReadFile reads back.
func ExampleWrite() {
	rate, burst := int64(4000), 1.0
	serverstatus.Write(os.Stdout, serverstatus.Params{
		IngressRequestRateLimiterEnabled:         new(true),
		IngressRequestAdmissionRatePerSec:        &rate,
		IngressRequestAdmissionBurstCapacitySecs: &burst,
	})
	// Output:
	// {"ingressRequestRateLimiterEnabled":true,"ingressRequestAdmissionRatePerSec":4000,"ingressRequestAdmissionBurstCapacitySecs":1,"ok":1}
}

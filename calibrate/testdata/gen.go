//go:build ignore

// Command gen writes the calibration test data of this folder (see README.md): serverStatus
// snapshots, getParameter outputs and a structured log of MongoDB 7.0, 8.0 and 8.2 deployments
// under a load it builds op by op, and the hostile files. The same run writes the same bytes.
// Run it from the module root:
//
//	go run ./calibrate/testdata/gen.go
//
// and it prints the load each snapshot shows (the tables of README.md).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/results/serverstatus"
)

// ---- Extended JSON ---------------------------------------------------------------------------

// Values of a document, by BSON type.
type (
	Int    int32   // {"$numberInt"} canonical
	Long   int64   // {"$numberLong"} canonical
	Double float64 // {"$numberDouble"} canonical
	Date   time.Time
	Raw    string // JSON written as is in both modes ($oid, $timestamp, $binary, $uuid)
	D      []kv   // a document, keys in order
	A      []any  // an array
)

type kv struct {
	k string
	v any
}

// ejson writes v as mongosh's EJSON.stringify writes it (relaxed or canonical), indented by
// indent spaces per level when indent > 0.
func ejson(v any, canonical bool, indent int) string {
	var b bytes.Buffer
	enc(&b, v, canonical, indent, 0)
	return b.String()
}

func newline(b *bytes.Buffer, indent, level int) {
	if indent > 0 {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", indent*level))
	}
}

func enc(b *bytes.Buffer, v any, canonical bool, indent, level int) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		var s bytes.Buffer
		e := json.NewEncoder(&s)
		e.SetEscapeHTML(false)
		e.Encode(x)
		b.Write(bytes.TrimRight(s.Bytes(), "\n"))
	case Int:
		if canonical {
			fmt.Fprintf(b, `{"$numberInt":"%d"}`, x)
		} else {
			fmt.Fprintf(b, "%d", x)
		}
	case Long:
		if canonical {
			fmt.Fprintf(b, `{"$numberLong":"%d"}`, x)
		} else {
			fmt.Fprintf(b, "%d", x)
		}
	case Double:
		f := float64(x)
		switch {
		case math.IsInf(f, 1):
			b.WriteString(`{"$numberDouble":"Infinity"}`)
		case math.IsInf(f, -1):
			b.WriteString(`{"$numberDouble":"-Infinity"}`)
		case math.IsNaN(f):
			b.WriteString(`{"$numberDouble":"NaN"}`)
		case canonical && f == math.Trunc(f) && math.Abs(f) < 1e21:
			fmt.Fprintf(b, `{"$numberDouble":"%s.0"}`, jsNumber(f))
		case canonical:
			fmt.Fprintf(b, `{"$numberDouble":"%s"}`, jsNumber(f))
		default:
			b.WriteString(jsNumber(f))
		}
	case Date:
		t := time.Time(x).UTC()
		if canonical {
			fmt.Fprintf(b, `{"$date":{"$numberLong":"%d"}}`, t.UnixMilli())
		} else {
			fmt.Fprintf(b, `{"$date":"%s"}`, t.Format("2006-01-02T15:04:05.000Z"))
		}
	case Raw:
		b.WriteString(string(x))
	case D:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, f := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, indent, level+1)
			enc(b, f.k, canonical, 0, 0)
			b.WriteByte(':')
			if indent > 0 {
				b.WriteByte(' ')
			}
			enc(b, f.v, canonical, indent, level+1)
		}
		newline(b, indent, level)
		b.WriteByte('}')
	case A:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, indent, level+1)
			enc(b, e, canonical, indent, level+1)
		}
		newline(b, indent, level)
		b.WriteByte(']')
	default:
		panic(fmt.Sprintf("gen: no encoding for %T", v))
	}
}

// jsNumber prints f as JavaScript's Number.prototype.toString does.
func jsNumber(f float64) string {
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		return strings.Replace(strings.Replace(s, "e-0", "e-", 1), "e+0", "e+", 1)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// ---- The load ----------------------------------------------------------------------------------

// cmd is one command's load on a node: admitted per second, mean service time on a worker
// (µs), and, on a node whose request limiter rejects, rejected per second.
type cmd struct {
	name     string
	rate     int
	svc      float64
	rejected int
}

// category is the opLatencies kind of a command.
func category(name string) string {
	switch name {
	case "find", "getMore", "aggregate":
		return "reads"
	case "insert", "update", "delete", "findAndModify":
		return "writes"
	case "commitTransaction", "abortTransaction":
		return "transactions"
	}
	return "commands"
}

// pool is the ticket pool a command takes: writes the write pool, everything else the read.
func pool(name string) string {
	switch name {
	case "insert", "update", "delete", "findAndModify", "commitTransaction", "abortTransaction":
		return "write"
	}
	return "read"
}

// waits is a pool's queueing: the share of commands that wait for a ticket and their mean wait.
type waits struct {
	share float64
	mean  float64 // µs
}

type latAcc struct {
	latency, ops int64
	hist         []int64 // per serverstatus.LowerBounds
}

type poolAcc struct {
	added, started, processingMicros, queuedMicros int64
}

// node is one mongod or mongos and everything it has counted since it started.
type node struct {
	host, version, process string
	setName                string
	primary                bool
	hosts                  []string
	started                time.Time
	workers                int
	cmds                   []cmd
	waits                  map[string]waits
	overhead               float64 // µs added to every latency (a mongos: the shard and the network)
	limiterRate            int     // > 0: the request limiter is on at this rate
	connLimiter            bool    // the connection-establishment limiter is on
	exemptPerSec           int     // requests the request limiter exempts per second
	rng                    *rand.Rand

	total, failed  map[string]int64
	svcSum         map[string]float64 // µs of service, by command (for the README)
	lat            map[string]*latAcc
	pools          map[string]*poolAcc
	attempted      int64
	rejected       int64
	exempted       int64
	connsCreated   int64
	connAttempts   int64
	connQueued     int64
	networkReqs    int64
	bytesIn, bytes int64
}

func newNode(host, version, process string, started time.Time, seed uint64) *node {
	n := &node{host: host, version: version, process: process, started: started,
		rng:   rand.New(rand.NewPCG(seed, 0x5eed)),
		total: map[string]int64{}, failed: map[string]int64{}, svcSum: map[string]float64{},
		lat: map[string]*latAcc{}, pools: map[string]*poolAcc{}, waits: map[string]waits{}}
	for _, c := range []string{"reads", "writes", "commands", "transactions"} {
		n.lat[c] = &latAcc{hist: make([]int64, len(serverstatus.LowerBounds))}
	}
	n.pools["read"], n.pools["write"] = &poolAcc{}, &poolAcc{}
	return n
}

// gamma2 draws a gamma variate of shape 2 with the given mean.
func (n *node) gamma2(mean float64) float64 {
	return -mean / 2 * (math.Log(1-n.rng.Float64()) + math.Log(1-n.rng.Float64()))
}

func (n *node) exp(mean float64) float64 { return -mean * math.Log(1-n.rng.Float64()) }

func (l *latAcc) add(micros int64) {
	l.latency += micros
	l.ops++
	i := sort.Search(len(serverstatus.LowerBounds), func(i int) bool { return serverstatus.LowerBounds[i] > micros }) - 1
	l.hist[i]++
}

// run counts seconds of the node's load, op by op.
func (n *node) run(seconds int) {
	for _, c := range n.cmds {
		count := c.rate * seconds
		cat := category(c.name)
		for range count {
			svc := math.Round(n.gamma2(c.svc))
			wait := 0.0
			w := n.waits[pool(c.name)]
			p := n.pools[pool(c.name)]
			if n.process == "mongod" {
				if n.rng.Float64() < w.share {
					wait = math.Round(n.exp(w.mean))
					p.added++
				}
				p.started++
				p.processingMicros += int64(svc)
				p.queuedMicros += int64(wait)
			}
			n.svcSum[c.name] += svc
			n.lat[cat].add(int64(svc + wait + n.overhead))
		}
		n.total[c.name] += int64(count)
		rej := c.rejected * seconds
		if n.process == "mongos" {
			// The shards' rejections come back through the router as failed commands.
			for range rej {
				n.lat[cat].add(int64(math.Round(n.exp(250))))
			}
			n.total[c.name] += int64(rej)
			n.failed[c.name] += int64(rej)
		}
		if n.limiterRate > 0 && n.process == "mongod" && c.name != "hello" {
			// hello comes on the routers' monitoring connections, which the limiter exempts.
			n.attempted += int64(count + rej)
			n.rejected += int64(rej)
		}
		n.networkReqs += int64(count + rej)
		n.bytesIn += int64(count+rej) * 310
		n.bytes += int64(count) * 1900
	}
	n.exempted += int64(n.exemptPerSec * seconds)
	n.connsCreated += int64(seconds / 5)
	if n.connLimiter {
		n.connAttempts += int64(seconds / 5)
		n.connQueued += int64(seconds / 10)
	}
}

// snapshot is one serverStatus of the node at uptime ms after it started.
func (n *node) snapshot(uptimeMS int64, withHistograms bool) D {
	local := n.started.Add(time.Duration(uptimeMS) * time.Millisecond)
	v := n.version
	major := v[:3]
	out := 2 + n.rng.IntN(3)
	doc := D{
		{"host", n.host},
		{"version", v},
		{"process", n.process},
	}
	doc = append(doc,
		kv{"pid", Long(4000 + int64(len(n.host))*17)},
		kv{"uptime", Double(float64(uptimeMS / 1000))},
		kv{"uptimeMillis", Long(uptimeMS)},
		kv{"uptimeEstimate", Long(uptimeMS / 1000)},
		kv{"localTime", Date(local)},
		kv{"asserts", D{{"regular", Int(0)}, {"warning", Int(0)}, {"msg", Int(0)}, {"user", Int(12)}, {"tripwire", Int(0)}, {"rollovers", Int(0)}}},
	)
	conns := D{
		{"current", Int(140 + out)},
		{"available", Int(838860 - 140 - out)},
		{"totalCreated", Int(400 + n.connsCreated)},
		{"rejected", Int(0)},
		{"active", Int(30 + out)},
		{"threaded", Int(140 + out)},
		{"exhaustIsMaster", Int(0)},
		{"exhaustHello", Int(6)},
		{"awaitingTopologyChanges", Int(6)},
		{"loadBalanced", Int(0)},
	}
	if major == "8.2" {
		conns = append(conns,
			kv{"queuedForEstablishment", Int(0)},
			kv{"establishmentRateLimit", D{{"rejected", Long(0)}, {"exempted", Long(n.connAttempts / 6)}, {"interruptedDueToClientDisconnect", Long(0)}}})
	}
	doc = append(doc, kv{"connections", conns})
	doc = append(doc, kv{"extra_info", D{{"note", "fields vary by platform"}, {"user_time_us", Long(uptimeMS * 412)}, {"system_time_us", Long(uptimeMS * 73)},
		{"maximum_resident_set_kb", Long(6_291_456)}, {"input_blocks", Long(1024)}, {"output_blocks", Long(uptimeMS / 7)}, {"page_reclaims", Long(182_004)}, {"page_faults", Long(88)},
		{"voluntary_context_switches", Long(uptimeMS * 9)}, {"involuntary_context_switches", Long(uptimeMS / 3)}}})
	if n.process == "mongod" {
		doc = append(doc, kv{"globalLock", D{{"totalTime", Long(uptimeMS * 1000)},
			{"currentQueue", D{{"total", Int(0)}, {"readers", Int(0)}, {"writers", Int(0)}}},
			{"activeClients", D{{"total", Int(0)}, {"readers", Int(0)}, {"writers", Int(0)}}}}})
	}
	doc = append(doc, kv{"mem", D{{"bits", Int(64)}, {"resident", Int(5981)}, {"virtual", Int(8012)}, {"supported", true}}})

	// network, with the request limiter's counters from 8.2 on.
	network := D{{"bytesIn", Long(n.bytesIn)}, {"bytesOut", Long(n.bytes)}, {"physicalBytesIn", Long(n.bytesIn)}, {"physicalBytesOut", Long(n.bytes)},
		{"numSlowDNSOperations", Long(0)}, {"numSlowSSLOperations", Long(0)}, {"numRequests", Long(n.networkReqs)}}
	if major == "8.2" {
		irrl := D{
			{"attemptedAdmissions", Long(n.attempted)},
			{"successfulAdmissions", Long(n.attempted - n.rejected)},
			{"rejectedAdmissions", Long(n.rejected)},
			{"exemptedAdmissions", Long(n.exempted)},
			{"addedToQueue", Long(0)},
			{"removedFromQueue", Long(0)},
			{"interruptedInQueue", Long(0)},
			{"averageTimeQueuedMicros", Double(0)},
		}
		if n.limiterRate > 0 {
			// A drained bucket: a fraction of a token left.
			irrl = append(irrl, kv{"totalAvailableTokens", Double(math.Round(n.rng.Float64()*3000) / 100)})
		} else {
			// No limit: rate 2147483647 with a burst of DBL_MAX seconds holds an infinite balance.
			irrl = append(irrl, kv{"totalAvailableTokens", Double(math.Inf(1))})
		}
		network = append(network, kv{"ingressRequestRateLimiter", irrl})
	}
	doc = append(doc, kv{"network", network})

	lats := D{}
	for _, c := range []string{"reads", "writes", "commands", "transactions"} {
		l := n.lat[c]
		ld := D{{"latency", Long(l.latency)}, {"ops", Long(l.ops)}}
		if withHistograms {
			var h A
			for i, cnt := range l.hist {
				if cnt > 0 {
					h = append(h, D{{"micros", Long(serverstatus.LowerBounds[i])}, {"count", Long(cnt)}})
				}
			}
			if h == nil {
				h = A{}
			}
			ld = append(ld, kv{"histogram", h})
		}
		lats = append(lats, kv{c, ld})
	}
	doc = append(doc, kv{"opLatencies", lats})

	ops := func(names ...string) int64 {
		var s int64
		for _, nm := range names {
			s += n.total[nm]
		}
		return s
	}
	var others []string
	for nm := range n.total {
		switch nm {
		case "find", "aggregate", "getMore", "insert", "update", "delete":
		default:
			others = append(others, nm)
		}
	}
	doc = append(doc, kv{"opcounters", D{{"insert", Long(ops("insert"))}, {"query", Long(ops("find", "aggregate"))}, {"update", Long(ops("update"))},
		{"delete", Long(ops("delete"))}, {"getmore", Long(ops("getMore"))}, {"command", Long(ops(others...))}}})
	if n.setName != "" {
		repl := n.opcountersRepl(uptimeMS)
		doc = append(doc, kv{"opcountersRepl", repl})
	}

	if n.process == "mongod" {
		pools := D{}
		for _, p := range []string{"write", "read"} {
			pools = append(pools, kv{p, n.tickets(p, out, major)})
		}
		switch major {
		case "6.0":
			doc = append(doc, kv{"wiredTiger", D{{"concurrentTransactions", pools}}})
		case "7.0":
			monitor := D{{"timesDecreased", Long(0)}, {"timesIncreased", Long(0)}, {"totalAmountDecreased", Long(0)}, {"totalAmountIncreased", Long(0)}}
			doc = append(doc, kv{"admission", D{{"execution", append(slices.Clone(pools), kv{"monitor", monitor})}}})
			plain := D{}
			for _, p := range []string{"write", "read"} {
				t := n.workers
				plain = append(plain, kv{p, D{{"out", Int(n.outOf(p, out))}, {"available", Int(t - n.outOf(p, out))}, {"totalTickets", Int(t)}}})
			}
			doc = append(doc, kv{"wiredTiger", D{{"cache", D{{"maximum bytes configured", Long(8_053_063_680)}, {"bytes currently in the cache", Long(5_120_000_000)}}},
				{"concurrentTransactions", append(plain, kv{"monitor", monitor})}}})
		default:
			queues := D{{"execution", append(slices.Clone(pools), kv{"monitor", D{{"timesDecreased", Long(0)}, {"timesIncreased", Long(0)},
				{"totalAmountDecreased", Long(0)}, {"totalAmountIncreased", Long(0)}, {"resizeDurationMicros", Long(0)}}})}}
			queues = append(queues, kv{"ingress", D{{"out", Int(out)}, {"available", Int(1_000_000_000 - out)}, {"totalTickets", Int(1_000_000_000)},
				{"normalPriority", D{{"startedProcessing", Long(n.networkReqs)}, {"processing", Long(out)}, {"finishedProcessing", Long(n.networkReqs - int64(out))},
					{"totalTimeProcessingMicros", Long(n.networkReqs * 3)}, {"canceled", Long(0)}, {"newAdmissions", Long(n.networkReqs)}, {"totalTimeQueuedMicros", Long(0)}}}}})
			if major == "8.2" {
				queues = append(queues, kv{"ingressSessionEstablishment", n.sessionEstablishment()})
			}
			doc = append(doc, kv{"queues", queues})
			doc = append(doc, kv{"wiredTiger", D{{"cache", D{{"maximum bytes configured", Long(8_053_063_680)}, {"bytes currently in the cache", Long(5_120_000_000)}}}}})
		}
	} else if major == "8.2" {
		doc = append(doc, kv{"queues", D{{"ingressSessionEstablishment", n.sessionEstablishment()}}})
	}
	if n.setName != "" {
		doc = append(doc, kv{"repl", n.repl(local)})
	}
	doc = append(doc, kv{"metrics", n.metrics()})
	doc = append(doc, kv{"ok", Double(1)})
	if n.setName != "" || n.process == "mongos" {
		ct := local.Unix()
		doc = append(doc,
			kv{"$clusterTime", D{{"clusterTime", Raw(fmt.Sprintf(`{"$timestamp":{"t":%d,"i":%d}}`, ct, 7))},
				{"signature", D{{"hash", Raw(`{"$binary":{"base64":"AAAAAAAAAAAAAAAAAAAAAAAAAAA=","subType":"00"}}`)}, {"keyId", Long(0)}}}}},
			kv{"operationTime", Raw(fmt.Sprintf(`{"$timestamp":{"t":%d,"i":%d}}`, ct, 7))})
	}
	return doc
}

// outOf splits the tickets out between the pools; an idle pool has none out.
func (n *node) outOf(p string, out int) int {
	o := out - out/2
	if p == "write" {
		o = out / 2
	}
	return min(o, int(n.pools[p].started))
}

func (n *node) tickets(p string, out int, major string) D {
	acc := n.pools[p]
	o := n.outOf(p, out)
	finished := acc.started - int64(o)
	counters := D{
		{"addedToQueue", Long(acc.added)},
		{"removedFromQueue", Long(acc.added)},
		{"queueLength", Long(0)},
		{"startedProcessing", Long(acc.started)},
		{"processing", Long(o)},
		{"finishedProcessing", Long(finished)},
		{"totalTimeProcessingMicros", Long(acc.processingMicros)},
		{"canceled", Long(0)},
		{"newAdmissions", Long(acc.started)},
		{"totalTimeQueuedMicros", Long(acc.queuedMicros)},
	}
	t := D{{"out", Int(o)}, {"available", Int(n.workers - o)}, {"totalTickets", Int(n.workers)}}
	if major == "6.0" {
		return append(t, counters...)
	}
	exempt := D{{"addedToQueue", Long(0)}, {"removedFromQueue", Long(0)}, {"queueLength", Long(0)}, {"startedProcessing", Long(1200)},
		{"processing", Long(0)}, {"finishedProcessing", Long(1200)}, {"totalTimeProcessingMicros", Long(96_000)}, {"canceled", Long(0)},
		{"newAdmissions", Long(1200)}, {"totalTimeQueuedMicros", Long(0)}}
	normal := counters
	if major != "7.0" {
		normal = append(D{{"out", Int(o)}, {"available", Int(n.workers - o)}, {"totalTickets", Int(n.workers)}}, counters...)
	}
	return append(t, kv{"exempt", exempt}, kv{"normalPriority", normal})
}

func (n *node) sessionEstablishment() D {
	if !n.connLimiter {
		return D{{"addedToQueue", Long(0)}, {"removedFromQueue", Long(0)}, {"interruptedInQueue", Long(0)}, {"rejectedAdmissions", Long(0)},
			{"exemptedAdmissions", Long(0)}, {"successfulAdmissions", Long(0)}, {"attemptedAdmissions", Long(0)},
			{"averageTimeQueuedMicros", Long(0)}, {"totalAvailableTokens", Double(math.Inf(1))}}
	}
	ex := n.connAttempts / 6
	return D{{"addedToQueue", Long(n.connQueued)}, {"removedFromQueue", Long(n.connQueued)}, {"interruptedInQueue", Long(0)}, {"rejectedAdmissions", Long(0)},
		{"exemptedAdmissions", Long(ex)}, {"successfulAdmissions", Long(n.connAttempts - ex)}, {"attemptedAdmissions", Long(n.connAttempts - ex)},
		{"averageTimeQueuedMicros", Long(850)}, {"totalAvailableTokens", Double(97.5)}}
}

func (n *node) opcountersRepl(uptimeMS int64) D {
	if n.primary {
		return D{{"insert", Long(0)}, {"query", Long(0)}, {"update", Long(0)}, {"delete", Long(0)}, {"getmore", Long(0)}, {"command", Long(0)}}
	}
	s := uptimeMS / 1000
	return D{{"insert", Long(s * 250)}, {"query", Long(0)}, {"update", Long(s * 150)}, {"delete", Long(0)}, {"getmore", Long(0)}, {"command", Long(s / 10)}}
}

func (n *node) repl(local time.Time) D {
	hosts := A{}
	for _, h := range n.hosts {
		hosts = append(hosts, h)
	}
	ts := Raw(fmt.Sprintf(`{"$timestamp":{"t":%d,"i":%d}}`, local.Unix(), 3))
	return D{
		{"topologyVersion", D{{"processId", Raw(`{"$oid":"65e2f0a1c3b4d5e6f7a8b9c0"}`)}, {"counter", Long(6)}}},
		{"hosts", hosts},
		{"setName", n.setName},
		{"setVersion", Int(1)},
		{"isWritablePrimary", n.primary},
		{"secondary", !n.primary},
		{"primary", n.hosts[0]},
		{"me", n.host},
		{"electionId", Raw(`{"$oid":"7fffffff0000000000000001"}`)},
		{"lastWrite", D{{"opTime", D{{"ts", ts}, {"t", Long(1)}}}, {"lastWriteDate", Date(local.Truncate(time.Second))},
			{"majorityOpTime", D{{"ts", ts}, {"t", Long(1)}}}, {"majorityWriteDate", Date(local.Truncate(time.Second))}}},
		{"rbid", Int(1)},
	}
}

func (n *node) metrics() D {
	names := make([]string, 0, len(n.total)+4)
	for nm := range n.total {
		names = append(names, nm)
	}
	for _, nm := range []string{"buildInfo", "serverStatus", "getParameter", "listDatabases"} {
		if _, ok := n.total[nm]; !ok {
			names = append(names, nm)
		}
	}
	sort.Strings(names)
	cmds := D{{"<UNKNOWN>", Long(0)}}
	for _, nm := range names {
		c := D{{"failed", Long(n.failed[nm])}, {"total", Long(n.total[nm])}}
		switch nm {
		case "serverStatus", "getParameter", "buildInfo", "listDatabases":
			c = D{{"failed", Long(0)}, {"total", Long(3)}}
		case "update":
			c = D{{"arrayFilters", Long(0)}, {"failed", Long(n.failed[nm])}, {"pipeline", Long(0)}, {"total", Long(n.total[nm])}}
		}
		cmds = append(cmds, kv{nm, c})
	}
	return D{
		{"commands", cmds},
		{"cursor", D{{"moreThanOneBatch", Long(n.total["getMore"] / 3)}, {"timedOut", Long(0)}, {"totalOpened", Long(n.total["find"] / 40)},
			{"open", D{{"noTimeout", Long(0)}, {"pinned", Long(0)}, {"total", Long(4)}}}}},
		{"document", D{{"deleted", Long(n.total["delete"])}, {"inserted", Long(n.total["insert"])}, {"returned", Long(n.total["find"] * 7)}, {"updated", Long(n.total["update"])}}},
		{"operation", D{{"scanAndOrder", Long(0)}, {"writeConflicts", Long(n.total["update"] / 5000)}}},
	}
}

// ---- Parameters ---------------------------------------------------------------------------------

func getParameter(version string, tickets int, limiterRate int, connLimiter bool) D {
	major := version[:3]
	p := D{
		{"authenticationMechanisms", A{"MONGODB-X509", "SCRAM-SHA-1", "SCRAM-SHA-256"}},
		{"cursorTimeoutMillis", Long(600000)},
		{"diagnosticDataCollectionEnabled", true},
		{"diagnosticDataCollectionPeriodMillis", Int(1000)},
		{"enableLocalhostAuthBypass", true},
		{"featureCompatibilityVersion", D{{"version", major}}},
		{"internalQueryExecYieldIterations", Int(1000)},
		{"internalQueryExecYieldPeriodMS", Int(10)},
		{"logLevel", Int(0)},
		{"maxIndexBuildMemoryUsageMegabytes", Double(200)},
		{"maxNumActiveUserIndexBuilds", Int(3)},
		{"maxTransactionLockRequestTimeoutMillis", Int(5)},
		{"notablescan", false},
		{"oplogFetcherUsesExhaust", true},
		{"quiet", false},
		{"syncdelay", Double(60)},
		{"tcmallocReleaseRate", Double(1)},
		{"transactionLifetimeLimitSeconds", Int(60)},
		{"ttlMonitorEnabled", true},
		{"ttlMonitorSleepSecs", Int(60)},
	}
	switch major {
	case "6.0":
		p = append(p, kv{"wiredTigerConcurrentReadTransactions", Int(tickets)}, kv{"wiredTigerConcurrentWriteTransactions", Int(tickets)})
	case "7.0":
		p = append(p, kv{"storageEngineConcurrencyAdjustmentAlgorithm", "fixedConcurrentTransactions"},
			kv{"storageEngineConcurrentReadTransactions", Int(tickets)}, kv{"storageEngineConcurrentWriteTransactions", Int(tickets)})
	default:
		p = append(p, kv{"executionControlConcurrencyAdjustmentAlgorithm", "fixedConcurrentTransactions"},
			kv{"executionControlConcurrentReadTransactions", Int(tickets)}, kv{"executionControlConcurrentWriteTransactions", Int(tickets)})
	}
	if major == "8.2" {
		rate, burst, enabled := 2147483647, math.MaxFloat64, false
		if limiterRate > 0 {
			rate, burst, enabled = limiterRate, 1, true
		}
		p = append(p,
			kv{"ingressRequestAdmissionBurstCapacitySecs", Double(burst)},
			kv{"ingressRequestAdmissionMaxQueueDepth", Long(0)},
			kv{"ingressRequestAdmissionRatePerSec", Int(rate)},
			kv{"ingressRequestRateLimiterApplicationExemptions", D{{"appNames", A{"mms-automation", "MongoDB Automation Agent"}}}},
			kv{"ingressRequestRateLimiterEnabled", enabled},
			kv{"externalClientBaseBackoffMS", Int(0)},
		)
		crate, cburst, cdepth, cenabled := 2147483647, math.MaxFloat64, 0, false
		if connLimiter {
			crate, cburst, cdepth, cenabled = 50, 2, 100, true
		}
		p = append(p,
			kv{"ingressConnectionEstablishmentBurstCapacitySecs", Double(cburst)},
			kv{"ingressConnectionEstablishmentMaxQueueDepth", Long(int64(cdepth))},
			kv{"ingressConnectionEstablishmentRateLimiterEnabled", cenabled},
			kv{"ingressConnectionEstablishmentRatePerSec", Int(crate)},
		)
	}
	return append(p, kv{"ok", Double(1)})
}

// ---- The deployments ------------------------------------------------------------------------------

var report strings.Builder

func say(format string, args ...any) { fmt.Fprintf(&report, format, args...) }

type snap struct {
	total          map[string]int64
	svcSum         map[string]float64
	lat            map[string]latAcc
	pools          map[string]poolAcc
	attempted, rej int64
	failed         map[string]int64
}

func (n *node) snap() snap {
	s := snap{total: maps(n.total), svcSum: map[string]float64{}, lat: map[string]latAcc{}, pools: map[string]poolAcc{},
		attempted: n.attempted, rej: n.rejected, failed: maps(n.failed)}
	for k, v := range n.svcSum {
		s.svcSum[k] = v
	}
	for k, v := range n.lat {
		s.lat[k] = latAcc{latency: v.latency, ops: v.ops}
	}
	for k, v := range n.pools {
		s.pools[k] = *v
	}
	return s
}

func maps(m map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// table prints the load between two snapshots.
func table(n *node, a, b snap, seconds int) {
	say("%s (%s %s), %d s:\n", n.host, n.process, n.version, seconds)
	names := make([]string, 0)
	for nm := range b.total {
		names = append(names, nm)
	}
	sort.Strings(names)
	for _, nm := range names {
		d := b.total[nm] - a.total[nm]
		f := b.failed[nm] - a.failed[nm]
		admitted := d - f
		line := fmt.Sprintf("  %-8s %7.1f/s", nm, float64(d)/float64(seconds))
		if f > 0 {
			line += fmt.Sprintf(" (%.1f/s failed)", float64(f)/float64(seconds))
		}
		if n.process == "mongod" && admitted > 0 && b.svcSum[nm]-a.svcSum[nm] > 0 {
			line += fmt.Sprintf("  service mean %.1f µs", (b.svcSum[nm]-a.svcSum[nm])/float64(admitted))
		}
		say("%s\n", line)
	}
	for _, c := range []string{"reads", "writes", "commands"} {
		dl, do := b.lat[c].latency-a.lat[c].latency, b.lat[c].ops-a.lat[c].ops
		if do > 0 {
			say("  opLatencies.%-8s %6d ops, mean %.1f µs\n", c, do, float64(dl)/float64(do))
		}
	}
	if n.process == "mongod" {
		for _, p := range []string{"read", "write"} {
			x, y := a.pools[p], b.pools[p]
			ds := y.started - x.started
			if ds > 0 {
				say("  %s pool: %d started, processing mean %.1f µs, queued %d, queued-time mean %.1f µs per op\n", p, ds,
					float64(y.processingMicros-x.processingMicros)/float64(ds), y.added-x.added, float64(y.queuedMicros-x.queuedMicros)/float64(ds))
			}
		}
	}
	if b.attempted > 0 {
		say("  request limiter: %.1f/s attempted, %.1f/s rejected\n", float64(b.attempted-a.attempted)/float64(seconds), float64(b.rej-a.rej)/float64(seconds))
	}
}

func write(path, text string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		panic(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		panic(err)
	}
}

const dir = "calibrate/testdata"

func main() {
	standalone()
	replset()
	sharded()
	hostile()
	fmt.Print(report.String())
}

func standalone() {
	started := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	n := newNode("db7:27017", "7.0.14", "mongod", started, 70)
	n.workers = 16
	n.cmds = []cmd{
		{name: "find", rate: 500, svc: 1500},
		{name: "getMore", rate: 50, svc: 800},
		{name: "insert", rate: 120, svc: 2500},
		{name: "update", rate: 80, svc: 3000},
		{name: "delete", rate: 10, svc: 2000},
		{name: "ping", rate: 10, svc: 40},
	}
	n.waits = map[string]waits{"read": {0.05, 400}, "write": {0.08, 600}}
	uptime := int64(7200_250)
	n.run(int(uptime / 1000))
	var lines []string
	var snaps []snap
	for i := range 3 {
		if i > 0 {
			n.run(10)
			uptime += 10_000
		}
		snaps = append(snaps, n.snap())
		lines = append(lines, ejson(n.snapshot(uptime, true), true, 0))
	}
	write(filepath.Join(dir, "standalone-7.0", "serverstatus.json"), strings.Join(lines, "\n")+"\n")
	write(filepath.Join(dir, "standalone-7.0", "getparameter.json"), ejson(getParameter("7.0.14", 16, 0, false), true, 2)+"\n")
	say("== standalone-7.0\n")
	table(n, snaps[0], snaps[1], 10)
	table(n, snaps[1], snaps[2], 10)
}

func replset() {
	hosts := []string{"rs0a:27017", "rs0b:27017", "rs0c:27017"}
	say("== replset-8.0\n")
	var primary *node
	var window [2]time.Time
	for i, h := range hosts {
		started := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC).Add(time.Duration(i*4500) * time.Millisecond)
		n := newNode(h, "8.0.4", "mongod", started, 80+uint64(i))
		n.setName, n.hosts, n.primary, n.workers = "rs0", hosts, i == 0, 12
		if n.primary {
			n.cmds = []cmd{
				{name: "find", rate: 800, svc: 1200},
				{name: "getMore", rate: 40, svc: 600},
				{name: "insert", rate: 250, svc: 2000},
				{name: "update", rate: 150, svc: 2800},
				{name: "ping", rate: 20, svc: 40},
			}
			n.waits = map[string]waits{"read": {0.10, 500}, "write": {0.12, 700}}
			primary = n
		} else {
			n.cmds = []cmd{
				{name: "find", rate: 150, svc: 1300},
				{name: "ping", rate: 5, svc: 40},
			}
			n.waits = map[string]waits{"read": {0.02, 300}, "write": {0, 0}}
		}
		first := time.Date(2026, 3, 2, 10, 0, 0, 100_000_000+i*250_000_000, time.UTC)
		uptime := first.Sub(started).Milliseconds()
		n.run(int(uptime / 1000))
		var lines []string
		var snaps []snap
		for j := range 3 {
			if j > 0 {
				n.run(15)
				uptime += 15_000
			}
			snaps = append(snaps, n.snap())
			lines = append(lines, ejson(n.snapshot(uptime, true), false, 0))
		}
		if n.primary {
			window = [2]time.Time{first, first.Add(30 * time.Second)}
		}
		name := strings.TrimSuffix(h, ":27017")
		write(filepath.Join(dir, "replset-8.0", name+".json"), strings.Join(lines, "\n")+"\n")
		write(filepath.Join(dir, "replset-8.0", name+"-getparameter.json"), ejson(getParameter("8.0.4", 12, 0, false), false, 0)+"\n")
		table(n, snaps[0], snaps[1], 15)
		table(n, snaps[1], snaps[2], 15)
	}
	slowLog(primary, window)
}

// logLine writes a structured log line as mongod does, with its padding.
func logLine(t time.Time, s, c string, id int, ctx, msg string, attr D) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"t":{"$date":"%s"},"s":"%s",  "c":"%s",%s"id":%d,%s"ctx":"%s","msg":"%s"`,
		t.UTC().Format("2006-01-02T15:04:05.000+00:00"), s, c, strings.Repeat(" ", max(1, 9-len(c))), id,
		strings.Repeat(" ", max(1, 8-len(strconv.Itoa(id)))), ctx, msg)
	if attr != nil {
		b.WriteString(`,"attr":`)
		b.WriteString(ejson(attr, false, 0))
	}
	b.WriteString("}")
	return b.String()
}

func slowLog(p *node, window [2]time.Time) {
	rng := rand.New(rand.NewPCG(51803, 51800))
	type client struct {
		app, remote, conn string
	}
	var clients []client
	for i := range 8 {
		clients = append(clients, client{"orders-api", fmt.Sprintf("10.0.1.%d:%d", 11+i%4, 52100+i), fmt.Sprintf("conn%d", 2101+i)})
	}
	for i := range 2 {
		clients = append(clients, client{"reporting", fmt.Sprintf("10.0.2.21:%d", 40310+i), fmt.Sprintf("conn%d", 2201+i)})
	}
	type line struct {
		t    time.Time
		text string
	}
	var lines []line
	at := window[0].Add(150 * time.Millisecond)
	for i, c := range clients {
		t := at.Add(time.Duration(i*40) * time.Millisecond)
		lines = append(lines, line{t, logLine(t, "I", "NETWORK", 22943, "listener", "Connection accepted",
			D{{"remote", c.remote}, {"isLoadBalanced", false}, {"sourcePort", Int(27017)}, {"uuid", D{{"uuid", Raw(fmt.Sprintf(`{"$uuid":"5f0e0c9a-1b2c-4d3e-8f4a-%012d"}`, i))}}},
				{"connectionId", Int(2101 + i)}, {"connectionCount", Int(141 + i)}})})
		t = t.Add(3 * time.Millisecond)
		lines = append(lines, line{t, logLine(t, "I", "NETWORK", 51800, c.conn, "client metadata",
			D{{"remote", c.remote}, {"client", c.conn}, {"negotiatedCompressors", A{}},
				{"doc", D{{"application", D{{"name", c.app}}}, {"driver", D{{"name", "mongo-go-driver"}, {"version", "2.2.1"}}},
					{"os", D{{"type", "linux"}, {"architecture", "amd64"}}}, {"platform", "go1.24.4"}}}})})
	}
	// Two connections of the reporting app end, a checkpoint is taken.
	for i, c := range clients[8:] {
		t := window[0].Add(time.Duration(21000+i*500) * time.Millisecond)
		lines = append(lines, line{t, logLine(t, "I", "NETWORK", 22944, c.conn, "Connection ended",
			D{{"remote", c.remote}, {"isLoadBalanced", false}, {"uuid", D{{"uuid", Raw(fmt.Sprintf(`{"$uuid":"5f0e0c9a-1b2c-4d3e-8f4a-%012d"}`, 8+i))}}},
				{"connectionId", Int(2201 + i)}, {"connectionCount", Int(148 - i)}})})
	}
	t := window[0].Add(17 * time.Second)
	lines = append(lines, line{t, logLine(t, "I", "WTCHKPT", 22430, "Checkpointer", "WiredTiger message",
		D{{"message", D{{"ts_sec", Long(t.Unix())}, {"ts_usec", Long(0)}, {"thread", "4711:0x7f3a2c1b2640"}, {"session_name", "WT_SESSION.checkpoint"},
			{"category", "WT_VERB_CHECKPOINT_PROGRESS"}, {"category_id", Int(6)}, {"verbose_level", "DEBUG_1"}, {"verbose_level_id", Int(1)},
			{"msg", "saving checkpoint snapshot min: 1234, snapshot max: 1234 snapshot count: 0, oldest timestamp: (0, 0) , meta checkpoint timestamp: (0, 0) base write gen: 1"}}}})})

	// The slow-operation sample: slowms 0 with slowOpSampleRate 0.007 logs a uniform 0.7 %.
	kinds := []struct {
		name  string
		rate  int
		svc   float64
		waits waits
	}{{"find", 800, 1200, waits{0.10, 500}}, {"insert", 250, 2000, waits{0.12, 700}}, {"update", 150, 2800, waits{0.12, 700}}}
	totalRate := 0
	for _, k := range kinds {
		totalRate += k.rate
	}
	type stat struct {
		n                            int
		svc, wait, working, dur, cpu float64
	}
	stats := map[string]*stat{}
	span := window[1].Sub(window[0])
	for i := range 200 {
		r := rng.IntN(totalRate)
		k := kinds[0]
		for _, kk := range kinds {
			if r < kk.rate {
				k = kk
				break
			}
			r -= kk.rate
		}
		svc := math.Round(-k.svc / 2 * (math.Log(1-rng.Float64()) + math.Log(1-rng.Float64())))
		wait := 0.0
		if rng.Float64() < k.waits.share {
			wait = math.Round(-k.waits.mean * math.Log(1-rng.Float64()))
		}
		cpu := math.Round(svc * 1000 * (0.85 + 0.1*rng.Float64()))
		working := int64(svc / 1000)
		dur := int64((svc + wait) / 1000)
		c := clients[rng.IntN(8)]
		if k.name == "find" && rng.IntN(10) == 0 {
			c = clients[8+rng.IntN(2)]
		}
		t := window[0].Add(time.Second + time.Duration(rng.Int64N(int64(span-time.Second))))
		coll := map[string]string{"find": "orders", "insert": "orders", "update": "carts"}[k.name]
		session := Raw(fmt.Sprintf(`{"id":{"$uuid":"a1b2c3d4-0000-4000-8000-%012d"}}`, rng.IntN(64)))
		clusterTime := D{{"clusterTime", Raw(fmt.Sprintf(`{"$timestamp":{"t":%d,"i":%d}}`, t.Unix(), 1+rng.IntN(40)))},
			{"signature", D{{"hash", Raw(`{"$binary":{"base64":"AAAAAAAAAAAAAAAAAAAAAAAAAAA=","subType":"0"}}`)}, {"keyId", Long(0)}}}}
		var command D
		attr := D{{"type", "command"}, {"isFromUserConnection", true}, {"ns", "shop." + coll}, {"collectionType", "normal"}, {"appName", c.app}}
		switch k.name {
		case "find":
			command = D{{"find", coll}, {"filter", D{{"customerId", Long(100000 + rng.Int64N(900000))}, {"status", "open"}}}, {"limit", Int(20)},
				{"lsid", session}, {"$clusterTime", clusterTime}, {"$db", "shop"}}
			attr = append(attr, kv{"command", command}, kv{"planSummary", "IXSCAN { customerId: 1, status: 1 }"}, kv{"keysExamined", Int(7)},
				kv{"docsExamined", Int(7)}, kv{"nBatches", Int(1)}, kv{"cursorExhausted", true}, kv{"numYields", Int(0)}, kv{"nreturned", Int(7)},
				kv{"planCacheShapeHash", "3C1A7D21"}, kv{"planCacheKey", "9E4B0F52"}, kv{"queryFramework", "classic"}, kv{"reslen", Int(4182)})
		case "insert":
			command = D{{"insert", coll}, {"ordered", true}, {"lsid", session}, {"txnNumber", Long(1 + rng.Int64N(5000))},
				{"$clusterTime", clusterTime}, {"$db", "shop"}}
			attr = append(attr, kv{"command", command}, kv{"ninserted", Int(1)}, kv{"keysInserted", Int(3)}, kv{"numYields", Int(0)}, kv{"reslen", Int(230)})
		case "update":
			command = D{{"update", coll}, {"ordered", true}, {"lsid", session}, {"txnNumber", Long(1 + rng.Int64N(5000))},
				{"$clusterTime", clusterTime}, {"$db", "shop"}}
			attr = append(attr, kv{"command", command}, kv{"nMatched", Int(1)}, kv{"nModified", Int(1)}, kv{"keysInserted", Int(1)}, kv{"keysDeleted", Int(1)},
				kv{"numYields", Int(0)}, kv{"reslen", Int(245)})
		}
		attr = append(attr,
			kv{"locks", D{{"ReplicationStateTransition", D{{"acquireCount", D{{"w", Long(1)}}}}}, {"Global", D{{"acquireCount", D{{"r", Long(1)}}}}}}},
			kv{"readConcern", D{{"level", "local"}, {"provenance", "implicitDefault"}}},
			kv{"storage", D{}},
			kv{"cpuNanos", Long(int64(cpu))},
			kv{"remote", c.remote},
			kv{"protocol", "op_msg"},
			kv{"queues", D{{"ingress", D{{"admissions", Int(1)}, {"totalTimeQueuedMicros", Long(0)}}},
				{"execution", D{{"admissions", Int(1)}, {"totalTimeQueuedMicros", Long(int64(wait))}}}}},
			kv{"workingMillis", Long(working)},
			kv{"durationMillis", Long(dur)},
		)
		lines = append(lines, line{t, logLine(t, "I", "COMMAND", 51803, c.conn, "Slow query", attr)})
		st := stats[k.name]
		if st == nil {
			st = &stat{}
			stats[k.name] = st
		}
		st.n++
		st.svc += svc
		st.wait += wait
		st.working += float64(working)
		st.dur += float64(dur)
		st.cpu += cpu
		_ = i
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].t.Before(lines[j].t) })
	var text []string
	for _, l := range lines {
		text = append(text, l.text)
	}
	write(filepath.Join(dir, "replset-8.0", "rs0a.log"), strings.Join(text, "\n")+"\n")
	say("rs0a.log: %d lines, %d kept (slow queries and client metadata), %d skipped\n", len(lines), 200+len(clients), len(lines)-200-len(clients))
	for _, k := range kinds {
		st := stats[k.name]
		say("  %-7s %3d entries: service mean %.1f µs, queued mean %.1f µs, workingMillis mean %.3f, durationMillis mean %.3f, cpuNanos mean %.0f\n",
			k.name, st.n, st.svc/float64(st.n), st.wait/float64(st.n), st.working/float64(st.n), st.dur/float64(st.n), st.cpu/float64(st.n))
	}
}

func sharded() {
	say("== sharded-8.2\n")
	started := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	type spec struct {
		host    string
		mongos  bool
		set     string
		hosts   []string
		primary bool
	}
	var specs []spec
	for _, m := range []string{"mongos1:27017", "mongos2:27017"} {
		specs = append(specs, spec{host: m, mongos: true})
	}
	for s := range 2 {
		set := fmt.Sprintf("sh%d", s)
		hosts := []string{set + "a:27018", set + "b:27018", set + "c:27018"}
		for i, h := range hosts {
			specs = append(specs, spec{host: h, set: set, hosts: hosts, primary: i == 0})
		}
	}
	for i, sp := range specs {
		var n *node
		if sp.mongos {
			n = newNode(sp.host, "8.2.1", "mongos", started, 820+uint64(i))
			// The application's load on each router; the shards' limiters reject 1 in 11 of
			// what goes to the primaries. Each router also routes half of the secondaries'
			// reads (4 × 100/s ÷ 2).
			n.cmds = []cmd{
				{name: "find", rate: 2700, svc: 600, rejected: 250},
				{name: "insert", rate: 1000, svc: 1500, rejected: 100},
				{name: "update", rate: 500, svc: 2000, rejected: 50},
				{name: "ping", rate: 2, svc: 40},
			}
			n.overhead = 400
		} else {
			n = newNode(sp.host, "8.2.1", "mongod", started, 820+uint64(i))
			n.setName, n.hosts, n.primary, n.workers = sp.set, sp.hosts, sp.primary, 16
			if sp.primary {
				// Half of each router's load: 4400/s offered, 4000/s admitted.
				n.cmds = []cmd{
					{name: "find", rate: 2500, svc: 600, rejected: 250},
					{name: "insert", rate: 1000, svc: 1500, rejected: 100},
					{name: "update", rate: 500, svc: 2000, rejected: 50},
					{name: "hello", rate: 2, svc: 30},
				}
				n.waits = map[string]waits{"read": {0.15, 300}, "write": {0.20, 450}}
				n.limiterRate, n.connLimiter, n.exemptPerSec = 4000, true, 2
			} else {
				n.cmds = []cmd{
					{name: "find", rate: 100, svc: 650},
					{name: "hello", rate: 2, svc: 30},
				}
				n.waits = map[string]waits{"read": {0.01, 200}, "write": {0, 0}}
			}
		}
		first := time.Date(2026, 3, 2, 10, 0, 0, 50_000_000+i*120_000_000, time.UTC)
		uptime := first.Sub(started).Milliseconds()
		n.run(int(uptime / 1000))
		snaps := []snap{n.snap()}
		lines := []string{
			ejson(getParameter("8.2.1", 16, n.limiterRate, n.connLimiter), false, 0),
			ejson(n.snapshot(uptime, true), false, 0),
		}
		n.run(10)
		snaps = append(snaps, n.snap())
		lines = append(lines, ejson(n.snapshot(uptime+10_000, true), false, 0))
		name := strings.Split(sp.host, ":")[0]
		write(filepath.Join(dir, "sharded-8.2", name+".json"), strings.Join(lines, "\n")+"\n")
		table(n, snaps[0], snaps[1], 10)
	}
}

func hostile() {
	d := filepath.Join(dir, "hostile")
	started := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	base := func(host, version string, seed uint64) *node {
		n := newNode(host, version, "mongod", started, seed)
		n.workers = 8
		n.cmds = []cmd{{name: "find", rate: 200, svc: 1000}, {name: "insert", rate: 50, svc: 2000}}
		n.waits = map[string]waits{"read": {0.05, 300}, "write": {0.05, 300}}
		return n
	}

	// A snapshot cut off in the middle, as a full disk or a killed shell leaves it.
	n := base("db:27017", "8.0.4", 90)
	n.run(3600)
	full := ejson(n.snapshot(3_600_000, false), false, 0)
	cut := strings.Index(full, `"opcounters"`) + 40
	write(filepath.Join(d, "truncated.json"), full[:cut])

	// 6.0: no queues, no admission; the ticket counters at the top of the pools.
	n = base("db6:27017", "6.0.19", 91)
	n.run(3600)
	write(filepath.Join(d, "version-6.0.json"), ejson(n.snapshot(3_600_000, false), false, 0)+"\n")

	// A restart between two snapshots: the second counts from zero again.
	n = base("db:27017", "8.0.4", 92)
	n.run(86400)
	a := ejson(n.snapshot(86_400_000, false), false, 0)
	n2 := base("db:27017", "8.0.4", 93)
	n2.started = started.Add(86_400_000*time.Millisecond - 12*time.Second + 10*time.Second)
	n2.run(12)
	b := ejson(n2.snapshot(12_000, false), false, 0)
	write(filepath.Join(d, "counters-reset.json"), a+"\n"+b+"\n")

	// Two snapshots of one host at the same localTime, with different counters.
	n = base("db:27017", "8.0.4", 94)
	n.run(3600)
	a = ejson(n.snapshot(3_600_000, false), false, 0)
	n.run(10)
	b = ejson(n.snapshot(3_600_000, false), false, 0)
	write(filepath.Join(d, "same-localtime.json"), a+"\n"+b+"\n")

	// A log whose third line has a duration that is not a number.
	t := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	slow := func(t time.Time, dur any) string {
		return logLine(t, "I", "COMMAND", 51803, "conn7", "Slow query", D{{"type", "command"}, {"ns", "shop.orders"},
			{"command", D{{"find", "orders"}, {"filter", D{{"status", "open"}}}, {"$db", "shop"}}}, {"workingMillis", Long(130)}, {"durationMillis", dur}})
	}
	write(filepath.Join(d, "wrong-type.log"), strings.Join([]string{
		logLine(t, "I", "NETWORK", 22943, "listener", "Connection accepted", D{{"remote", "10.0.1.11:52100"}, {"connectionId", Int(7)}, {"connectionCount", Int(12)}}),
		slow(t.Add(time.Second), Long(131)),
		slow(t.Add(2*time.Second), "142ms"),
		slow(t.Add(3*time.Second), Long(128)),
	}, "\n")+"\n")

	// What mongosh prints without EJSON.stringify.
	write(filepath.Join(d, "shell-notation.txt"), `{
  host: 'db:27017',
  version: '8.0.4',
  process: 'mongod',
  uptime: 3600,
  uptimeMillis: Long('3600000'),
  localTime: ISODate('2026-03-02T09:00:00.000Z'),
  opcounters: { insert: Long('180000'), query: Long('720000') }
}
`)
}

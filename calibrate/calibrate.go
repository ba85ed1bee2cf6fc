package calibrate

import (
	"errors"
	"fmt"
	"math"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/calibrate/fit"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/results/serverstatus"
	"github.com/overloadsim/overloadsim/scenarios"
)

// Options are a calibration's choices beyond its inputs.
type Options struct {
	Name     string        // the scenario's name; default "calibrated"
	Cores    int           // the hosts' cores; 0 = not known
	Duration time.Duration // the scenario's duration; default 60s
	Warmup   time.Duration // its warm-up; default 10s
}

// minTickets is how many finished tickets a pool needs before its mean processing time is
// used; minSamples how many logged operations a command needs before its shape is fitted.
const (
	minTickets = 30
	minSamples = 50
	// queueShareForShape is the largest share of the latency spent queued for a ticket at which
	// the latency histogram still stands for the service-time shape.
	queueShareForShape = 0.10
	// tailRatio is how many times the pool's processing time the logged operations may average
	// before the log is taken for the slow tail alone (slowms) rather than every operation.
	tailRatio = 3.0
)

// Result is a calibration: the scenario written, what each fitted field came from, and what
// could not be fitted.
type Result struct {
	YAML     []byte
	Scenario *scenarios.Scenario
	// Windows are the nodes' observed windows, by host.
	Windows []*Window
	// Fits are the service-time fits, one per node and pool, with every family tried.
	Fits []PoolFit
	// Notes say, by name, what was left at its default and why, and what to check by hand.
	Notes []string
}

// PoolFit is the service-time fit of one node's ticket pool (read or write).
type PoolFit struct {
	Node, Pool string
	Source     string    // what the shape was fitted to
	Tried      []fit.Fit // every family, best first
	Chosen     fit.Fit   // the best, with the mean measured by processing time
	MeanFrom   string    // what the mean came from
	// ByCommand are the pool's commands whose logged times differ from the pool's by more than
	// a tenth: each fitted to its own operations, its mean scaled as the pool's is.
	ByCommand []CommandFit
}

// CommandFit is one command's own service time, from the log.
type CommandFit struct {
	Command string
	Fit     fit.Fit
	N       int
}

// node is one scenario node being written.
type node struct {
	name, host, role, shard string
	lines                   []line
}

// line is one field of the YAML, with the comment lines above it.
type line struct {
	comment []string
	key     string
	value   string
}

// Calibrate writes a scenario for the cluster in the inputs. Every fitted field is commented
// with its source and the fit's quality; every field that cannot be fitted is left at its
// default with a comment and a note.
func Calibrate(in *Inputs, opts Options) (*Result, error) {
	if opts.Name == "" {
		opts.Name = "calibrated"
	}
	if opts.Duration == 0 {
		opts.Duration = 60 * time.Second
	}
	if opts.Warmup == 0 {
		opts.Warmup = 10 * time.Second
	}
	res := &Result{}
	for _, n := range in.Nodes {
		if len(n.Docs) < 2 {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: one serverStatus document (%s): no rates from it; take another some seconds later", n.Host, n.Sources[0]))
			continue
		}
		res.Windows = append(res.Windows, WindowOf(n, 0, len(n.Docs)-1))
	}
	for _, f := range in.Unplaced {
		res.Notes = append(res.Notes, fmt.Sprintf("log %s: no node could be tied to it, so its slow operations are not used for service times: name it for its node (rs0a.log) or put it in the node's directory", f))
	}
	if len(res.Windows) == 0 {
		return nil, field.New("inputs", strings.Join(in.Files, ", "), "no node has two serverStatus documents: take each node's twice, some seconds apart")
	}
	topo, err := topologyOf(res.Windows, res)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	writeHeader(&b, in, opts, res)
	b.WriteString("topology:\n")
	if topo.kind != "standalone" {
		fmt.Fprintf(&b, "  kind: %s\n", topo.kind)
	}
	b.WriteString("  nodes:\n")
	fitted := map[string]*node{} // replica set → its first member with a measured service time
	for _, w := range topo.nodes {
		nd := nodeFields(w, topo, opts, in, res)
		set := setOf(w)
		switch {
		case nd.role == "mongos" || set == "":
		case nd.hasService():
			if fitted[set] == nil {
				fitted[set] = nd
			}
		case fitted[set] != nil:
			nd.borrowService(fitted[set])
			res.Notes = append(res.Notes, fmt.Sprintf("%s: too few commands to measure its service times: %s's, a member of the same set", nd.name, fitted[set].name))
		}
		if nd.role != "mongos" && !nd.hasService() {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: service left at the default exp(1ms): fewer than %d read tickets finished, and no member of its set measured one", nd.name, minTickets))
		}
		writeNode(&b, nd)
	}
	if err := writeClients(&b, topo, in, res); err != nil {
		return nil, err
	}
	res.YAML = []byte(b.String())
	sc, err := scenarios.Parse(opts.Name+".yaml", res.YAML)
	var ps scenarios.Problems
	if errors.As(err, &ps) && len(ps) == 1 && ps[0].Path == "name" {
		// The one value calibrate does not write from the documents: the name it was given.
		return nil, field.New("--name", opts.Name, ps[0].Rule)
	}
	if err != nil {
		return nil, fmt.Errorf("calibrate: the scenario written does not read back (a fault of calibrate, please report it): %w", err)
	}
	res.Scenario = sc
	return res, nil
}

// topology is the cluster's shape, read from the documents.
type topology struct {
	kind  string    // standalone, replicaset or sharded
	nodes []*Window // in scenario order: mongos nodes, then each set's primary first
	entry []*Window // the nodes applications talk to: the mongos nodes, or every mongod
	names map[*Window]string
	shard map[*Window]string
}

func topologyOf(ws []*Window, res *Result) (*topology, error) {
	t := &topology{names: map[*Window]string{}, shard: map[*Window]string{}}
	var mongos []*Window
	sets := map[string][]*Window{}
	var alone []*Window
	for _, w := range ws {
		d := w.Node.Last()
		switch {
		case d.Process == "mongos":
			mongos = append(mongos, w)
		case d.Repl != nil && d.Repl.SetName != "":
			sets[d.Repl.SetName] = append(sets[d.Repl.SetName], w)
		default:
			alone = append(alone, w)
		}
	}
	setNames := sortedKeys(sets)
	switch {
	case len(mongos) > 0:
		t.kind = "sharded"
		if len(alone) > 0 {
			return nil, field.New("inputs", hosts(alone), "a sharded cluster's mongod documents must each name their shard (repl.setName); these have none")
		}
		t.nodes = append(t.nodes, mongos...)
		t.entry = mongos
		shardOf := map[string]string{} // shard name → the set it was made from
		for _, s := range setNames {
			if totalRate(sets[s]) == 0 {
				res.Notes = append(res.Notes, fmt.Sprintf("replica set %s served no application commands in the window (a config server?): left out", s))
				continue
			}
			name := shardName(s)
			if other, ok := shardOf[name]; ok {
				return nil, field.New("inputs", other+", "+s, fmt.Sprintf("the replica sets give one shard name %q (letters, digits and . _ - only, at most 100 bytes): rename one set in its documents", name))
			}
			shardOf[name] = s
			for _, w := range primaryFirst(sets[s]) {
				t.shard[w] = name
				t.nodes = append(t.nodes, w)
			}
		}
		if len(shardOf) == 0 {
			return nil, field.New("inputs", hosts(mongos), "mongos documents but no shard member's that served application commands: add the documents of every member of every shard")
		}
	case len(sets) > 1:
		return nil, field.New("inputs", strings.Join(setNames, ", "), "documents of several replica sets and no mongos: calibrate one cluster at a time, or add the mongos nodes' documents")
	case len(sets) == 1:
		if len(alone) > 0 {
			return nil, field.New("inputs", hosts(alone), "standalone documents beside a replica set's: calibrate one cluster at a time")
		}
		t.kind = "replicaset"
		t.nodes = primaryFirst(sets[setNames[0]])
		t.entry = t.nodes
	default:
		if len(alone) > 1 {
			return nil, field.New("inputs", hosts(alone), "several standalone hosts: calibrate one at a time")
		}
		t.kind = "standalone"
		t.nodes, t.entry = alone, alone
	}
	// Names: the host without its port, unless two hosts give one name once sanitized; then
	// the host. Hosts alike in all a name can hold are refused: the scenario needs one name each.
	seen := map[string]int{}
	for _, w := range t.nodes {
		seen[sanitize(w.Node.Name())]++
	}
	owner := map[string]*Window{}
	for _, w := range t.nodes {
		name := sanitize(w.Node.Name())
		if seen[name] > 1 {
			name = sanitize(w.Node.Host)
		}
		if o := owner[name]; o != nil {
			return nil, field.New("inputs", o.Node.Host+", "+w.Node.Host, fmt.Sprintf("the hosts give one node name %q (letters, digits and . _ : - only, at most 100 bytes): rename one host in its documents", name))
		}
		owner[name] = w
		t.names[w] = name
	}
	return t, nil
}

// sanitize makes a host a node name: letters, digits and . _ : - only.
func sanitize(h string) string {
	var b strings.Builder
	for _, r := range h {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == ':', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}

// shardName makes a replica set's name a shard name: a node name without colons.
func shardName(set string) string {
	return strings.ReplaceAll(sanitize(set), ":", "_")
}

// plainName matches the names YAML reads back as the same string without quotes, unless they
// end in a colon or spell null.
var plainName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.:-]*$`)

// yamlName writes a node or shard name so that YAML reads it back as written: plain when it
// can, quoted when YAML would read it otherwise (null, a leading - or :, a trailing :).
func yamlName(s string) string {
	if plainName.MatchString(s) && !strings.HasSuffix(s, ":") && s != "null" && s != "Null" && s != "NULL" {
		return s
	}
	return strconv.Quote(s)
}

func hosts(ws []*Window) string {
	var hs []string
	for _, w := range ws {
		hs = append(hs, w.Node.Host)
	}
	return strings.Join(hs, ", ")
}

func totalRate(ws []*Window) float64 {
	var r float64
	for _, w := range ws {
		for _, name := range sortedKeys(w.Commands) { // in order: the same sum every time
			if _, ok := mixName(name); ok {
				r += w.Commands[name].Total
			}
		}
	}
	return r
}

// primaryFirst orders a set's members with the writable primary first, the others by host.
func primaryFirst(ws []*Window) []*Window {
	out := append([]*Window(nil), ws...)
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := isPrimary(out[i]), isPrimary(out[j])
		if pi != pj {
			return pi
		}
		return out[i].Node.Host < out[j].Node.Host
	})
	return out
}

func isPrimary(w *Window) bool {
	r := w.Node.Last().Repl
	return r != nil && r.IsWritablePrimary
}

// mixName maps a MongoDB command to the workload's operation kind.
func mixName(cmd string) (string, bool) {
	switch cmd {
	case "find", "insert", "update", "delete", "aggregate", "getMore", "commitTransaction", "abortTransaction":
		return cmd, true
	case "findAndModify":
		return "update", true // a single-document retryable write, as an update
	}
	return "", false
}

// writeCommands are the commands that take a write ticket.
var writeCommands = []string{"insert", "update", "delete", "findAndModify", "commitTransaction", "abortTransaction"}

func writeHeader(b *strings.Builder, in *Inputs, opts Options, res *Result) {
	var from, to time.Time
	for i, w := range res.Windows {
		if i == 0 || w.From.Before(from) {
			from = w.From
		}
		if i == 0 || w.To.After(to) {
			to = w.To
		}
	}
	header := fmt.Sprintf("Written by simulate calibrate from %d file%s: %s. Window: %s to %s (%s). "+
		"Every fitted field says where it came from; a field the documents could not give is left at "+
		"its default and says so. Check it against production with: simulate calibrate --check "+
		"%s.yaml <the same files>",
		len(in.Files), plural(len(in.Files)), strings.Join(in.Files, ", "),
		from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339), to.Sub(from).Round(time.Millisecond), opts.Name)
	for _, l := range wrap(header, 94) {
		fmt.Fprintf(b, "# %s\n", l)
	}
	fmt.Fprintf(b, "name: %s\n", yamlName(opts.Name))
	fmt.Fprintf(b, "description: >-\n  Calibrated from production serverStatus documents taken %s to %s.\n",
		from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339))
	b.WriteString("seed: 1\n")
	fmt.Fprintf(b, "duration: %s\n", opts.Duration)
	fmt.Fprintf(b, "warmup: %s\n", opts.Warmup)
}

// nodeFields are the fields of one node.
func nodeFields(w *Window, t *topology, opts Options, in *Inputs, res *Result) *node {
	nd := &node{name: t.names[w], host: w.Node.Host}
	d := w.Node.Last()
	if d.Process == "mongos" {
		nd.role = "mongos"
	}
	nd.shard = t.shard[w]
	p := w.Node.Params
	src := w.Node.ParamsFrom
	if nd.role != "mongos" {
		serviceFields(nd, w, opts, in, res)
	}
	limiterFields(nd, w, p, src, res)
	return nd
}

// serviceFields fits the workers and the service times of a mongod.
func serviceFields(nd *node, w *Window, opts Options, in *Inputs, res *Result) {
	tickets, tsrc := ticketsOf(w)
	if tickets == 0 {
		nd.lines = append(nd.lines, line{comment: []string{"workers: the default (8): neither getParameter's tickets nor serverStatus's execution queues were given"}})
		res.Notes = append(res.Notes, fmt.Sprintf("%s: workers left at the default 8: no execution tickets in the documents", nd.name))
	}
	shared := false
	switch {
	case tickets > 0 && opts.Cores > 0 && int64(opts.Cores) < tickets:
		shared = true
		nd.lines = append(nd.lines,
			line{comment: []string{fmt.Sprintf("%d tickets (%s) but %d core%s: the commands at once share the cores", tickets, tsrc, opts.Cores, plural(opts.Cores))},
				key: "execution", value: "shared"},
			line{comment: []string{"the cores given (--cores)"}, key: "workers", value: strconv.Itoa(opts.Cores)})
	case tickets > 0:
		nd.lines = append(nd.lines, line{comment: []string{fmt.Sprintf("execution tickets: %s", tsrc)}, key: "workers", value: strconv.FormatInt(tickets, 10)})
	}
	cores := float64(opts.Cores)
	var readFit *PoolFit
	byCmd := map[string]string{}
	var byCmdComment []string
	for _, pool := range []string{"read", "write"} {
		pf, ok := poolFit(nd.name, pool, w, in, res)
		if !ok {
			continue
		}
		if shared {
			// Under processor sharing a ticket's processing time is its CPU demand stretched
			// by the commands sharing the cores: demand = processing × cores ÷ busy tickets.
			busy := w.Pools["read"].Busy + w.Pools["write"].Busy
			if busy > cores {
				pf.Chosen = pf.Chosen.WithMean(pf.Chosen.Mean * cores / busy)
				for i := range pf.ByCommand {
					pf.ByCommand[i].Fit = pf.ByCommand[i].Fit.WithMean(pf.ByCommand[i].Fit.Mean * cores / busy)
				}
				pf.MeanFrom += fmt.Sprintf(" × %g core%s ÷ %.3g tickets processing on average (processor sharing)", cores, plural(opts.Cores), busy)
			}
		}
		res.Fits = append(res.Fits, pf)
		comment := []string{
			fmt.Sprintf("%s pool: mean %s from %s", pool, fmtSeconds(pf.Chosen.Mean), pf.MeanFrom),
			fmt.Sprintf("shape: %s fitted to %s (%s)", pf.Chosen.Family, pf.Source, fitQuality(pf)),
		}
		for _, cf := range pf.ByCommand {
			byCmd[cf.Command] = cf.Fit.Dist()
			byCmdComment = append(byCmdComment, fmt.Sprintf("%s: its own %d logged operations, mean scaled as the %s pool's (%s)", cf.Command, cf.N, pool, cf.Fit))
		}
		if pool == "read" {
			readFit = &pf
			nd.lines = append(nd.lines, line{comment: comment, key: "service", value: pf.Chosen.Dist()})
			continue
		}
		for _, c := range writeCommands {
			if _, ok := byCmd[c]; !ok {
				byCmd[c] = pf.Chosen.Dist()
			}
		}
		byCmdComment = append(append(comment, "every write command takes a write ticket"), byCmdComment...)
	}
	if readFit == nil {
		nd.lines = append(nd.lines, line{comment: []string{"service: the default exp(1ms): too few read tickets finished in the window to measure a mean"}})
	}
	if len(byCmd) > 0 {
		var kv []string
		for _, c := range commandOrder(byCmd) {
			kv = append(kv, fmt.Sprintf("%s: %s", c, quoteDist(byCmd[c])))
		}
		nd.lines = append(nd.lines, line{comment: byCmdComment, key: "serviceByCommand", value: "{" + strings.Join(kv, ", ") + "}"})
	}
}

// commandOrder lists the commands of a serviceByCommand map: reads first, then the writes in
// their order.
func commandOrder(m map[string]string) []string {
	var out []string
	for _, c := range append([]string{"find", "aggregate", "getMore"}, writeCommands...) {
		if _, ok := m[c]; ok {
			out = append(out, c)
		}
	}
	return out
}

// ticketsOf is the node's execution pool size and where it came from.
func ticketsOf(w *Window) (int64, string) {
	if p := w.Node.Params; p != nil {
		for _, c := range []struct {
			r, wr *int64
			name  string
		}{
			{p.ExecutionControlConcurrentReadTransactions, p.ExecutionControlConcurrentWriteTransactions, "executionControlConcurrent{Read,Write}Transactions"},
			{p.StorageEngineConcurrentReadTransactions, p.StorageEngineConcurrentWriteTransactions, "storageEngineConcurrent{Read,Write}Transactions"},
			{p.WiredTigerConcurrentReadTransactions, p.WiredTigerConcurrentWriteTransactions, "wiredTigerConcurrent{Read,Write}Transactions"},
		} {
			if c.r != nil && c.wr != nil && *c.r > 0 {
				algo := ""
				if a := p.ExecutionControlConcurrencyAdjustmentAlgo; a != nil && *a != "fixedConcurrentTransactions" {
					algo = fmt.Sprintf("; %s moves them: the pools' largest size seen is used", *a)
					if t := max(w.Pools["read"].Tickets, w.Pools["write"].Tickets); t > 0 {
						return t, fmt.Sprintf("queues.execution totalTickets, largest seen%s", algo)
					}
				}
				return max(*c.r, *c.wr), fmt.Sprintf("getParameter %s = %d, %d (%s)%s", c.name, *c.r, *c.wr, w.Node.ParamsFrom, algo)
			}
		}
	}
	if t := max(w.Pools["read"].Tickets, w.Pools["write"].Tickets); t > 0 {
		return t, "serverStatus execution totalTickets, largest seen"
	}
	return 0, ""
}

// poolFit fits one pool's service time: the mean from the processing time of its tickets, the
// shape from the log's per-operation times, or else from the latency histogram when queueing
// is a small part of it, or else exponential.
func poolFit(name, pool string, w *Window, in *Inputs, res *Result) (PoolFit, bool) {
	pf := PoolFit{Node: name, Pool: pool}
	po, ok := w.Pools[pool]
	kind := map[string]string{"read": "reads", "write": "writes"}[pool]
	lat, hasLat := w.Latency[kind]
	var mean float64
	queueShare := math.NaN()
	switch {
	case ok && po.Finished >= minTickets:
		mean = po.Process / 1e6
		pf.MeanFrom = fmt.Sprintf("%s tickets' processing time (totalTimeProcessingMicros ÷ finishedProcessing over %s, %d tickets)",
			pool, fmtSeconds(w.Seconds), po.Finished)
		if !math.IsNaN(po.Queued) && hasLat && lat.MeanOK {
			queueShare = po.Queued / lat.Mean
		} else if hasLat && lat.MeanOK {
			queueShare = math.Max(0, 1-po.Process/lat.Mean)
		}
	case hasLat && lat.MeanOK && lat.Ops >= minTickets:
		mean = lat.Mean / 1e6
		pf.MeanFrom = fmt.Sprintf("opLatencies.%s (no ticket processing times in the documents: the mean includes the wait for a ticket, an upper bound)", kind)
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %s service mean from opLatencies.%s, which includes queueing: an upper bound", name, pool, kind))
	default:
		return pf, false
	}
	// The shape: the log's operations of this pool, else the histogram, else exponential.
	var xs []float64
	var from string
	perCmd := map[string][]float64{}
	coarse, logged := 0, 0
	for _, e := range w.Node.Log {
		if e.Command == "" || e.Component == "WRITE" || isWrite(e.Command) != (pool == "write") {
			continue
		}
		logged++
		if v, src, ok := logServiceTime(e); ok {
			xs = append(xs, v)
			perCmd[e.Command] = append(perCmd[e.Command], v)
			from = src
		} else {
			coarse++
		}
	}
	if logged > 0 && float64(coarse) > 0.05*float64(logged) {
		// Whole milliseconds that round many operations to 0 would bias the shape: the log
		// is too coarse for these operations.
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %d of %d logged %s operations took under a millisecond with no cpuNanos: the log is too coarse for their shape", name, coarse, logged, pool))
		xs = nil
	}
	if lm := meanOf(xs); len(xs) > 0 && lm > tailRatio*mean {
		// With slowms at its default (100 ms) the log holds the slow tail only, not the
		// operations' distribution.
		res.Notes = append(res.Notes, fmt.Sprintf("%s: the logged %s operations average %s, %.0f× the pool's processing time: the log holds the slow tail (slowms), so it is not used for their shape; log every operation for a while with db.setProfilingLevel(0, {slowms: 0, sampleRate: 0.01})",
			name, pool, fmtSeconds(lm), lm/mean))
		xs = nil
	}
	if len(xs) >= minSamples {
		// A command whose own operations differ from the pool's by more than a tenth gets its
		// own fit, its logged mean scaled so that the commands' means, weighted by their rates
		// in the window, make the pool's processing time.
		var wsum, rsum float64
		for _, c := range sortedKeys(perCmd) { // in order: the same sums every time
			if r := w.Commands[c].Total; r > 0 {
				wsum += float64(r * meanOf(perCmd[c]))
				rsum += r
			}
		}
		scale := mean / meanOf(xs)
		if rsum > 0 && wsum > 0 {
			scale = mean / (wsum / rsum)
		}
		for _, c := range sortedKeys(perCmd) {
			cx := perCmd[c]
			if len(cx) < minSamples || len(cx) == len(xs) || math.Abs(meanOf(cx)/meanOf(xs)-1) <= 0.1 {
				continue
			}
			cf, err := fit.Samples(cx)
			if err != nil {
				continue
			}
			b := fit.Best(cf)
			pf.ByCommand = append(pf.ByCommand, CommandFit{Command: c, Fit: b.WithMean(b.Mean * scale), N: len(cx)})
		}
	}
	var fits []fit.Fit
	var err error
	cleanHist := hasLat && lat.HasHistogram && !math.IsNaN(queueShare) && queueShare <= queueShareForShape
	switch {
	case len(xs) >= minSamples && (!cleanHist || int64(len(xs)) >= lat.Ops):
		// The log's operations, unless a histogram free of queueing holds more of them.
		fits, err = fit.Samples(xs)
		pf.Source = fmt.Sprintf("%d %s operations' %s in %s", len(xs), pool, from, w.Node.LogFrom)
	case cleanHist:
		lower := make([]float64, len(lat.Buckets))
		counts := make([]int64, len(lat.Buckets))
		for i, bk := range lat.Buckets {
			lower[i], counts[i] = float64(bk.Micros)/1e6, bk.Count
		}
		lower, counts = fullBuckets(lower, counts)
		fits, err = fit.Histogram(lower, counts)
		pf.Source = fmt.Sprintf("the opLatencies.%s histogram (%d operations; the wait for a ticket is %.1f %% of their latency)", kind, lat.Ops, 100*queueShare)
	}
	if err != nil || len(fits) == 0 {
		why := "no logged operations or latency histogram to fit a shape to"
		if err != nil {
			why = err.Error()
		} else if hasLat && lat.HasHistogram && math.IsNaN(queueShare) {
			why = fmt.Sprintf("the latency histogram holds an unknown wait for a ticket (no execution ticket counters in the documents), so it cannot stand for service times, and the log has fewer than %d operations", minSamples)
		} else if hasLat && lat.HasHistogram {
			why = fmt.Sprintf("the latency histogram holds too much queueing (%.0f %% of latency) to stand for service times, and the log has fewer than %d operations", 100*queueShare, minSamples)
		}
		pf.Source = "nothing: exponential assumed (" + why + ")"
		res.Notes = append(res.Notes, fmt.Sprintf("%s: %s service shape assumed exponential: %s", name, pool, why))
		pf.Chosen = fit.Fit{Family: "exp", Mean: mean}
		return pf, true
	}
	pf.Tried = fits
	pf.Chosen = fit.Best(fits).WithMean(mean)
	return pf, true
}

// fullBuckets puts every histogram range between the first and last non-empty ones, empty ones
// included, so that each range's upper bound is the next range's lower bound.
func fullBuckets(lower []float64, counts []int64) ([]float64, []int64) {
	if len(lower) == 0 {
		return lower, counts
	}
	have := map[int64]int64{}
	for i := range lower {
		have[int64(math.Round(lower[i]*1e6))] = counts[i]
	}
	first, last := int64(math.Round(lower[0]*1e6)), int64(math.Round(lower[len(lower)-1]*1e6))
	var l []float64
	var c []int64
	for _, b := range serverstatus.LowerBounds {
		if b < first || b > last {
			continue
		}
		l = append(l, float64(b)/1e6)
		c = append(c, have[b])
	}
	return l, c
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// meanOf is the mean of xs, 0 when empty.
func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func isWrite(cmd string) bool {
	for _, c := range writeCommands {
		if c == cmd {
			return true
		}
	}
	return false
}

// logServiceTime is a logged operation's time on a worker, in seconds: its CPU time, else its
// working time, else its duration less its time queued for a ticket.
func logServiceTime(e serverstatus.LogEntry) (float64, string, bool) {
	switch {
	case e.CPUNanos != nil && *e.CPUNanos > 0:
		return float64(*e.CPUNanos) / 1e9, "cpuNanos", true
	case e.WorkingMillis != nil && *e.WorkingMillis > 0:
		return float64(*e.WorkingMillis) / 1e3, "workingMillis", true
	case e.DurationMillis != nil && *e.DurationMillis > 0:
		v := float64(*e.DurationMillis) / 1e3
		if e.TotalTimeQueuedMicros != nil {
			v -= float64(*e.TotalTimeQueuedMicros) / 1e6
		}
		if v > 0 {
			return v, "durationMillis less queued time", true
		}
	}
	return 0, "", false
}

func fitQuality(pf PoolFit) string {
	if len(pf.Tried) == 0 {
		return "no fit"
	}
	var parts []string
	for _, f := range pf.Tried {
		parts = append(parts, fmt.Sprintf("%s AIC %.1f KS %.3f", f.Family, f.AIC, f.KS))
	}
	return "lowest AIC: " + strings.Join(parts, "; ")
}

// limiterFields writes the ingress limiters' settings exactly as getParameter gave them.
func limiterFields(nd *node, w *Window, p *serverstatus.Params, src string, res *Result) {
	if p == nil {
		if l := w.Limiter; l != nil && l.Rejected > 0 {
			nd.lines = append(nd.lines, line{comment: []string{fmt.Sprintf(
				"the ingress request limiter rejected %.1f/s of %.1f/s attempted, but no getParameter output was given: its rate is unknown and left at the default; add the node's getParameter:'*' output",
				l.Rejected, l.Attempted)}})
			res.Notes = append(res.Notes, fmt.Sprintf("%s: the request limiter rejects but its settings are unknown: give getParameter:'*' output", nd.name))
		}
		return
	}
	from := fmt.Sprintf("getParameter (%s)", src)
	add := func(key, value string) {
		nd.lines = append(nd.lines, line{comment: []string{from}, key: key, value: value})
		from = ""
	}
	if v := p.IngressRequestRateLimiterEnabled; v != nil && *v {
		add("ingressRequestRateLimiterEnabled", "true")
		if v := p.IngressRequestAdmissionRatePerSec; v != nil {
			add("ingressRequestAdmissionRatePerSec", strconv.FormatInt(*v, 10))
		}
		if v := p.IngressRequestAdmissionBurstCapacitySecs; v != nil && *v < math.MaxFloat64 {
			add("ingressRequestAdmissionBurstCapacitySecs", strconv.FormatFloat(*v, 'g', -1, 64))
		}
		if v := p.IngressRequestAdmissionMaxQueueDepth; v != nil && *v > 0 {
			add("ingressRequestAdmissionMaxQueueDepth", strconv.FormatInt(*v, 10))
		}
		if v := p.IngressRequestRateLimiterApplicationExemptions; v != nil && len(v.AppNames) > 0 {
			add("ingressRequestRateLimiterApplicationExemptions", "["+strings.Join(quoteAll(v.AppNames), ", ")+"]")
		}
	}
	if v := p.IngressConnectionEstablishmentRateLimiterEnabled; v != nil && *v {
		add("ingressConnectionEstablishmentRateLimiterEnabled", "true")
		if v := p.IngressConnectionEstablishmentRatePerSec; v != nil {
			add("ingressConnectionEstablishmentRatePerSec", strconv.FormatInt(*v, 10))
		}
		if v := p.IngressConnectionEstablishmentBurstCapacitySecs; v != nil && *v < math.MaxFloat64 {
			add("ingressConnectionEstablishmentBurstCapacitySecs", strconv.FormatFloat(*v, 'g', -1, 64))
		}
		if v := p.IngressConnectionEstablishmentMaxQueueDepth; v != nil && *v > 0 {
			add("ingressConnectionEstablishmentMaxQueueDepth", strconv.FormatInt(*v, 10))
		}
	}
	if v := p.ExternalClientBaseBackoffMS; v != nil && *v > 0 {
		add("externalClientBaseBackoffMS", strconv.FormatInt(*v, 10))
	}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

func quoteDist(d string) string {
	if strings.Contains(d, ",") {
		return strconv.Quote(d)
	}
	return d
}

// setOf is the replica set a node belongs to, "" for a standalone or a mongos.
func setOf(w *Window) string {
	if r := w.Node.Last().Repl; r != nil {
		return r.SetName
	}
	return ""
}

// hasService reports whether the node's service time was measured.
func (nd *node) hasService() bool {
	for _, l := range nd.lines {
		if l.key == "service" {
			return true
		}
	}
	return false
}

// borrowService gives a member that served too few commands to measure the service times of a
// member of its set that served enough (the primary, normally): the members of a set run on
// like hardware, and a secondary that becomes primary serves the primary's commands.
func (nd *node) borrowService(from *node) {
	var kept []line
	for _, l := range nd.lines {
		if l.key == "" && len(l.comment) == 1 && strings.HasPrefix(l.comment[0], "service: the default") {
			continue
		}
		kept = append(kept, l)
	}
	for _, l := range from.lines {
		if l.key == "service" || l.key == "serviceByCommand" {
			kept = append(kept, line{comment: []string{fmt.Sprintf("%s: too few commands here to measure; %s's, a member of the same set (like hardware assumed)", l.key, from.name)},
				key: l.key, value: l.value})
		}
	}
	nd.lines = kept
}

func writeNode(b *strings.Builder, nd *node) {
	fmt.Fprintf(b, "    - name: %s\n", yamlName(nd.name))
	if nd.role != "" {
		fmt.Fprintf(b, "      role: %s\n", nd.role)
	}
	if nd.shard != "" {
		fmt.Fprintf(b, "      shard: %s\n", yamlName(nd.shard))
	}
	for _, l := range nd.lines {
		for _, c := range l.comment {
			if c != "" {
				fmt.Fprintf(b, "      # %s\n", c)
			}
		}
		if l.key != "" {
			fmt.Fprintf(b, "      %s: %s\n", l.key, l.value)
		}
	}
}

// writeClients writes the open-loop groups carrying the application commands the entry nodes
// served, at their rates: one group for what the primaries served, and, when secondaries served
// reads, a second one reading from secondaries at their rate.
func writeClients(b *strings.Builder, t *topology, in *Inputs, res *Result) error {
	rates := map[string]float64{}
	secondary := map[string]float64{}
	ignored := map[string]float64{}
	var window float64
	for _, w := range t.entry {
		window = max(window, w.Seconds)
		for _, cmd := range sortedKeys(w.Commands) { // in order: the same sums every time
			r := w.Commands[cmd]
			if m, ok := mixName(cmd); ok {
				rates[m] += r.Total
			} else if r.Total > 0 {
				ignored[cmd] += r.Total
			}
		}
	}
	// Reads that secondaries served came from a read preference other than primary.
	for _, w := range t.nodes {
		if r := w.Node.Last().Repl; r == nil || !r.Secondary {
			continue
		}
		for _, cmd := range []string{"find", "aggregate", "getMore"} {
			secondary[cmd] += w.Commands[cmd].Total
		}
	}
	var total, secTotal float64
	for _, m := range sortedKeys(rates) {
		total += rates[m]
	}
	for _, m := range sortedKeys(secondary) {
		secTotal += secondary[m]
	}
	if total <= 0 {
		return field.New("inputs", strings.Join(in.Files, ", "), "no application command (find, insert, update, delete, aggregate, getMore, findAndModify, commitTransaction, abortTransaction) ran in the window: nothing to calibrate a workload from")
	}
	var ig []string
	for _, c := range sortedKeys(ignored) {
		if ignored[c] >= 0.05 {
			ig = append(ig, fmt.Sprintf("%s %.2f/s", c, ignored[c]))
		}
	}
	if len(ig) > 0 {
		res.Notes = append(res.Notes, "commands not in the workload (no application operation stands for them): "+strings.Join(ig, ", "))
	}
	from := "metrics.commands"
	for _, w := range t.entry {
		if w.FromOpcounters {
			from = "opcounters (no metrics.commands: aggregate and findAndModify cannot be told from other commands)"
		}
	}
	split := secTotal >= 0.01*total
	if split {
		for _, cmd := range sortedKeys(secondary) {
			r := secondary[cmd]
			// The entry nodes counted them: the mongos nodes that routed them, or the
			// secondaries themselves.
			rates[cmd] -= r
			if rates[cmd] < 0.05 {
				delete(rates, cmd)
			}
		}
		total -= secTotal
	}
	clients, csrc := clientCount(in)
	var entry []string
	for _, w := range t.entry {
		entry = append(entry, t.names[w])
	}
	var rejected float64
	for _, w := range t.nodes {
		if w.Limiter != nil {
			rejected += w.Limiter.Rejected
		}
	}
	// What the rate written means when a limiter rejected commands: a mongod counts only the
	// commands it admitted, so the rate is a lower bound of the offered load; a mongos counts
	// every command the drivers sent it, their retries of the shards' rejections included, so
	// the rate is an upper bound.
	bound := ""
	if rejected > 0 {
		if t.kind == "sharded" {
			var failed float64
			for _, w := range t.entry {
				for _, c := range sortedKeys(w.Commands) {
					if _, ok := mixName(c); ok {
						failed += w.Commands[c].Failed
					}
				}
			}
			bound = fmt.Sprintf("The shards' request limiters rejected %.1f/s and the mongos nodes answered %.1f/s of their commands with an error: the mongos nodes counted every command the drivers sent, their retries of those errors included, so the offered load is at most this rate", rejected, failed)
			res.Notes = append(res.Notes, fmt.Sprintf("the shards' limiters rejected %.1f/s in the window: the rate written counts the drivers' retries too, an upper bound of the offered load; set the drivers' retryPolicy and compare the rejections with --check", rejected))
		} else {
			bound = fmt.Sprintf("The request limiters rejected %.1f/s, which the servers do not count as commands: the offered load is at least this rate, and the drivers' retries of the rejected commands are in it", rejected)
			res.Notes = append(res.Notes, fmt.Sprintf("the limiters rejected %.1f/s in the window: the rate written is what was admitted, a lower bound of the offered load", rejected))
		}
	}
	b.WriteString("clients:\n")
	primaryCount := clients
	if split {
		primaryCount = max(1, int(math.Round(float64(clients)*total/(total+secTotal))))
		if clients > 1 {
			primaryCount = min(primaryCount, clients-1)
		}
	}
	writeGroup(b, "app", primaryCount, csrc, "", rates, total, fmt.Sprintf(
		"Commands per second that reached %s (%s over %s), retries included: with no rejections and no failures that is the offered load",
		strings.Join(entry, ", "), from, fmtSeconds(window)), bound)
	if split {
		writeGroup(b, "secondary-reads", max(1, clients-primaryCount), csrc, "secondary", secondary, secTotal,
			fmt.Sprintf("Reads the secondaries served (%s over %s): the applications read from secondaries at this rate", from, fmtSeconds(window)), "")
		res.Notes = append(res.Notes, fmt.Sprintf("secondaries served %.1f reads/s: a second group reads from secondaries at that rate (set its readPreference to your applications' own: secondaryPreferred, nearest)", secTotal))
	}
	return nil
}

// writeGroup writes one open-loop client group.
func writeGroup(b *strings.Builder, name string, count int, countSrc, readPref string, rates map[string]float64, total float64, rateSrc, bound string) {
	fmt.Fprintf(b, "  - name: %s\n", name)
	fmt.Fprintf(b, "    # %s\n", countSrc)
	fmt.Fprintf(b, "    count: %d\n", count)
	b.WriteString("    # The drivers' retry policy is not in the server's documents: set retryPolicy to the\n")
	b.WriteString("    # release your applications run (simulate list names them).\n")
	if readPref != "" {
		fmt.Fprintf(b, "    driver: {readPreference: %s}\n", readPref)
	} else {
		b.WriteString("    driver: {}\n")
	}
	for _, l := range wrap(rateSrc+".", 88) {
		fmt.Fprintf(b, "    # %s\n", l)
	}
	if bound != "" {
		for _, l := range wrap(bound+".", 88) {
			fmt.Fprintf(b, "    # %s\n", l)
		}
	}
	fmt.Fprintf(b, "    workload: {rate: %s/s}\n", fmtRate(total))
	var mix []string
	for _, m := range sortedKeys(rates) {
		if rates[m] > 0 {
			mix = append(mix, fmt.Sprintf("%s: %s", m, fmtRate(rates[m])))
		}
	}
	fmt.Fprintf(b, "    mix: {%s}\n", strings.Join(mix, ", "))
}

// wrap cuts text into lines of at most width bytes at spaces.
func wrap(text string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(text) {
		if cur != "" && len(cur)+1+len(w) > width {
			lines = append(lines, cur)
			cur = w
			continue
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// clientCount is the number of MongoClients: the distinct client hosts of the log's client
// metadata entries, else 10.
func clientCount(in *Inputs) (int, string) {
	remotes := map[string]bool{}
	apps := map[string]int{}
	for _, e := range in.Log {
		if e.ID != 51800 || e.Remote == "" {
			continue
		}
		h := e.Remote
		if host, _, err := net.SplitHostPort(e.Remote); err == nil {
			h = host
		}
		remotes[h] = true
		if e.AppName != "" {
			apps[e.AppName]++
		}
	}
	if len(remotes) == 0 {
		return 10, "count: no client metadata in a log (id 51800): 10 clients assumed; set it to your application processes"
	}
	var an []string
	for _, a := range sortedKeys(apps) {
		an = append(an, fmt.Sprintf("%s (%d connections)", a, apps[a]))
	}
	s := fmt.Sprintf("count: %d client hosts in the log's client metadata (id 51800)", len(remotes))
	if len(an) > 0 {
		s += "; applications: " + strings.Join(an, ", ")
	}
	return min(len(remotes), 100000), s
}

// fmtRate prints a rate with 0.1/s resolution, as short as it reads; a rate under 1/s with
// three significant digits, so that a command the window saw is never written at 0/s.
func fmtRate(r float64) string {
	if r > 0 && r < 1 {
		v, _ := strconv.ParseFloat(strconv.FormatFloat(r, 'g', 3, 64), 64)
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(math.Round(r*10)/10, 'f', -1, 64)
}

func fmtSeconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Microsecond).String()
}

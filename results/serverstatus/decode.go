package serverstatus

import (
	"slices"
	"strconv"

	"github.com/overloadsim/overloadsim/field"
)

// status decodes a serverStatus document. ok is false when it has a problem.
func (d *decoder) status(v *value) (Doc, bool) {
	var doc Doc
	switch h := v.get("host"); {
	case h == nil || h.kind == kindNull:
		d.problem(v, "host", "", "missing: a serverStatus document names its host")
	case h.kind != kindString || h.text == "":
		d.problem(h, "host", shown(h), "must be the host's name and port, a string such as \"db:27017\"")
	default:
		doc.Host = h.text
	}
	doc.Version = d.str(v, "", "version")
	doc.Process = d.str(v, "", "process")
	if u := d.float(v, "", "uptime"); u != nil {
		doc.Uptime = *u
	}
	um := d.countPtr(v, "", "uptimeMillis")
	if um != nil {
		doc.UptimeMillis = *um
	}
	lt, hasTime := d.date(v, "", "localTime")
	doc.LocalTime = lt
	if !hasTime && um == nil && v.get("localTime") == nil {
		d.problem(v, "localTime", "", "missing: a serverStatus document has localTime (or uptimeMillis) to place it in time")
	}

	if s, p := d.section(v, "", "repl"); s != nil {
		doc.Repl = d.repl(s, p)
	}
	if s, p := d.section(v, "", "opcounters"); s != nil {
		doc.Opcounters = &Opcounters{
			Insert:  d.count(s, p, "insert"),
			Query:   d.count(s, p, "query"),
			Update:  d.count(s, p, "update"),
			Delete:  d.count(s, p, "delete"),
			Getmore: d.count(s, p, "getmore"),
			Command: d.count(s, p, "command"),
		}
	}
	if s, p := d.section(v, "", "opLatencies"); s != nil {
		doc.OpLatencies = &OpLatencies{
			Reads:        d.latency(s, p, "reads"),
			Writes:       d.latency(s, p, "writes"),
			Commands:     d.latency(s, p, "commands"),
			Transactions: d.latency(s, p, "transactions"),
		}
	}
	if s, p := d.section(v, "", "connections"); s != nil {
		doc.Connections = d.connections(s, p)
	}
	if s, p := d.section(v, "", "network"); s != nil {
		doc.Network = &Network{}
		if l, lp := d.section(s, p, "ingressRequestRateLimiter"); l != nil {
			doc.Network.IngressRequestRateLimiter = d.rateLimiter(l, lp)
		}
	}
	if s, p := d.section(v, "", "queues"); s != nil {
		doc.Queues = d.queues(s, p)
	}
	if s, p := d.section(v, "", "admission"); s != nil {
		doc.Admission = d.queues(s, p)
	}
	if s, p := d.section(v, "", "wiredTiger"); s != nil {
		doc.WiredTiger = &WiredTiger{}
		if c, cp := d.section(s, p, "concurrentTransactions"); c != nil {
			doc.WiredTiger.ConcurrentTransactions = d.execution(c, cp)
		}
	}
	if s, p := d.section(v, "", "metrics"); s != nil {
		doc.Metrics = &Metrics{}
		if c, cp := d.section(s, p, "commands"); c != nil {
			doc.Metrics.Commands = d.commands(c, cp)
		}
	}
	return doc, !d.bad
}

func (d *decoder) repl(v *value, path string) *Repl {
	r := &Repl{
		SetName: d.str(v, path, "setName"),
		Hosts:   d.strList(v, path, "hosts"),
		Primary: d.str(v, path, "primary"),
		Me:      d.str(v, path, "me"),
	}
	// isWritablePrimary is 5.0's name for ismaster.
	if b := d.boolean(v, path, "isWritablePrimary"); b != nil {
		r.IsWritablePrimary = *b
	} else if b := d.boolean(v, path, "ismaster"); b != nil {
		r.IsWritablePrimary = *b
	}
	if b := d.boolean(v, path, "secondary"); b != nil {
		r.Secondary = *b
	}
	return r
}

// latency reads one opLatencies kind; nil when absent.
func (d *decoder) latency(v *value, path, key string) *Latency {
	s, p := d.section(v, path, key)
	if s == nil {
		return nil
	}
	l := &Latency{Latency: d.count(s, p, "latency"), Ops: d.count(s, p, "ops")}
	h := s.get("histogram")
	if h == nil || h.kind == kindNull {
		return l
	}
	hp := field.Join(p, "histogram")
	if h.kind != kindArray {
		d.problem(h, hp, shown(h), "must be an array of {micros, count} documents")
		return l
	}
	last := int64(-1)
	for i, el := range h.kids {
		ep := hp + "[" + strconv.Itoa(i) + "]"
		if el.kind != kindObject || isWrapped(el) {
			d.problem(el, ep, shown(el), "must be a {micros, count} document")
			continue
		}
		micros := d.countPtr(el, ep, "micros")
		b := Bucket{Count: d.count(el, ep, "count")}
		if micros == nil {
			if el.get("micros") == nil {
				d.problem(el, field.Join(ep, "micros"), "", "missing: a histogram range names its lower bound")
			}
			continue
		}
		b.Micros = *micros
		mv := el.get("micros")
		switch _, known := slices.BinarySearch(LowerBounds, b.Micros); {
		case !known:
			d.problem(mv, field.Join(ep, "micros"), strconv.FormatInt(b.Micros, 10),
				"must be a lower bound of MongoDB's latency histogram (0, 2, 4, 8, …, 2048, 3072, 4096, 6144, …)")
			continue
		case b.Micros <= last:
			d.problem(mv, field.Join(ep, "micros"), strconv.FormatInt(b.Micros, 10),
				"must be greater than the range before it ("+strconv.FormatInt(last, 10)+")")
			continue
		}
		last = b.Micros
		l.Histogram = append(l.Histogram, b)
	}
	return l
}

func (d *decoder) connections(v *value, path string) *Connections {
	c := &Connections{
		Current:                d.count(v, path, "current"),
		Available:              d.countPtr(v, path, "available"),
		TotalCreated:           d.count(v, path, "totalCreated"),
		Active:                 d.count(v, path, "active"),
		QueuedForEstablishment: d.countPtr(v, path, "queuedForEstablishment"),
	}
	if s, p := d.section(v, path, "establishmentRateLimit"); s != nil {
		c.EstablishmentRateLimit = &EstablishmentRateLimit{
			Rejected:                         d.count(s, p, "rejected"),
			Exempted:                         d.count(s, p, "exempted"),
			InterruptedDueToClientDisconnect: d.count(s, p, "interruptedDueToClientDisconnect"),
		}
	}
	return c
}

func (d *decoder) rateLimiter(v *value, path string) *RateLimiter {
	return &RateLimiter{
		AttemptedAdmissions:     d.count(v, path, "attemptedAdmissions"),
		SuccessfulAdmissions:    d.count(v, path, "successfulAdmissions"),
		RejectedAdmissions:      d.count(v, path, "rejectedAdmissions"),
		ExemptedAdmissions:      d.count(v, path, "exemptedAdmissions"),
		AddedToQueue:            d.countPtr(v, path, "addedToQueue"),
		RemovedFromQueue:        d.countPtr(v, path, "removedFromQueue"),
		InterruptedInQueue:      d.countPtr(v, path, "interruptedInQueue"),
		AverageTimeQueuedMicros: d.float(v, path, "averageTimeQueuedMicros"),
		TotalAvailableTokens:    d.tokens(v, path, "totalAvailableTokens"),
	}
}

func (d *decoder) queues(v *value, path string) *Queues {
	q := &Queues{}
	if s, p := d.section(v, path, "execution"); s != nil {
		q.Execution = d.execution(s, p)
	}
	if s, p := d.section(v, path, "ingressSessionEstablishment"); s != nil {
		q.IngressSessionEstablishment = d.rateLimiter(s, p)
	}
	return q
}

func (d *decoder) execution(v *value, path string) *Execution {
	e := &Execution{}
	if s, p := d.section(v, path, "read"); s != nil {
		e.Read = d.tickets(s, p)
	}
	if s, p := d.section(v, path, "write"); s != nil {
		e.Write = d.tickets(s, p)
	}
	return e
}

// poolKeys are the counters of a ticket pool; a pool that reports one of them at its top
// (6.x's wiredTiger.concurrentTransactions) rather than in normalPriority has them moved there.
var poolKeys = []string{"addedToQueue", "removedFromQueue", "queueLength", "startedProcessing", "processing",
	"finishedProcessing", "totalTimeProcessingMicros", "canceled", "newAdmissions", "totalTimeQueuedMicros"}

func (d *decoder) tickets(v *value, path string) *Tickets {
	t := &Tickets{TotalTickets: d.count(v, path, "totalTickets"), Out: d.count(v, path, "out")}
	// available may fall below 0 while the server shrinks a pool under tickets held.
	if a := d.integer(v, path, "available", ""); a != nil {
		t.Available = *a
	}
	if s, p := d.section(v, path, "normalPriority"); s != nil {
		t.NormalPriority = d.pool(s, p)
		return t
	}
	for _, k := range poolKeys {
		if v.get(k) != nil {
			t.NormalPriority = d.pool(v, path)
			break
		}
	}
	return t
}

func (d *decoder) pool(v *value, path string) *TicketPool {
	return &TicketPool{
		AddedToQueue:              d.count(v, path, "addedToQueue"),
		RemovedFromQueue:          d.count(v, path, "removedFromQueue"),
		QueueLength:               d.count(v, path, "queueLength"),
		StartedProcessing:         d.count(v, path, "startedProcessing"),
		Processing:                d.count(v, path, "processing"),
		FinishedProcessing:        d.count(v, path, "finishedProcessing"),
		TotalTimeProcessingMicros: d.count(v, path, "totalTimeProcessingMicros"),
		Canceled:                  d.count(v, path, "canceled"),
		NewAdmissions:             d.count(v, path, "newAdmissions"),
		TotalTimeQueuedMicros:     d.countPtr(v, path, "totalTimeQueuedMicros"),
	}
}

// commands reads metrics.commands: a document per command name. Entries that are not
// documents (the server's "<UNKNOWN>" count) are passed over.
func (d *decoder) commands(v *value, path string) map[string]CommandCount {
	var out map[string]CommandCount
	for i, name := range v.keys {
		c := v.kids[i]
		if c.kind != kindObject || isWrapped(c) {
			continue
		}
		if _, dup := out[name]; dup {
			continue
		}
		p := field.Join(path, name)
		if out == nil {
			out = map[string]CommandCount{}
		}
		out[name] = CommandCount{Failed: d.count(c, p, "failed"), Total: d.count(c, p, "total")}
	}
	return out
}

// params decodes a getParameter output.
func (d *decoder) params(v *value) (Params, bool) {
	nonNeg := func(key string) *int64 { return d.integer(v, "", key, "must be ≥ 0") }
	p := Params{
		IngressRequestRateLimiterEnabled:         d.boolean(v, "", "ingressRequestRateLimiterEnabled"),
		IngressRequestAdmissionRatePerSec:        nonNeg("ingressRequestAdmissionRatePerSec"),
		IngressRequestAdmissionBurstCapacitySecs: d.nonNegFloat(v, "ingressRequestAdmissionBurstCapacitySecs"),
		IngressRequestAdmissionMaxQueueDepth:     nonNeg("ingressRequestAdmissionMaxQueueDepth"),

		IngressConnectionEstablishmentRateLimiterEnabled: d.boolean(v, "", "ingressConnectionEstablishmentRateLimiterEnabled"),
		IngressConnectionEstablishmentRatePerSec:         nonNeg("ingressConnectionEstablishmentRatePerSec"),
		IngressConnectionEstablishmentBurstCapacitySecs:  d.nonNegFloat(v, "ingressConnectionEstablishmentBurstCapacitySecs"),
		IngressConnectionEstablishmentMaxQueueDepth:      nonNeg("ingressConnectionEstablishmentMaxQueueDepth"),

		ExternalClientBaseBackoffMS: nonNeg("externalClientBaseBackoffMS"),

		ExecutionControlConcurrentReadTransactions:  nonNeg("executionControlConcurrentReadTransactions"),
		ExecutionControlConcurrentWriteTransactions: nonNeg("executionControlConcurrentWriteTransactions"),
		ExecutionControlConcurrencyAdjustmentAlgo:   d.strPtr(v, "executionControlConcurrencyAdjustmentAlgorithm"),
		StorageEngineConcurrentReadTransactions:     nonNeg("storageEngineConcurrentReadTransactions"),
		StorageEngineConcurrentWriteTransactions:    nonNeg("storageEngineConcurrentWriteTransactions"),
		StorageEngineConcurrencyAdjustmentAlgorithm: d.strPtr(v, "storageEngineConcurrencyAdjustmentAlgorithm"),
		WiredTigerConcurrentReadTransactions:        nonNeg("wiredTigerConcurrentReadTransactions"),
		WiredTigerConcurrentWriteTransactions:       nonNeg("wiredTigerConcurrentWriteTransactions"),
	}
	const ex = "ingressRequestRateLimiterApplicationExemptions"
	if s, sp := d.section(v, "", ex); s != nil {
		p.IngressRequestRateLimiterApplicationExemptions = &AppNames{AppNames: d.strList(s, sp, "appNames")}
	}
	return p, !d.bad
}

// nonNegFloat reads the number ≥ 0 at key of v (NaN refused): nil when absent or null.
func (d *decoder) nonNegFloat(v *value, key string) *float64 {
	f := d.float(v, "", key)
	if f != nil && !(*f >= 0) {
		d.problem(v.get(key), key, shown(v.get(key)), "must be ≥ 0")
		return nil
	}
	return f
}

// strPtr reads the string at key of v: nil when absent or null.
func (d *decoder) strPtr(v *value, key string) *string {
	x := v.get(key)
	if x == nil || x.kind == kindNull {
		return nil
	}
	s := d.str(v, "", key)
	if x.kind != kindString {
		return nil
	}
	return &s
}

// logEntry decodes a structured log line. keep is false for a line of another id than those
// LogEntry holds; ok is false when it has a problem.
func (d *decoder) logEntry(v *value) (e LogEntry, keep, ok bool) {
	t, hasTime := d.date(v, "", "t")
	if hasTime {
		e.Time = t
	}
	if id := d.integer(v, "", "id", ""); id != nil {
		e.ID = *id
	}
	e.Msg = d.str(v, "", "msg")
	e.Component = d.str(v, "", "c")
	if d.bad {
		return e, false, false
	}
	switch e.ID {
	case LogSlowQuery:
		if a, p := d.section(v, "", "attr"); a != nil {
			d.slowQuery(&e, a, p)
		}
	case LogClientMetadata:
		if a, p := d.section(v, "", "attr"); a != nil {
			e.Remote = d.str(a, p, "remote")
			if doc, dp := d.section(a, p, "doc"); doc != nil {
				if app, ap := d.section(doc, dp, "application"); app != nil {
					e.AppName = d.str(app, ap, "name")
				}
			}
		}
	default:
		return e, false, true
	}
	return e, true, !d.bad
}

// opTypes maps the attr.type of a slow operation logged per statement (a write inside a
// batch, logged by the WRITE component; the op types of 4.4's lines) to its command's name.
var opTypes = map[string]string{
	"insert": "insert", "update": "update", "remove": "delete", "delete": "delete",
	"query": "find", "getmore": "getMore", "getMore": "getMore", "killcursors": "killCursors",
}

// slowQuery reads the attr of a "Slow query" line.
func (d *decoder) slowQuery(e *LogEntry, a *value, path string) {
	typ := d.str(a, path, "type")
	if c, _ := d.section(a, path, "command"); c != nil && (typ == "" || typ == "command") && len(c.keys) > 0 {
		e.Command = c.keys[0]
	} else if name, ok := opTypes[typ]; ok {
		e.Command = name
	} else if n := d.str(a, path, "commandName"); n != "" {
		e.Command = n
	} else if c != nil && len(c.keys) > 0 {
		e.Command = c.keys[0]
	}
	e.DurationMillis = d.countPtr(a, path, "durationMillis")
	e.WorkingMillis = d.countPtr(a, path, "workingMillis")
	e.CPUNanos = d.countPtr(a, path, "cpuNanos")
	if q, qp := d.section(a, path, "queues"); q != nil {
		if x, xp := d.section(q, qp, "execution"); x != nil {
			e.TotalTimeQueuedMicros = d.countPtr(x, xp, "totalTimeQueuedMicros")
		}
	}
}

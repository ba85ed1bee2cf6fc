package trace

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/sim"
	"github.com/overloadsim/overloadsim/wire"
)

// WriteFile writes the trace to path (mode 0644) with results.WriteFileAtomic, so a reader
// never sees half a trace and a failed write leaves any previous file as it was. A path ending
// in .gz is gzip-compressed (Perfetto opens it as it is), with no name or time in the gzip
// header, so that the same trace is the same bytes.
func (w *Writer) WriteFile(path string) error {
	return results.WriteFileAtomic(path, func(out io.Writer) error {
		if !strings.HasSuffix(path, ".gz") {
			_, err := w.WriteTo(out)
			return err
		}
		zw, err := gzip.NewWriterLevel(out, gzip.BestCompression)
		if err != nil {
			return err
		}
		if _, err := w.WriteTo(zw); err != nil {
			return err
		}
		return zw.Close()
	})
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// WriteTo writes the trace as Chrome trace-event JSON (see the package documentation for the
// layout). It may be called more than once; it does not change the writer.
func (w *Writer) WriteTo(out io.Writer) (int64, error) {
	cw := &countingWriter{w: out}
	o := &output{bw: bufio.NewWriterSize(cw, 64<<10)}
	o.bw.WriteString("{\"traceEvents\":[\n")
	for _, p := range w.procs {
		p.writeMeta(o)
	}
	nest := nesting{}
	for _, i := range w.order() {
		e := w.events[i]
		nest.fit(&e)
		o.b = w.appendEvent(o.b, &e)
		o.event()
	}
	for _, c := range w.counters {
		o.b = appendCounter(o.b, c)
		o.event()
	}
	if w.dropped > 0 {
		o.b = w.appendEvent(o.b, w.truncation())
		o.event()
	}
	o.bw.WriteString("\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":")
	o.bw.Write(w.appendOtherData(o.b))
	o.bw.WriteString("}\n")
	err := o.bw.Flush()
	return cw.n, err
}

// appendCounter appends a counter sample as a "C" event of its process.
func appendCounter(b []byte, c counter) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, c.name)
	b = append(b, `,"cat":"counter","ph":"C","ts":`...)
	b = appendMicros(b, int64(c.ts))
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(c.pid), 10)
	b = append(b, `,"tid":0,"args":{`...)
	b = appendString(b, c.key)
	b = append(b, ':')
	b = strconv.AppendFloat(b, c.value, 'f', -1, 64)
	return append(b, "}}"...)
}

// nesting keeps slices nested for readers that compute a slice's end as ts + dur in doubles
// (Perfetto, catapult and most converters): a child that ends exactly when its parent ends, in
// nanoseconds, can come out one ulp later in such a sum, and such a reader then puts it beside
// its parent, not inside. fit shortens a child by the nanoseconds (at most a few) that take its
// sum back within its parent's. Events arrive in start order, parents first (order).
type nesting map[[2]int32][]openSlice

type openSlice struct {
	endNs  int64
	endDbl float64
}

// micros is a time as a reader parses what appendMicros writes.
func micros(ns int64) float64 {
	f, _ := strconv.ParseFloat(string(appendMicros(nil, ns)), 64)
	return f
}

func (n nesting) fit(e *event) {
	if e.kind == evFailure || e.kind == evTruncated {
		return // instants: no end to keep inside
	}
	key := [2]int32{e.pid, e.tid}
	stack := n[key]
	ts, end := int64(e.ts), int64(e.ts)+int64(e.dur)
	for len(stack) > 0 && stack[len(stack)-1].endNs <= ts {
		stack = stack[:len(stack)-1] // ended before e starts: not its parent
	}
	endDbl := micros(ts) + micros(end-ts)
	if len(stack) > 0 {
		parent := stack[len(stack)-1]
		for e.dur > 0 && endDbl > parent.endDbl {
			e.dur--
			end--
			endDbl = micros(ts) + micros(end-ts)
		}
	}
	n[key] = append(stack, openSlice{end, endDbl})
}

// output writes the trace events, one a line, with the commas between them.
type output struct {
	bw    *bufio.Writer
	b     []byte // the event being built
	wrote bool
}

// event writes the event in o.b and empties it.
func (o *output) event() {
	if o.wrote {
		o.bw.WriteString(",\n")
	}
	o.wrote = true
	o.bw.Write(o.b)
	o.b = o.b[:0]
}

// order returns the events' indices sorted by start, longer first, shallower first, then in
// recording order: parents come before the children that start with them.
func (w *Writer) order() []int32 {
	idx := make([]int32, len(w.events))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(i, j int32) int {
		a, b := &w.events[i], &w.events[j]
		if c := cmp.Compare(a.ts, b.ts); c != 0 {
			return c
		}
		if c := cmp.Compare(b.dur, a.dur); c != 0 {
			return c
		}
		return cmp.Compare(depth[a.kind], depth[b.kind])
	})
	return idx
}

// truncation is the global instant that says the cap was reached, on the first traced thread.
func (w *Writer) truncation() *event {
	e := &event{ts: w.firstDrop, kind: evTruncated}
	for _, p := range w.procs {
		if len(p.tracks) > 0 {
			e.pid, e.tid = int32(p.pid), int32(p.tracks[0].tid0)
			break
		}
	}
	return e
}

// writeMeta writes the process's metadata events and those of its threads: lane 0 of every
// traced client, and every further lane that has an event.
func (p *process) writeMeta(o *output) {
	meta := func(name string, pid, tid int, key string, value func([]byte) []byte) {
		b := o.b
		b = append(b, `{"name":`...)
		b = appendString(b, name)
		b = append(b, `,"cat":"__metadata","ph":"M","ts":0.000,"pid":`...)
		b = strconv.AppendInt(b, int64(pid), 10)
		b = append(b, `,"tid":`...)
		b = strconv.AppendInt(b, int64(tid), 10)
		b = append(b, `,"args":{`...)
		b = appendString(b, key)
		b = append(b, ':')
		b = value(b)
		o.b = append(b, "}}"...)
		o.event()
	}
	str := func(s string) func([]byte) []byte { return func(b []byte) []byte { return appendString(b, s) } }
	num := func(n int) func([]byte) []byte {
		return func(b []byte) []byte { return strconv.AppendInt(b, int64(n), 10) }
	}
	meta("process_name", p.pid, 0, "name", str(p.name))
	meta("process_labels", p.pid, 0, "labels", str(fmt.Sprintf("traced: first %d of %d clients", len(p.tracks), p.total)))
	meta("process_sort_index", p.pid, 0, "sort_index", num(p.pid))
	for _, t := range p.tracks {
		for l := range t.lanes {
			if l > 0 && !t.lanes[l].shown {
				continue
			}
			name := t.name
			if l > 0 {
				name += " #" + strconv.Itoa(l)
			}
			meta("thread_name", p.pid, t.tid0+l, "name", str(name))
			meta("thread_sort_index", p.pid, t.tid0+l, "sort_index", num(t.tid0+l))
		}
		if len(t.lanes) == 0 { // a traced client that issued nothing: still name its track
			meta("thread_name", p.pid, t.tid0, "name", str(t.name))
			meta("thread_sort_index", p.pid, t.tid0, "sort_index", num(t.tid0))
		}
	}
}

// appendEvent appends e as one JSON object.
func (w *Writer) appendEvent(b []byte, e *event) []byte {
	name, cat, ph := "", "", byte('X')
	switch e.kind {
	case evOp:
		name, cat = e.opKind.String(), "op"
	case evCheckout:
		name, cat = "checkout", "checkout"
	case evAttempt:
		name, cat = "attempt", "attempt"
	case evBackoff:
		name, cat = "backoff", "backoff"
	case evFailure:
		name, cat, ph = outcome(e.out), "failure", 'i'
		if e.out.Overload() {
			cat = "rejection"
		}
	case evTruncated:
		name, cat, ph = "trace truncated", "trace", 'i'
	}
	b = append(b, `{"name":`...)
	b = appendString(b, name)
	b = append(b, `,"cat":`...)
	b = appendString(b, cat)
	b = append(b, `,"ph":"`...)
	b = append(b, ph)
	b = append(b, `","ts":`...)
	b = appendMicros(b, int64(e.ts))
	if ph == 'X' {
		b = append(b, `,"dur":`...)
		b = appendMicros(b, int64(e.dur))
	}
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(e.pid), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(e.tid), 10)
	switch e.kind {
	case evFailure:
		b = append(b, `,"s":"t"`...)
	case evTruncated:
		b = append(b, `,"s":"g"`...)
	}
	b = append(b, `,"args":{`...)
	a := args{b: b}
	switch e.kind {
	case evOp:
		a.str("op", e.opKind.String())
		a.uint("opId", e.op)
		out := "ok"
		if e.class != client.ErrNone {
			out = e.class.String()
		}
		a.str("outcome", out)
		a.int("attempts", e.n)
		a.int("retries", e.retries)
		if !e.out.OK {
			a.failure(e.out.Failure)
		}
	case evCheckout, evAttempt:
		a.str("op", e.opKind.String())
		a.uint("opId", e.op)
		if e.kind == evAttempt {
			a.int("attempt", e.n)
		}
		a.str("server", e.server)
		a.str("outcome", outcome(e.out))
		if !e.out.OK && !e.out.TimedOut {
			a.failure(e.out.Failure)
		}
	case evBackoff:
		a.str("op", e.opKind.String())
		a.uint("opId", e.op)
		a.int("retry", e.n)
		a.micros("plannedUs", e.planned)
		a.bool("cutShort", e.dur < e.planned)
	case evFailure:
		a.str("op", e.opKind.String())
		a.uint("opId", e.op)
		if e.during == evAttempt {
			a.str("during", "attempt")
			a.int("attempt", e.n)
		} else {
			a.str("during", "checkout")
		}
		a.str("server", e.server)
		if !e.out.TimedOut {
			a.failure(e.out.Failure)
		}
	case evTruncated:
		a.int("maxEvents", w.cfg.MaxEvents)
		a.uint("dropped", w.dropped)
	}
	b = append(a.b, "}}"...)
	return b
}

// outcome names how a checkout or an attempt ended.
func outcome(o client.TraceOutcome) string {
	switch {
	case o.OK:
		return "ok"
	case o.TimedOut:
		return "timeout"
	case o.Overload():
		return "overload"
	case o.Failure.PoolCleared:
		return "poolCleared"
	case o.Failure.Network:
		return "network"
	}
	return "error"
}

// appendOtherData appends the otherData object: what was traced, and what was not.
func (w *Writer) appendOtherData(b []byte) []byte {
	a := args{b: append(b, '{')}
	a.str("tool", "overloadsim results/trace")
	a.str("config", w.cfg.String())
	a.int("events", len(w.events))
	a.uint("dropped", w.dropped)
	a.uint("untracedOps", w.untraced)
	if w.dropped > 0 {
		a.str("truncated", fmt.Sprintf("event cap %d reached at %v: %d later events dropped",
			w.cfg.MaxEvents, sim.Time(w.firstDrop), w.dropped))
	}
	for _, kv := range w.meta {
		a.str(kv.key, kv.value)
	}
	return append(a.b, '}')
}

// args appends the members of a JSON object, commas included.
type args struct {
	b []byte
	n int
}

func (a *args) key(k string) {
	if a.n > 0 {
		a.b = append(a.b, ',')
	}
	a.n++
	a.b = appendString(a.b, k)
	a.b = append(a.b, ':')
}

func (a *args) str(k, v string) { a.key(k); a.b = appendString(a.b, v) }
func (a *args) int(k string, v int) {
	a.key(k)
	a.b = strconv.AppendInt(a.b, int64(v), 10)
}
func (a *args) uint(k string, v uint64) {
	a.key(k)
	a.b = strconv.AppendUint(a.b, v, 10)
}
func (a *args) bool(k string, v bool) {
	a.key(k)
	a.b = strconv.AppendBool(a.b, v)
}
func (a *args) micros(k string, d time.Duration) {
	a.key(k)
	a.b = appendMicros(a.b, int64(d))
}

// failure appends an error's code (with its name when it has one) and labels.
func (a *args) failure(f retry.Failure) {
	a.int("code", int(f.Code))
	if f.Code != wire.OK {
		a.str("codeName", f.Code.String())
	}
	a.str("labels", f.Labels.String())
}

// appendMicros appends ns nanoseconds as microseconds with exactly three decimals.
func appendMicros(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns // virtual times and durations are never negative; kept exact anyway
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	frac := ns % 1000
	return append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}

// appendString appends s as a JSON string: quotes, backslashes and control characters escaped,
// invalid UTF-8 replaced, everything else as is.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

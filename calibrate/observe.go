package calibrate

import (
	"math"
	"sort"
	"time"

	"github.com/overloadsim/overloadsim/results/serverstatus"
)

// Window is what one node showed between two of its documents: differences of the cumulative
// counters over the time between them, and the gauges averaged over the documents in between.
type Window struct {
	Node     *Node
	From, To time.Time
	Seconds  float64
	// Commands is each command's rate (commands/s) and failure rate, from metrics.commands, or
	// from opcounters when the documents lack it (FromOpcounters).
	Commands       map[string]Rate
	FromOpcounters bool
	// Latency is each opLatencies kind (reads, writes, commands, transactions) present.
	Latency map[string]LatencyObs
	// Pools is each execution ticket pool (read, write) present.
	Pools map[string]PoolObs
	// Utilisation is the share of the tickets' time spent processing; NaN without pools.
	Utilisation float64
	Connections ConnObs
	// Limiter is the ingress request limiter's rates, ConnLimiter the connection limiter's;
	// nil when the documents lack the section (servers before 8.2, or a mongod without it).
	Limiter, ConnLimiter *LimiterObs
}

// Rate is a command's rate and its failures', per second.
type Rate struct{ Total, Failed float64 }

// LatencyObs is one opLatencies kind over a window: operations, their mean server-side latency
// and, from the histogram, its median and 99th percentile (µs; NaN without a histogram).
type LatencyObs struct {
	Ops                 int64
	Mean, P50, P99      float64
	Buckets             []serverstatus.Bucket // the histogram's difference over the window
	HasHistogram        bool
	MeanOK, QuantilesOK bool
}

// PoolObs is one execution ticket pool over a window.
type PoolObs struct {
	Tickets  int64   // the largest totalTickets seen
	Finished int64   // tickets that finished processing
	Process  float64 // mean processing time per ticket, µs
	Queued   float64 // mean time queued per admission, µs; NaN when not reported
	Busy     float64 // mean tickets processing (Little's law: processing time ÷ window)
}

// ConnObs is the connections over a window.
type ConnObs struct {
	Mean, Max  float64 // current connections over the documents
	CreatedPer float64 // connections created per second
}

// LimiterObs is an ingress limiter's admissions per second over a window.
type LimiterObs struct {
	Attempted, Successful, Rejected, Exempted float64
}

// RejectShare is the share of attempted admissions rejected.
func (l *LimiterObs) RejectShare() float64 {
	if l == nil || l.Attempted == 0 {
		return 0
	}
	return l.Rejected / l.Attempted
}

// WindowOf returns node n's window from its document i to its document j (i < j).
func WindowOf(n *Node, i, j int) *Window {
	a, b := &n.Docs[i], &n.Docs[j]
	w := &Window{Node: n, From: docTime(a), To: docTime(b)}
	w.Seconds = w.To.Sub(w.From).Seconds()
	if b.UptimeMillis > a.UptimeMillis && a.LocalTime.IsZero() {
		w.Seconds = float64(b.UptimeMillis-a.UptimeMillis) / 1000
	}
	per := func(x, y int64) float64 { return float64(y-x) / w.Seconds }

	w.Commands = map[string]Rate{}
	if a.Metrics != nil && b.Metrics != nil && len(b.Metrics.Commands) > 0 {
		for name, cb := range b.Metrics.Commands {
			ca := a.Metrics.Commands[name]
			if cb.Total == ca.Total && cb.Failed == ca.Failed {
				continue
			}
			w.Commands[name] = Rate{per(ca.Total, cb.Total), per(ca.Failed, cb.Failed)}
		}
	} else if a.Opcounters != nil && b.Opcounters != nil {
		w.FromOpcounters = true
		oa, ob := a.Opcounters, b.Opcounters
		for _, c := range []struct {
			name string
			x, y int64
		}{{"find", oa.Query, ob.Query}, {"insert", oa.Insert, ob.Insert}, {"update", oa.Update, ob.Update},
			{"delete", oa.Delete, ob.Delete}, {"getMore", oa.Getmore, ob.Getmore}, {"command", oa.Command, ob.Command}} {
			if c.y > c.x {
				w.Commands[c.name] = Rate{Total: per(c.x, c.y)}
			}
		}
	}

	w.Latency = map[string]LatencyObs{}
	if a.OpLatencies != nil && b.OpLatencies != nil {
		for _, k := range []struct {
			name string
			x, y *serverstatus.Latency
		}{{"reads", a.OpLatencies.Reads, b.OpLatencies.Reads}, {"writes", a.OpLatencies.Writes, b.OpLatencies.Writes},
			{"commands", a.OpLatencies.Commands, b.OpLatencies.Commands}, {"transactions", a.OpLatencies.Transactions, b.OpLatencies.Transactions}} {
			if k.x == nil || k.y == nil {
				continue
			}
			w.Latency[k.name] = latencyOver(k.x, k.y)
		}
	}

	w.Pools = map[string]PoolObs{}
	ea, eb := a.Execution(), b.Execution()
	if ea != nil && eb != nil {
		for _, p := range []struct {
			name string
			x, y *serverstatus.Tickets
		}{{"read", ea.Read, eb.Read}, {"write", ea.Write, eb.Write}} {
			if p.x == nil || p.y == nil || p.x.NormalPriority == nil || p.y.NormalPriority == nil {
				continue
			}
			obs := PoolObs{Queued: math.NaN()}
			for k := i; k <= j; k++ {
				if e := n.Docs[k].Execution(); e != nil {
					if t := pick(e, p.name); t != nil {
						obs.Tickets = max(obs.Tickets, t.TotalTickets)
					}
				}
			}
			x, y := p.x.NormalPriority, p.y.NormalPriority
			obs.Finished = y.FinishedProcessing - x.FinishedProcessing
			proc := float64(y.TotalTimeProcessingMicros - x.TotalTimeProcessingMicros)
			if obs.Finished > 0 {
				obs.Process = proc / float64(obs.Finished)
			}
			obs.Busy = proc / (w.Seconds * 1e6)
			if x.TotalTimeQueuedMicros != nil && y.TotalTimeQueuedMicros != nil {
				if adm := y.NewAdmissions - x.NewAdmissions; adm > 0 {
					obs.Queued = float64(*y.TotalTimeQueuedMicros-*x.TotalTimeQueuedMicros) / float64(adm)
				}
			}
			w.Pools[p.name] = obs
		}
	}
	w.Utilisation = math.NaN()
	if r, ok := w.Pools["read"]; ok {
		busy, tickets := r.Busy, r.Tickets
		if wr, ok := w.Pools["write"]; ok {
			busy += wr.Busy
			// One pool in the model: the larger pool's size bounds the commands at once.
			tickets = max(tickets, wr.Tickets)
		}
		if tickets > 0 {
			w.Utilisation = busy / float64(tickets)
		}
	}

	var sum float64
	cnt := 0
	for k := i; k <= j; k++ {
		if c := n.Docs[k].Connections; c != nil {
			sum += float64(c.Current)
			w.Connections.Max = max(w.Connections.Max, float64(c.Current))
			cnt++
		}
	}
	if cnt > 0 {
		w.Connections.Mean = sum / float64(cnt)
	}
	if a.Connections != nil && b.Connections != nil {
		w.Connections.CreatedPer = per(a.Connections.TotalCreated, b.Connections.TotalCreated)
	}

	if a.Network != nil && b.Network != nil && a.Network.IngressRequestRateLimiter != nil && b.Network.IngressRequestRateLimiter != nil {
		w.Limiter = limiterOver(a.Network.IngressRequestRateLimiter, b.Network.IngressRequestRateLimiter, per)
	}
	if a.Queues != nil && b.Queues != nil && a.Queues.IngressSessionEstablishment != nil && b.Queues.IngressSessionEstablishment != nil {
		w.ConnLimiter = limiterOver(a.Queues.IngressSessionEstablishment, b.Queues.IngressSessionEstablishment, per)
	} else if a.Connections != nil && b.Connections != nil && a.Connections.EstablishmentRateLimit != nil && b.Connections.EstablishmentRateLimit != nil {
		w.ConnLimiter = &LimiterObs{Rejected: per(a.Connections.EstablishmentRateLimit.Rejected, b.Connections.EstablishmentRateLimit.Rejected)}
	}
	return w
}

func limiterOver(x, y *serverstatus.RateLimiter, per func(int64, int64) float64) *LimiterObs {
	return &LimiterObs{
		Attempted:  per(x.AttemptedAdmissions, y.AttemptedAdmissions),
		Successful: per(x.SuccessfulAdmissions, y.SuccessfulAdmissions),
		Rejected:   per(x.RejectedAdmissions, y.RejectedAdmissions),
		Exempted:   per(x.ExemptedAdmissions, y.ExemptedAdmissions),
	}
}

func pick(e *serverstatus.Execution, name string) *serverstatus.Tickets {
	if name == "read" {
		return e.Read
	}
	return e.Write
}

// latencyOver is one opLatencies kind's difference between two documents.
func latencyOver(x, y *serverstatus.Latency) LatencyObs {
	o := LatencyObs{Ops: y.Ops - x.Ops, P50: math.NaN(), P99: math.NaN(), Mean: math.NaN()}
	if o.Ops > 0 {
		o.Mean, o.MeanOK = float64(y.Latency-x.Latency)/float64(o.Ops), true
	}
	if len(y.Histogram) == 0 {
		return o
	}
	o.HasHistogram = true
	prev := map[int64]int64{}
	for _, b := range x.Histogram {
		prev[b.Micros] = b.Count
	}
	for _, b := range y.Histogram {
		if c := b.Count - prev[b.Micros]; c > 0 {
			o.Buckets = append(o.Buckets, serverstatus.Bucket{Micros: b.Micros, Count: c})
		}
	}
	sort.Slice(o.Buckets, func(i, j int) bool { return o.Buckets[i].Micros < o.Buckets[j].Micros })
	if len(o.Buckets) > 0 {
		o.P50, o.P99, o.QuantilesOK = Quantile(o.Buckets, 0.5), Quantile(o.Buckets, 0.99), true
	}
	return o
}

// Quantile returns the q-quantile (0 < q < 1) of a latency histogram, in µs: the range holding
// it is found by counting, and the value is interpolated geometrically inside it (linearly in
// the first range, which starts at 0). A range's upper bound is the next bound of
// serverstatus.LowerBounds.
func Quantile(buckets []serverstatus.Bucket, q float64) float64 {
	var n int64
	for _, b := range buckets {
		n += b.Count
	}
	if n == 0 {
		return math.NaN()
	}
	target := float64(q * float64(n)) // rounded: no fused multiply-add with the sums below
	var seen float64
	for _, b := range buckets {
		c := float64(b.Count)
		if seen+c < target {
			seen += c
			continue
		}
		lo, hi := float64(b.Micros), float64(upperBound(b.Micros))
		f := (target - seen) / c
		if lo <= 0 {
			return float64(hi * f)
		}
		return float64(lo * math.Pow(hi/lo, f))
	}
	last := buckets[len(buckets)-1]
	return float64(upperBound(last.Micros))
}

// upperBound is the bound after lower in serverstatus.LowerBounds (twice lower past the last).
func upperBound(lower int64) int64 {
	lb := serverstatus.LowerBounds
	i := sort.Search(len(lb), func(i int) bool { return lb[i] > lower })
	if i < len(lb) {
		return lb[i]
	}
	return 2 * max(lower, 1)
}

package scenarios

import "time"

// EventsPerOperation is the loop events one application operation costs in a healthy run of the
// library's scenarios (arrival, request and reply on the wire, admission, service, completion,
// with monitoring, sampling and the odd retry spread over it), measured as sim.Loop.Fired ÷
// operations issued; retry storms cost several times more. Cost estimates use it to refuse work
// that cannot finish before running any of it.
const EventsPerOperation = 12

// OfferedOperations returns the operations the application groups are expected to issue over
// the whole run: each open-loop group's rate integrated over the duration; each closed-loop
// client thread one operation per think time plus a millisecond of service (an upper bound for
// service times of a millisecond or more).
func (s *Scenario) OfferedOperations() float64 {
	var ops float64
	for i := range s.Clients {
		g := &s.Clients[i]
		switch {
		case g.Workload.Rate != nil && g.Workload.Rate.p != nil:
			ops += g.Workload.Rate.p.Integral(0, s.Duration)
		case g.Workload.Threads > 0:
			cycle := time.Millisecond
			if g.Workload.Think.D != nil {
				cycle += g.Workload.Think.D.Mean()
			}
			ops += float64(g.Count*g.Workload.Threads) * s.Duration.Seconds() / cycle.Seconds()
		}
	}
	return ops
}

// EstimatedEvents returns about how many loop events one run of s handles: OfferedOperations ×
// EventsPerOperation.
func (s *Scenario) EstimatedEvents() float64 { return s.OfferedOperations() * EventsPerOperation }

package serverstatus

// Execution returns the execution-control ticket pools of d whichever version wrote them:
// queues.execution (8.0 and later), admission.execution (7.0), or
// wiredTiger.concurrentTransactions (6.x, whose queue counters ReadFile has moved into
// NormalPriority). It is nil when d has none of them (a mongos).
func (d *Doc) Execution() *Execution {
	switch {
	case d.Queues != nil && d.Queues.Execution != nil:
		return d.Queues.Execution
	case d.Admission != nil && d.Admission.Execution != nil:
		return d.Admission.Execution
	case d.WiredTiger != nil && d.WiredTiger.ConcurrentTransactions != nil:
		return d.WiredTiger.ConcurrentTransactions
	}
	return nil
}

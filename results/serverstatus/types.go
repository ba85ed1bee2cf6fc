package serverstatus

import "time"

// Doc is the subset of a serverStatus document overloadsim uses. Field names are MongoDB's;
// counters are cumulative since the process started.
type Doc struct {
	Host         string    `json:"host"`
	Version      string    `json:"version"`
	Process      string    `json:"process"` // mongod or mongos
	Uptime       float64   `json:"uptime"`  // seconds
	UptimeMillis int64     `json:"uptimeMillis"`
	LocalTime    time.Time `json:"localTime"`

	Repl        *Repl        `json:"repl,omitempty"`
	Opcounters  *Opcounters  `json:"opcounters,omitempty"`
	OpLatencies *OpLatencies `json:"opLatencies,omitempty"`
	Connections *Connections `json:"connections,omitempty"`
	Network     *Network     `json:"network,omitempty"`
	Queues      *Queues      `json:"queues,omitempty"`
	// Admission is MongoDB 7.0's name for the execution queues (admission.execution); 8.0
	// moved them to queues.execution.
	Admission *Queues `json:"admission,omitempty"`
	// WiredTiger holds concurrentTransactions, the ticket counters of 6.x and earlier.
	WiredTiger *WiredTiger `json:"wiredTiger,omitempty"`
	Metrics    *Metrics    `json:"metrics,omitempty"`
}

// Repl is the repl section of a replica-set member.
type Repl struct {
	SetName           string   `json:"setName"`
	Hosts             []string `json:"hosts"`
	Primary           string   `json:"primary,omitempty"`
	Me                string   `json:"me"`
	IsWritablePrimary bool     `json:"isWritablePrimary"`
	Secondary         bool     `json:"secondary"`
}

// Opcounters counts operations received by type since the process started.
type Opcounters struct {
	Insert  int64 `json:"insert"`
	Query   int64 `json:"query"`
	Update  int64 `json:"update"`
	Delete  int64 `json:"delete"`
	Getmore int64 `json:"getmore"`
	Command int64 `json:"command"`
}

// OpLatencies is the server-side latency of operations by kind.
type OpLatencies struct {
	Reads        *Latency `json:"reads,omitempty"`
	Writes       *Latency `json:"writes,omitempty"`
	Commands     *Latency `json:"commands,omitempty"`
	Transactions *Latency `json:"transactions,omitempty"`
}

// Latency is one opLatencies kind: the total latency in microseconds, the operations, and the
// histogram when serverStatus was asked for it (opLatencies: {histograms: true}).
type Latency struct {
	Latency   int64    `json:"latency"` // µs, summed
	Ops       int64    `json:"ops"`
	Histogram []Bucket `json:"histogram,omitempty"`
}

// Bucket is one latency-histogram range: Count operations took at least Micros µs and less
// than the next bucket's Micros (see LowerBounds). Empty ranges are left out.
type Bucket struct {
	Micros int64 `json:"micros"`
	Count  int64 `json:"count"`
}

// Connections is the connections section.
type Connections struct {
	Current                int64                   `json:"current"`
	Available              *int64                  `json:"available,omitempty"` // nil: not reported (a run has no connection limit)
	TotalCreated           int64                   `json:"totalCreated"`
	Active                 int64                   `json:"active"`
	QueuedForEstablishment *int64                  `json:"queuedForEstablishment,omitempty"`
	EstablishmentRateLimit *EstablishmentRateLimit `json:"establishmentRateLimit,omitempty"`
}

// EstablishmentRateLimit is connections.establishmentRateLimit (8.2+).
type EstablishmentRateLimit struct {
	Rejected                         int64 `json:"rejected"`
	Exempted                         int64 `json:"exempted"`
	InterruptedDueToClientDisconnect int64 `json:"interruptedDueToClientDisconnect"`
}

// Network holds the ingress request rate limiter's counters (8.2+).
type Network struct {
	IngressRequestRateLimiter *RateLimiter `json:"ingressRequestRateLimiter,omitempty"`
}

// RateLimiter is the counters of an ingress rate limiter: network.ingressRequestRateLimiter and
// queues.ingressSessionEstablishment share them. TotalAvailableTokens is the bucket's balance,
// math.MaxInt64 when the limiter has no limit.
type RateLimiter struct {
	AttemptedAdmissions     int64    `json:"attemptedAdmissions"`
	SuccessfulAdmissions    int64    `json:"successfulAdmissions"`
	RejectedAdmissions      int64    `json:"rejectedAdmissions"`
	ExemptedAdmissions      int64    `json:"exemptedAdmissions"`
	AddedToQueue            *int64   `json:"addedToQueue,omitempty"`
	RemovedFromQueue        *int64   `json:"removedFromQueue,omitempty"`
	InterruptedInQueue      *int64   `json:"interruptedInQueue,omitempty"`
	AverageTimeQueuedMicros *float64 `json:"averageTimeQueuedMicros,omitempty"`
	TotalAvailableTokens    int64    `json:"totalAvailableTokens"`
}

// Queues is the queues section (8.0+; 7.0's admission section has the same execution shape).
type Queues struct {
	Execution                   *Execution   `json:"execution,omitempty"`
	IngressSessionEstablishment *RateLimiter `json:"ingressSessionEstablishment,omitempty"`
}

// Execution is the execution-control ticket pools.
type Execution struct {
	Read  *Tickets `json:"read,omitempty"`
	Write *Tickets `json:"write,omitempty"`
}

// Tickets is one ticket pool: tickets out and available now, and the queue and processing
// counters (the normalPriority sub-document from 7.0; 6.x reports them at the top level, which
// the reader moves into NormalPriority).
type Tickets struct {
	Out            int64       `json:"out"`
	Available      int64       `json:"available"`
	TotalTickets   int64       `json:"totalTickets"`
	NormalPriority *TicketPool `json:"normalPriority,omitempty"`
}

// TicketPool is the admission counters of a ticket pool.
type TicketPool struct {
	AddedToQueue              int64  `json:"addedToQueue"`
	RemovedFromQueue          int64  `json:"removedFromQueue"`
	QueueLength               int64  `json:"queueLength"`
	StartedProcessing         int64  `json:"startedProcessing"`
	Processing                int64  `json:"processing"`
	FinishedProcessing        int64  `json:"finishedProcessing"`
	TotalTimeProcessingMicros int64  `json:"totalTimeProcessingMicros"`
	Canceled                  int64  `json:"canceled"`
	NewAdmissions             int64  `json:"newAdmissions"`
	TotalTimeQueuedMicros     *int64 `json:"totalTimeQueuedMicros,omitempty"`
}

// WiredTiger is the part of the wiredTiger section with the 6.x tickets.
type WiredTiger struct {
	ConcurrentTransactions *Execution `json:"concurrentTransactions,omitempty"`
}

// Metrics is the part of the metrics section with per-command counts.
type Metrics struct {
	// Commands is metrics.commands: per command name, the invocations and failures.
	Commands map[string]CommandCount `json:"commands,omitempty"`
}

// CommandCount is one command's metrics.commands entry.
type CommandCount struct {
	Failed int64 `json:"failed"`
	Total  int64 `json:"total"`
}

// Params is the part of getParameter: '*' overloadsim reads: the ingress limiters and the
// execution tickets. A nil field was not in the document.
type Params struct {
	IngressRequestRateLimiterEnabled               *bool     `json:"ingressRequestRateLimiterEnabled,omitempty"`
	IngressRequestAdmissionRatePerSec              *int64    `json:"ingressRequestAdmissionRatePerSec,omitempty"`
	IngressRequestAdmissionBurstCapacitySecs       *float64  `json:"ingressRequestAdmissionBurstCapacitySecs,omitempty"`
	IngressRequestAdmissionMaxQueueDepth           *int64    `json:"ingressRequestAdmissionMaxQueueDepth,omitempty"`
	IngressRequestRateLimiterApplicationExemptions *AppNames `json:"ingressRequestRateLimiterApplicationExemptions,omitempty"`

	IngressConnectionEstablishmentRateLimiterEnabled *bool    `json:"ingressConnectionEstablishmentRateLimiterEnabled,omitempty"`
	IngressConnectionEstablishmentRatePerSec         *int64   `json:"ingressConnectionEstablishmentRatePerSec,omitempty"`
	IngressConnectionEstablishmentBurstCapacitySecs  *float64 `json:"ingressConnectionEstablishmentBurstCapacitySecs,omitempty"`
	IngressConnectionEstablishmentMaxQueueDepth      *int64   `json:"ingressConnectionEstablishmentMaxQueueDepth,omitempty"`

	ExternalClientBaseBackoffMS *int64 `json:"externalClientBaseBackoffMS,omitempty"`

	// The execution tickets: 8.0's executionControl… names, 7.0's storageEngine… names and
	// 6.x's wiredTiger… names, with the algorithm (fixedConcurrentTransactions keeps the
	// counts; throughputProbing moves them).
	ExecutionControlConcurrentReadTransactions  *int64  `json:"executionControlConcurrentReadTransactions,omitempty"`
	ExecutionControlConcurrentWriteTransactions *int64  `json:"executionControlConcurrentWriteTransactions,omitempty"`
	ExecutionControlConcurrencyAdjustmentAlgo   *string `json:"executionControlConcurrencyAdjustmentAlgorithm,omitempty"`
	StorageEngineConcurrentReadTransactions     *int64  `json:"storageEngineConcurrentReadTransactions,omitempty"`
	StorageEngineConcurrentWriteTransactions    *int64  `json:"storageEngineConcurrentWriteTransactions,omitempty"`
	StorageEngineConcurrencyAdjustmentAlgorithm *string `json:"storageEngineConcurrencyAdjustmentAlgorithm,omitempty"`
	WiredTigerConcurrentReadTransactions        *int64  `json:"wiredTigerConcurrentReadTransactions,omitempty"`
	WiredTigerConcurrentWriteTransactions       *int64  `json:"wiredTigerConcurrentWriteTransactions,omitempty"`
}

// AppNames is the document form of ingressRequestRateLimiterApplicationExemptions.
type AppNames struct {
	AppNames []string `json:"appNames"`
}

// LogEntry is one structured mongod log line (4.4+) of the kinds overloadsim reads: a slow
// operation (id 51803, "Slow query") and a client's metadata (id 51800).
type LogEntry struct {
	Time      time.Time // t
	ID        int64     // id
	Msg       string    // msg
	Component string    // c
	// Slow operations (attr): the command's name (the first key of attr.command), its
	// durationMillis, and, when the server reports them, workingMillis (8.0+), cpuNanos
	// (Linux, 6.3+) and the time queued for an execution ticket
	// (attr.queues.execution.totalTimeQueuedMicros, 8.0+). Nil when absent.
	Command               string
	DurationMillis        *int64
	WorkingMillis         *int64
	CPUNanos              *int64
	TotalTimeQueuedMicros *int64
	// Client metadata (attr): the remote address and attr.doc.application.name.
	Remote  string
	AppName string
}

// LowerBounds are the lower bounds, in µs, of the opLatencies histogram's ranges: powers of
// two, with half-steps between 2048 µs and 1 s (MongoDB's operation latency histogram). A
// latency of l µs falls in the last range whose bound is ≤ l.
var LowerBounds = []int64{
	0, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384,
	24576, 32768, 49152, 65536, 98304, 131072, 196608, 262144, 393216, 524288, 786432,
	1048576, 1572864, 2097152, 4194304, 8388608, 16777216, 33554432, 67108864, 134217728,
	268435456, 536870912, 1073741824, 2147483648, 4294967296, 8589934592, 17179869184,
	34359738368, 68719476736, 137438953472, 274877906944, 549755813888, 1099511627776,
}

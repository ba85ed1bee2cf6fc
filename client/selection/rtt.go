package selection

import "github.com/overloadsim/overloadsim/internal/rtt"

// RTT is a server's average round-trip time, as the specification defines it: see rtt.Average,
// which a mongos's replica set monitor shares.
type RTT = rtt.Average

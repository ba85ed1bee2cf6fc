package mongos

import "time"

// backoff is BackoffWithJitter's delay before a retry: a uniform integer number of milliseconds
// in [0, min(MaxBackoff, base·2^i)], both ends included, where i is the number of overload
// failures retried so far and base is the shard's baseBackoffMS when the last of them carried
// one (> 0), else BaseBackoff. With i = 0 (no overload yet) or a cap of 0 the delay is 0 and
// nothing is drawn.
func (r *Router) backoff(i int, baseBackoffMS int64) time.Duration {
	if i == 0 {
		return 0
	}
	base := r.cfg.BaseBackoff.Milliseconds()
	if baseBackoffMS > 0 {
		base = baseBackoffMS
	}
	capMS := backoffCap(base, r.cfg.MaxBackoff.Milliseconds(), i)
	if capMS <= 0 {
		return 0
	}
	return time.Duration(r.jitter.Int64N(capMS+1)) * time.Millisecond
}

// backoffCap returns min(maxMS, base·2^i) without overflowing.
func backoffCap(base, maxMS int64, i int) int64 {
	c := base
	for k := 0; k < i && c < maxMS; k++ {
		c *= 2
	}
	return min(c, maxMS)
}

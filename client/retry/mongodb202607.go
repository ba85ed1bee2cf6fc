package retry

import "time"

// newMongoDB202607 is the later Client Backpressure text: MAX_RETRIES = maxAdaptiveRetries,
// backoff jitter × min(10 s, BASE × 2^attempt) with the server's baseBackoffMS as BASE when
// positive, overload retargeting as an option, no token bucket. It is the release loop
// (releases.go) with no departures: every rule at its zero value is the text's, so the presets
// differ from the text exactly by the rules they set.
func newMongoDB202607(o Options) Policy {
	return &release{name: NameMongoDB202607, r: &specText, opts: o}
}

// specText is the 2026-07 text's rule set: no departures.
var specText rules

// baseOf returns BASE for f: its baseBackoffMS when positive, else BaseBackoff.
func baseOf(f Failure) time.Duration {
	const maxMS = int64(MaxBackoff / time.Millisecond)
	if f.BaseBackoffMS > 0 {
		return time.Duration(min(f.BaseBackoffMS, maxMS)) * time.Millisecond
	}
	return BaseBackoff
}

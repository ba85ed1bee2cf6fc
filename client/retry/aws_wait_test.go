package retry

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/sim"
)

// TestAWSAdaptiveWaitOption checks aws.adaptiveWait: "reserve" by default, "recheck" accepted by
// aws-adaptive only, nothing else; only a recheck policy says its waits are re-checked
// (Notifier), and aws-standard, which has no send token bucket, is no Notifier at all.
func TestAWSAdaptiveWaitOption(t *testing.T) {
	recheck := func(a *AWSOptions) { a.AdaptiveWait = AWSWaitRecheck }
	tests := []struct {
		gloss  string
		policy string
		mod    func(*AWSOptions)
		want   string
	}{
		{"reserve, the default, with aws-adaptive", NameAWSAdaptive, nil, ""},
		{"reserve with aws-standard", NameAWSStandard, nil, ""},
		{"recheck with aws-adaptive", NameAWSAdaptive, recheck, ""},
		{"recheck with aws-standard", NameAWSStandard, recheck,
			`retry: aws.adaptiveWait: "recheck": applies only to aws-adaptive: the standard mode has no send token bucket; leave it at reserve (retryPolicy aws-standard)`},
		{"an unknown wait", NameAWSAdaptive, func(a *AWSOptions) { a.AdaptiveWait = "block" },
			`retry: aws.adaptiveWait: "block": must be "reserve" or "recheck" (retryPolicy aws-adaptive)`},
	}
	for _, tc := range tests {
		got := ""
		if err := awsOpts(tc.mod).Validate(tc.policy); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.gloss, got, tc.want)
		}
	}
	if err := awsOpts(recheck).Validate(NameGRPC); err == nil || !strings.Contains(err.Error(), "aws: given") {
		t.Errorf("an aws block with grpc: %v", err)
	}
	if _, ok := newAWS(t, NameAWSStandard, nil).(Notifier); ok {
		t.Error("aws-standard is a Notifier")
	}
	for _, tc := range []struct {
		mod  func(*AWSOptions)
		want bool
	}{{nil, false}, {recheck, true}} {
		p := newAWS(t, NameAWSAdaptive, tc.mod).(*awsAdaptive)
		if got := p.Notify(func() {}); got != tc.want || p.recheck != tc.want || (p.wake != nil) != tc.want {
			t.Errorf("adaptiveWait %v: Notify = %v (recheck %v, wake kept %v), want %v", tc.mod != nil, got, p.recheck, p.wake != nil, tc.want)
		}
	}
}

// TestAWSRecheckAcquire replays botocore's tests/unit/retries/test_bucket.py
// test_acquiring_blocks_when_capacity_reached on one look of the blocking acquire (take): a
// bucket of rate 10/s, empty at 0; at 0.1 s one token is there and taken; at 0.15 s half a token
// is, so nothing is taken and the sender sleeps _sleep_amount, (1 − 0.5) / 10 = 50 ms; at 0.2 s
// it looks again and takes the token; at 0.3 s the next one is there. Unlike acquire, take
// never leaves the balance negative.
func TestAWSRecheckAcquire(t *testing.T) {
	ms := func(v float64) sim.Time { return sim.Time(v * float64(time.Millisecond)) }
	l := newAWSLimiter()
	if d := l.take(ms(5000)); d != 0 || l.tokens != 0 {
		t.Errorf("off: waits %v, tokens %v", d, l.tokens)
	}
	l = newAWSLimiter()
	l.enabled = true
	l.setRate(10, 0)
	for _, s := range []struct {
		at   float64
		wait time.Duration
	}{{100, 0}, {150, 50 * time.Millisecond}, {200, 0}, {300.001, 0}} {
		d := l.take(ms(s.at))
		if (d-s.wait).Abs() > time.Nanosecond || l.tokens < 0 {
			t.Errorf("take at %vms: waits %v, want %v (tokens %v)", s.at, d, s.wait, l.tokens)
		}
	}
}

// TestAWSAdaptiveRecheck shows what the two waits do when the rate changes during a wait. The
// limiter is on at 1/s with an empty bucket, the measured rate 2/s (frozen here), so an attempt
// asking at 0 s waits 1 s for its token; at 0.5 s a response changes the rate. With reserve the
// attempt took its token at 0 s and goes at 1 s whatever happens. With recheck it took nothing:
// the response notifies the bucket's condition (bucket.py, the max_rate setter's notify(); the
// waiter loop of TokenBucket._acquire wakes, refills and recomputes _sleep_amount), so it looks
// again at 0.5 s, when half a token is in the bucket (refilled at the old rate up to the
// change). A success raises the rate to 4/s (the CUBIC rate, above W_max, capped at twice the
// measured rate): the other half comes 125 ms later, and the attempt goes at 0.625 s, sooner. A
// throttle lowers it to 0.7/s (β × min(measured, the old rate)): the other half takes
// 0.5 / 0.7 s, and the attempt goes at about 1.214 s, later.
func TestAWSAdaptiveRecheck(t *testing.T) {
	sec := func(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }
	tests := []struct {
		gloss    string
		wait     string
		throttle bool // the response at 0.5 s, else a success
		goAt     sim.Time
		wakes    int
	}{
		{"reserve, a rate increase", AWSWaitReserve, false, sec(1), 0},
		{"reserve, a rate decrease", AWSWaitReserve, true, sec(1), 0},
		{"recheck, a rate increase: sooner", AWSWaitRecheck, false, sec(0.625), 1},
		{"recheck, a rate decrease: later", AWSWaitRecheck, true, sec(0.5) + sim.Time(math.Ceil(0.5/0.7*1e9)), 1},
	}
	for _, tc := range tests {
		p := newAWS(t, NameAWSAdaptive, func(a *AWSOptions) { a.AdaptiveWait = tc.wait }).(*awsAdaptive)
		wakes := 0
		p.Notify(func() { wakes++ })
		l := &p.lim
		l.enabled = true
		l.setRate(1, 0)
		l.measured, l.lastBucket = 2, math.Inf(1) // no response updates the measured rate
		l.wMax, l.lastFail = 10, 0
		l.k = l.cubicK()
		var st, other State
		// The driver: the attempt asks at 0; the response comes at 0.5 s; a re-checked wait asks
		// again when it ends or when woken.
		now := sim.Time(0)
		due := now.Add(p.Admit(&st, now, noDraw{t}).Delay)
		responded := false
		for due > now {
			if !responded && due > sec(0.5) {
				responded, now = true, sec(0.5)
				p.Begin(&other, Class{}, now, sim.Never)
				if tc.throttle {
					p.Failed(&other, rejected, now, constJitter(0))
				} else {
					p.Succeeded(&other, now)
				}
				if wakes == 0 {
					continue // not woken: the wait runs on
				}
			} else {
				now = due
			}
			if tc.wait == AWSWaitReserve {
				break // the reservation was paid when it was made
			}
			due = now.Add(p.Admit(&st, now, noDraw{t}).Delay)
		}
		if now != tc.goAt || wakes != tc.wakes {
			t.Errorf("%s: goes at %v after %d wakes, want %v and %d (limiter %s)", tc.gloss, now, wakes, tc.goAt, tc.wakes, l)
		}
		if tc.wait == AWSWaitRecheck && l.tokens < 0 {
			t.Errorf("%s: recheck left %v tokens; it never reserves", tc.gloss, l.tokens)
		}
	}
}

// TestAWSRecheckWithdraw: with recheck a held-back attempt took no token, so an operation that
// ends during its wait gives none back.
func TestAWSRecheckWithdraw(t *testing.T) {
	p := newAWS(t, NameAWSAdaptive, func(a *AWSOptions) { a.AdaptiveWait = AWSWaitRecheck }).(*awsAdaptive)
	var st State
	p.Begin(&st, Class{}, 0, sim.Never)
	p.Failed(&st, rejected, 0, constJitter(0)) // on, fill 0.5/s, no tokens
	if a := p.Admit(&st, 0, noDraw{t}); a.Delay != 2*time.Second || p.lim.tokens != 0 {
		t.Fatalf("Admit: %+v with %v tokens, want a wait of 2s and none taken", a, p.lim.tokens)
	}
	p.Withdraw(&st, sim.Time(time.Second))
	if p.lim.tokens != 0 {
		t.Errorf("Withdraw gave back a token never taken: %v", p.lim.tokens)
	}
}

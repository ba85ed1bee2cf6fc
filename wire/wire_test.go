package wire

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestCodes(t *testing.T) {
	tests := []struct {
		code       Code
		name       string
		overloaded bool
		readRetry  bool
	}{
		// error_codes.yml: the SystemOverloadedError category is 433, 449, 450, 462.
		{IngressRequestRateLimitExceeded, "IngressRequestRateLimitExceeded", true, false},
		{AdmissionQueueOverflow, "AdmissionQueueOverflow", true, false},
		{RateLimitExceeded, "RateLimitExceeded", true, false},
		{PooledConnectionAcquisitionRejected, "PooledConnectionAcquisitionRejected", true, false},
		// Retryable Reads spec, "Determining Retryable Errors".
		{NotWritablePrimary, "NotWritablePrimary", false, true},
		{ShutdownInProgress, "ShutdownInProgress", false, true},
		{HostUnreachable, "HostUnreachable", false, true},
		{ExceededTimeLimit, "ExceededTimeLimit", false, true},
		{BadValue, "BadValue", false, false},
		{MaxTimeMSExpired, "MaxTimeMSExpired", false, false},
	}
	for _, tc := range tests {
		if tc.code.String() != tc.name || tc.code.IsSystemOverloaded() != tc.overloaded || tc.code.IsRetryableRead() != tc.readRetry {
			t.Errorf("%d: name %q overloaded %v retryable read %v; want %q %v %v", int(tc.code), tc.code,
				tc.code.IsSystemOverloaded(), tc.code.IsRetryableRead(), tc.name, tc.overloaded, tc.readRetry)
		}
	}
	if Code(12345).Known() || Code(12345).String() != "12345" {
		t.Error("an unnamed code must be unknown and print as its number")
	}
	if k := KnownCodes(); !slices.IsSorted(k) || len(k) != len(codeNames) {
		t.Errorf("KnownCodes() = %v", k)
	}
}

func TestLabels(t *testing.T) {
	l := RetryableError | SystemOverloadedError
	if got := l.String(); got != "[SystemOverloadedError,RetryableError]" {
		t.Errorf("String() = %s: order must be fixed, not insertion order", got)
	}
	if !l.Has(SystemOverloadedError) || l.Has(SystemOverloadedError|NoWritesPerformed) {
		t.Error("Has must require every label")
	}
	for _, n := range LabelNames() {
		if x, ok := ParseLabel(n); !ok || x.String() != "["+n+"]" {
			t.Errorf("ParseLabel(%q) does not round-trip", n)
		}
	}
	if _, ok := ParseLabel("systemOverloadedError"); ok {
		t.Error("labels are case-sensitive, as the server's are")
	}
}

func TestCommandsAndRoles(t *testing.T) {
	for c := Command(0); int(c) < NumCommands; c++ {
		if got, ok := ParseCommand(c.String()); !ok || got != c {
			t.Errorf("ParseCommand(%q) = %v, %v", c, got, ok)
		}
	}
	if r, ok := ParseRole("primary"); !ok || r != Primary || r.String() != "primary" {
		t.Error("ParseRole(primary)")
	}
	if _, ok := ParseRole("unknown"); ok {
		t.Error("unknown is not a role a scenario may set")
	}
}

type fixed time.Duration

func (f fixed) Sample(*rand.Rand) time.Duration { return time.Duration(f) }

func TestLink(t *testing.T) {
	l := NewLink(fixed(time.Millisecond), nil)
	l.SetExtra(2 * time.Millisecond)
	if d := l.Delay(); d != 3*time.Millisecond {
		t.Errorf("Delay() = %v, want 3ms", d)
	}
	l.SetExtra(-5 * time.Millisecond)
	if d := l.Delay(); d != 0 {
		t.Errorf("Delay() = %v, want 0: a delay is never negative", d)
	}
	if (Reply{Code: OK}).OK() == false || (Reply{NetErr: true}).OK() {
		t.Error("Reply.OK")
	}
}

// Couchbase statuses live in their own ranges: the same number means different things per
// service (KV 0x86 is 134, MongoDB's ReadConcernMajorityNotAvailableYet), and Number gives back
// the number on the wire.
func TestCouchbaseStatus(t *testing.T) {
	tests := []struct {
		svc  Service
		n    int
		want Code
		name string
	}{
		{ServiceKV, 0x86, KVTemporaryFailure, "KV TemporaryFailure (0x86)"},
		{ServiceKV, 0x07, KVNotMyVbucket, "KV NotMyVbucket (0x07)"},
		{ServiceKV, 0x09, KVLocked, "KV Locked (0x09)"},
		{ServiceSearch, 429, HTTPTooManyRequests, "HTTP 429 TooManyRequests"},
		{ServiceView, 302, HTTPFound, "HTTP 302 Found"},
		{ServiceQuery, 4040, QueryPreparedStatementFailure4040, "query PreparedStatementFailure (4040)"},
	}
	for _, tc := range tests {
		got, ok := CouchbaseStatus(tc.svc, tc.n)
		if !ok || got != tc.want || got.Number() != tc.n || got.String() != tc.name {
			t.Errorf("CouchbaseStatus(%v, %d) = %v (%d, %q), %v; want %v %q", tc.svc, tc.n, got, got.Number(), got.String(), ok, tc.want, tc.name)
		}
		if got.Known() || got.IsSystemOverloaded() || got.IsRetryableRead() {
			t.Errorf("%v must mean nothing to MongoDB's rules", got)
		}
	}
	for _, bad := range []struct {
		svc Service
		n   int
	}{{ServiceMongoDB, 134}, {ServiceKV, 429}, {ServiceSearch, 0x86}, {ServiceKV, -1}, {ServiceKV, 1 << 30}, {ServiceKV, 1<<32 + 0x86}} {
		if c, ok := CouchbaseStatus(bad.svc, bad.n); ok {
			t.Errorf("CouchbaseStatus(%v, %d) = %v, want none", bad.svc, bad.n, c)
		}
	}
	if Code(134).Number() != 134 || KVTemporaryFailure == Code(134) {
		t.Error("MongoDB codes keep their numbers and never equal a Couchbase status")
	}
	if s := CouchbaseStatuses(ServiceKV); len(s) != 6 || s[0] != KVNotMyVbucket {
		t.Errorf("CouchbaseStatuses(kv) = %v", s)
	}
	for c := Command(0); int(c) < NumCommands; c++ {
		if want := c >= KVGet; c.Service().Couchbase() != want {
			t.Errorf("%v.Service() = %v", c, c.Service())
		}
	}
}

// Each Couchbase service that can be overloaded has one status for it, and only those statuses
// count as overload.
func TestOverloadStatus(t *testing.T) {
	for _, tc := range []struct {
		svc  Service
		want Code
		ok   bool
	}{{ServiceKV, KVTemporaryFailure, true}, {ServiceSearch, HTTPTooManyRequests, true},
		{ServiceQuery, QueryRequestQueueFull, true}, {ServiceView, 0, false}, {ServiceMongoDB, 0, false}} {
		if c, ok := OverloadStatus(tc.svc); c != tc.want || ok != tc.ok {
			t.Errorf("OverloadStatus(%v) = %v, %v; want %v, %v", tc.svc, c, ok, tc.want, tc.ok)
		}
		if tc.ok && !tc.want.CouchbaseOverload() {
			t.Errorf("%v.CouchbaseOverload() = false", tc.want)
		}
	}
	for _, c := range []Code{KVLocked, HTTPFound, IngressRequestRateLimitExceeded} {
		if c.CouchbaseOverload() {
			t.Errorf("%v.CouchbaseOverload() = true", c)
		}
	}
}

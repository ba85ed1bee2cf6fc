package retry

import (
	"errors"
	"math"
	"slices"
	"testing"
)

// TestNew checks the registry's validation: every violation is reported with the policy, the
// option's name, its value and the rule; options a policy does not read must keep their defaults.
func TestNew(t *testing.T) {
	tests := []struct {
		gloss string
		name  string
		mod   func(*Options)
		want  string // "" = valid
	}{
		// Happy paths.
		{"2026-03 defaults", NameMongoDB202603, nil, ""},
		{"2026-03 adaptive, default capacity", NameMongoDB202603, func(o *Options) { o.AdaptiveRetries = true }, ""},
		{"2026-03 adaptive, capacity 2", NameMongoDB202603, func(o *Options) { o.AdaptiveRetries, o.RetryTokenCapacity = true, 2 }, ""},
		{"2026-07 maxAdaptiveRetries 0 disables overload retries", NameMongoDB202607, func(o *Options) { o.MaxAdaptiveRetries = 0 }, ""},
		{"2026-07 retargeting", NameMongoDB202607, func(o *Options) { o.EnableOverloadRetargeting = true }, ""},
		{"legacy, CSOT, sharded, retry options off", NameLegacy, func(o *Options) { o.CSOT, o.Sharded, o.RetryReads, o.RetryWrites = true, true, false, false }, ""},
		{"none", NameNone, nil, ""},
		// Sad paths.
		{"unknown name", "mongodb-2025-11", nil,
			`retry: unknown policy "mongodb-2025-11" (known: couchbase-besteffort, couchbase-failfast, mongodb-2026-03, mongodb-2026-07, mongodb-legacy, none)`},
		{"names are case-sensitive", "MongoDB-2026-03", nil,
			`retry: unknown policy "MongoDB-2026-03" (known: couchbase-besteffort, couchbase-failfast, mongodb-2026-03, mongodb-2026-07, mongodb-legacy, none)`},
		{"negative maxAdaptiveRetries", NameMongoDB202607, func(o *Options) { o.MaxAdaptiveRetries = -1 },
			"retry: mongodb-2026-07: maxAdaptiveRetries: -1: must be ≥ 0 (0 disables overload retries)"},
		{"NaN capacity", NameMongoDB202603, func(o *Options) { o.AdaptiveRetries, o.RetryTokenCapacity = true, math.NaN() },
			"retry: mongodb-2026-03: retryTokenCapacity: NaN: must be a finite number > 0 (0 = 1000)"},
		{"negative capacity", NameMongoDB202603, func(o *Options) { o.AdaptiveRetries, o.RetryTokenCapacity = true, -5 },
			"retry: mongodb-2026-03: retryTokenCapacity: -5: must be a finite number > 0 (0 = 1000)"},
		{"infinite capacity", NameMongoDB202603, func(o *Options) { o.AdaptiveRetries, o.RetryTokenCapacity = true, math.Inf(1) },
			"retry: mongodb-2026-03: retryTokenCapacity: +Inf: must be a finite number > 0 (0 = 1000)"},
		{"capacity without adaptiveRetries", NameMongoDB202603, func(o *Options) { o.RetryTokenCapacity = 10 },
			"retry: mongodb-2026-03: retryTokenCapacity: 10: applies only with adaptiveRetries=true"},
		{"maxAdaptiveRetries with 2026-03", NameMongoDB202603, func(o *Options) { o.MaxAdaptiveRetries = 3 },
			"retry: mongodb-2026-03: maxAdaptiveRetries: 3: applies only to mongodb-2026-07; leave it at its default 2"},
		{"zero Options with 2026-03: maxAdaptiveRetries 0 is not the default", NameMongoDB202603, func(o *Options) { *o = Options{} },
			"retry: mongodb-2026-03: maxAdaptiveRetries: 0: applies only to mongodb-2026-07; leave it at its default 2"},
		{"retargeting with 2026-03", NameMongoDB202603, func(o *Options) { o.EnableOverloadRetargeting = true },
			"retry: mongodb-2026-03: enableOverloadRetargeting: true: applies only to mongodb-2026-07"},
		{"adaptiveRetries with 2026-07", NameMongoDB202607, func(o *Options) { o.AdaptiveRetries = true },
			"retry: mongodb-2026-07: adaptiveRetries: true: applies only to mongodb-2026-03"},
		{"capacity with 2026-07", NameMongoDB202607, func(o *Options) { o.RetryTokenCapacity = 10 },
			"retry: mongodb-2026-07: retryTokenCapacity: 10: applies only to mongodb-2026-03"},
		{"every policy-specific option with legacy: all reported", NameLegacy, func(o *Options) {
			o.AdaptiveRetries, o.RetryTokenCapacity, o.MaxAdaptiveRetries, o.EnableOverloadRetargeting = true, 5, 7, true
		}, "retry: mongodb-legacy: adaptiveRetries: true: applies only to mongodb-2026-03\n" +
			"retry: mongodb-legacy: retryTokenCapacity: 5: applies only to mongodb-2026-03\n" +
			"retry: mongodb-legacy: maxAdaptiveRetries: 7: applies only to mongodb-2026-07; leave it at its default 2\n" +
			"retry: mongodb-legacy: enableOverloadRetargeting: true: applies only to mongodb-2026-07"},
		{"adaptiveRetries with none", NameNone, func(o *Options) { o.AdaptiveRetries = true },
			"retry: none: adaptiveRetries: true: applies only to mongodb-2026-03"},
	}
	for _, tc := range tests {
		o := opts(tc.mod)
		p, err := New(tc.name, o)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: New(%q, %v) error\n%s\nwant\n%s", tc.gloss, tc.name, o, got, tc.want)
			continue
		}
		if verr := o.Validate(tc.name); (verr == nil) != (err == nil) || (verr != nil && verr.Error() != got) {
			t.Errorf("%s: Validate = %v, New = %v", tc.gloss, verr, err)
		}
		if err == nil && p.Name() != tc.name {
			t.Errorf("%s: Name() = %q, want %q", tc.gloss, p.Name(), tc.name)
		}
	}
	if _, err := New("nope", DefaultOptions()); !errors.Is(err, ErrUnknownPolicy) {
		t.Errorf("New(nope): %v does not wrap ErrUnknownPolicy", err)
	}
	_, err := New(NameMongoDB202607, opts(func(o *Options) { o.MaxAdaptiveRetries = -3 }))
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Field != "maxAdaptiveRetries" || oe.Value != "-3" || oe.Policy != NameMongoDB202607 {
		t.Errorf("errors.As(%v, *OptionError) = %+v", err, oe)
	}
}

func TestNames(t *testing.T) {
	want := []string{NameCouchbaseBestEffort, NameCouchbaseFailFast, NameMongoDB202603, NameMongoDB202607, NameLegacy, NameNone}
	got := Names()
	if !slices.Equal(got, want) || !slices.IsSorted(got) {
		t.Errorf("Names() = %v, want %v (sorted)", got, want)
	}
	got[0] = "changed"
	if Names()[0] != NameCouchbaseBestEffort {
		t.Error("Names() shares its slice with the registry")
	}
}

func TestOptionsString(t *testing.T) {
	want := "adaptiveRetries=false csot=false enableOverloadRetargeting=false maxAdaptiveRetries=2 " +
		"retryReads=true retryTokenCapacity=1000 retryWrites=true sharded=false"
	if got := DefaultOptions().String(); got != want {
		t.Errorf("DefaultOptions().String() = %q, want %q", got, want)
	}
	o := opts(func(o *Options) { o.RetryTokenCapacity, o.CSOT = 2.5, true })
	if got := o.String(); got != "adaptiveRetries=false csot=true enableOverloadRetargeting=false maxAdaptiveRetries=2 "+
		"retryReads=true retryTokenCapacity=2.5 retryWrites=true sharded=false" {
		t.Errorf("String() = %q", got)
	}
}

func TestGiveUpString(t *testing.T) {
	want := []string{"Continue", "NotRetryable", "Ineligible", "MaxRetries", "Deadline", "NoToken", "Disabled", "GiveUp(7)"}
	for i, w := range want {
		if got := GiveUp(i).String(); got != w {
			t.Errorf("GiveUp(%d).String() = %q, want %q", i, got, w)
		}
	}
}

func TestFailureString(t *testing.T) {
	with50 := rejected
	with50.BaseBackoffMS = 50
	tests := []struct {
		f    Failure
		want string
	}{
		{specOverload, "BadValue(2) [SystemOverloadedError,RetryableError]"},
		{with50, "IngressRequestRateLimitExceeded(462) [SystemOverloadedError,RetryableError,NoWritesPerformed] baseBackoffMS=50"},
		{netErr, "network error"},
		{cleared, "PoolClearedError"},
	}
	for _, tc := range tests {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

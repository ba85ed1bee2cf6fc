package retry

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/overloadsim/overloadsim/field"
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
			`retry: retryPolicy: "mongodb-2025-11": unknown policy; known: aws-adaptive, aws-standard, couchbase-besteffort, couchbase-failfast, custom, envoy, finagle, grpc, mongodb-2026-03, mongodb-2026-07, mongodb-legacy, none, sre-throttle; driver releases: go-2.6.0, go-2.7.0, go-2.8.0, go-2.8.1, go-2.8.2, go-2.9.0, go-2.9.1, go-2.9.2, go-2.9.3, go-2.10.0, node-7.2.0, node-7.3.0, node-7.4.0, node-7.5.0, node-7.6.0, node-7.7.0, node-7.8.0, node-7.9.0`},
		{"names are case-sensitive", "MongoDB-2026-03", nil,
			`retry: retryPolicy: "MongoDB-2026-03": unknown policy; known: aws-adaptive, aws-standard, couchbase-besteffort, couchbase-failfast, custom, envoy, finagle, grpc, mongodb-2026-03, mongodb-2026-07, mongodb-legacy, none, sre-throttle; driver releases: go-2.6.0, go-2.7.0, go-2.8.0, go-2.8.1, go-2.8.2, go-2.9.0, go-2.9.1, go-2.9.2, go-2.9.3, go-2.10.0, node-7.2.0, node-7.3.0, node-7.4.0, node-7.5.0, node-7.6.0, node-7.7.0, node-7.8.0, node-7.9.0`},
		{"negative maxAdaptiveRetries", NameMongoDB202607, func(o *Options) { o.MaxAdaptiveRetries = -1 },
			"retry: maxAdaptiveRetries: -1: must be ≥ 0 (0 disables overload retries) (retryPolicy mongodb-2026-07)"},
		{"NaN capacity", NameMongoDB202603, func(o *Options) { o.AdaptiveRetries, o.RetryTokenCapacity = true, math.NaN() },
			"retry: retryTokenCapacity: NaN: must be a finite number > 0 (0 = 1000) (retryPolicy mongodb-2026-03)"},
		{"negative capacity", NameMongoDB202603, func(o *Options) { o.AdaptiveRetries, o.RetryTokenCapacity = true, -5 },
			"retry: retryTokenCapacity: -5: must be a finite number > 0 (0 = 1000) (retryPolicy mongodb-2026-03)"},
		{"infinite capacity", NameMongoDB202603, func(o *Options) { o.AdaptiveRetries, o.RetryTokenCapacity = true, math.Inf(1) },
			"retry: retryTokenCapacity: +Inf: must be a finite number > 0 (0 = 1000) (retryPolicy mongodb-2026-03)"},
		{"capacity without adaptiveRetries", NameMongoDB202603, func(o *Options) { o.RetryTokenCapacity = 10 },
			"retry: retryTokenCapacity: 10: applies only with adaptiveRetries=true (retryPolicy mongodb-2026-03)"},
		{"maxAdaptiveRetries with 2026-03", NameMongoDB202603, func(o *Options) { o.MaxAdaptiveRetries = 3 },
			"retry: maxAdaptiveRetries: 3: applies only to mongodb-2026-07 and the driver release presets (go-*, node-*); leave it at its default 2 (retryPolicy mongodb-2026-03)"},
		{"zero Options with 2026-03: maxAdaptiveRetries 0 is not the default", NameMongoDB202603, func(o *Options) { *o = Options{} },
			"retry: maxAdaptiveRetries: 0: applies only to mongodb-2026-07 and the driver release presets (go-*, node-*); leave it at its default 2 (retryPolicy mongodb-2026-03)"},
		{"retargeting with 2026-03", NameMongoDB202603, func(o *Options) { o.EnableOverloadRetargeting = true },
			"retry: enableOverloadRetargeting: true: applies only to mongodb-2026-07 and the driver release presets (go-*, node-*) (retryPolicy mongodb-2026-03)"},
		{"timeoutMS with a release that ignores it", "node-7.9.0", func(o *Options) { o.CSOT = true },
			"retry: timeoutMS: set: this release ignores timeoutMS (deprecated there; docs/drivers.md §3): leave it unset, or model a release that reads it (retryPolicy node-7.9.0)"},
		{"timeoutMS with a release that reads it", "node-7.7.0", func(o *Options) { o.CSOT = true }, ""},
		{"adaptiveRetries with 2026-07", NameMongoDB202607, func(o *Options) { o.AdaptiveRetries = true },
			"retry: adaptiveRetries: true: applies only to mongodb-2026-03 (retryPolicy mongodb-2026-07)"},
		{"capacity with 2026-07", NameMongoDB202607, func(o *Options) { o.RetryTokenCapacity = 10 },
			"retry: retryTokenCapacity: 10: applies only to mongodb-2026-03 (retryPolicy mongodb-2026-07)"},
		{"every policy-specific option with legacy: all reported", NameLegacy, func(o *Options) {
			o.AdaptiveRetries, o.RetryTokenCapacity, o.MaxAdaptiveRetries, o.EnableOverloadRetargeting = true, 5, 7, true
		}, "retry: adaptiveRetries: true: applies only to mongodb-2026-03 (retryPolicy mongodb-legacy)\n" +
			"retry: retryTokenCapacity: 5: applies only to mongodb-2026-03 (retryPolicy mongodb-legacy)\n" +
			"retry: maxAdaptiveRetries: 7: applies only to mongodb-2026-07 and the driver release presets (go-*, node-*); leave it at its default 2 (retryPolicy mongodb-legacy)\n" +
			"retry: enableOverloadRetargeting: true: applies only to mongodb-2026-07 and the driver release presets (go-*, node-*) (retryPolicy mongodb-legacy)"},
		{"adaptiveRetries with none", NameNone, func(o *Options) { o.AdaptiveRetries = true },
			"retry: adaptiveRetries: true: applies only to mongodb-2026-03 (retryPolicy none)"},
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
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != "maxAdaptiveRetries" || fe.Value != "-3" ||
		fe.Rule != "must be ≥ 0 (0 disables overload retries) (retryPolicy "+NameMongoDB202607+")" {
		t.Errorf("errors.As(%v, *field.Error) = %+v", err, fe)
	}
	_, err = New("nope", DefaultOptions())
	if !errors.As(err, &fe) || fe.Field != "retryPolicy" || fe.Value != `"nope"` {
		t.Errorf("errors.As(%v, *field.Error) = %+v; want the field retryPolicy", err, fe)
	}
}

func TestNames(t *testing.T) {
	want := []string{NameAWSAdaptive, NameAWSStandard, NameCouchbaseBestEffort, NameCouchbaseFailFast, NameCustom, NameEnvoy,
		NameFinagle, NameGRPC, NameMongoDB202603, NameMongoDB202607, NameLegacy, NameNone, NameSRE}
	for _, r := range releases {
		want = append(want, r.name)
	}
	slices.Sort(want)
	got := Names()
	if !slices.Equal(got, want) || !slices.IsSorted(got) {
		t.Errorf("Names() = %v, want %v (sorted)", got, want)
	}
	got[0] = "changed"
	if Names()[0] != NameAWSAdaptive {
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
	want := []string{"Continue", "NotRetryable", "Ineligible", "MaxRetries", "Deadline", "NoToken", "Disabled", "Budget", "Breaker", "PushbackStop", "GiveUp(10)"}
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

// TestMaker: a maker validates once and makes a new policy at each call, each with its own token
// bucket (a client's own), and refuses what New refuses with New's error.
func TestMaker(t *testing.T) {
	o := DefaultOptions()
	o.AdaptiveRetries = true
	mk, err := Maker(NameMongoDB202603, o)
	if err != nil {
		t.Fatal(err)
	}
	a, b := mk(), mk()
	if a.Name() != NameMongoDB202603 || TokenBucket(a) == nil || TokenBucket(a) == TokenBucket(b) {
		t.Fatalf("Maker made %s with bucket %p and %s with bucket %p: want two mongodb-2026-03 policies with buckets of their own",
			a.Name(), TokenBucket(a), b.Name(), TokenBucket(b))
	}
	o.RetryTokenCapacity = -5
	_, errNew := New(NameMongoDB202603, o)
	if _, err := Maker(NameMongoDB202603, o); err == nil || errNew == nil || err.Error() != errNew.Error() {
		t.Fatalf("Maker error %v, New error %v: want the same error", err, errNew)
	}
}

// TestBlocks checks the registry's option blocks: their keys, each once and in registry order
// (a scenario's canonical text writes a driver's block fields in this order), a new block with
// its type's defaults under each, and nothing under another key.
func TestBlocks(t *testing.T) {
	want := []string{"grpc", "aws", "finagle", "envoy", "sre", "custom"}
	if got := BlockKeys(); !slices.Equal(got, want) {
		t.Errorf("BlockKeys() = %q, want %q", got, want)
	}
	// A key is one type, and a type one key: BlockKey knows a block by its type.
	types := map[string]reflect.Type{}
	keys := map[reflect.Type]string{}
	for i := range registry {
		k := registry[i].block
		if k == nil {
			continue
		}
		if typ, ok := types[k.key]; ok && typ != k.typ || keys[k.typ] != "" && keys[k.typ] != k.key {
			t.Errorf("%s: block %s of type %v; another entry has %s of type %v", registry[i].name, k.key, k.typ, keys[k.typ], typ)
		}
		types[k.key], keys[k.typ] = k.typ, k.key
	}
	for _, key := range BlockKeys() {
		b := NewBlock(key)
		if got := BlockKey(b); got != key {
			t.Errorf("BlockKey(NewBlock(%q)) = %q, want %q", key, got, key)
		}
	}
	var g GRPCOptions
	g.SetDefaults()
	if b, ok := NewBlock("grpc").(*GRPCOptions); !ok || !reflect.DeepEqual(*b, g) {
		t.Errorf("NewBlock(grpc) = %#v, want %#v", b, g)
	}
	if b := NewBlock("mongodb"); b != nil {
		t.Errorf("NewBlock(mongodb) = %#v, want nil", b)
	}
	if key := BlockKey(nil); key != "" {
		t.Errorf("BlockKey(nil) = %q, want \"\"", key)
	}
	// A policy without a block given one gets its defaults: New builds it as with none.
	for _, name := range []string{NameGRPC, NameAWSAdaptive, NameFinagle, NameEnvoy, NameSRE, NameCustom} {
		if _, err := New(name, DefaultOptions()); err != nil {
			t.Errorf("New(%s) without a block: %v", name, err)
		}
	}
}

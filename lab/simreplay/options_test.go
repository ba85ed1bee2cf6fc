package simreplay

import (
	"strings"
	"testing"
	"time"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/lab/experiment"
)

// exp returns a valid one-node find experiment with the given URI options.
func exp(uri map[string]string) *experiment.Experiment {
	return &experiment.Experiment{Name: "x", Doc: "x", Rules: []string{"attempts"},
		Topology: experiment.Topology{Kind: "standalone", Nodes: 1}, URI: uri, Operation: "find",
		Count: 1, Concurrency: 1}
}

// TestClientOptions: each modelled connection-string option sets its client option; options a
// policy does not read are left at their defaults, as a release that does not know them ignores
// them; the read preference is the experiment's.
func TestClientOptions(t *testing.T) {
	cases := []struct {
		policy string
		uri    map[string]string
		check  func(c client.Options) bool
	}{
		{spec, nil, func(c client.Options) bool {
			d := client.DefaultOptions()
			return c.RetryPolicy == spec && c.Retry.RetryReads && c.Retry.RetryWrites && c.Timeout == 0 &&
				c.Retry.MaxAdaptiveRetries == d.Retry.MaxAdaptiveRetries && !c.Retry.EnableOverloadRetargeting
		}},
		{spec, map[string]string{"retryReads": "false", "retryWrites": "false"}, func(c client.Options) bool {
			return !c.Retry.RetryReads && !c.Retry.RetryWrites
		}},
		{spec, map[string]string{"timeoutMS": "1500"}, func(c client.Options) bool { return c.Timeout == 1500*time.Millisecond }},
		{spec, map[string]string{"maxAdaptiveRetries": "4", "enableOverloadRetargeting": "true"}, func(c client.Options) bool {
			return c.Retry.MaxAdaptiveRetries == 4 && c.Retry.EnableOverloadRetargeting
		}},
		{"mongodb-2026-03", map[string]string{"maxAdaptiveRetries": "4", "enableOverloadRetargeting": "true"}, func(c client.Options) bool {
			return c.Retry.MaxAdaptiveRetries == client.DefaultOptions().Retry.MaxAdaptiveRetries && !c.Retry.EnableOverloadRetargeting
		}},
		{"mongodb-2026-03", map[string]string{"adaptiveRetries": "true"}, func(c client.Options) bool { return c.Retry.AdaptiveRetries }},
		{spec, map[string]string{"adaptiveRetries": "true"}, func(c client.Options) bool { return !c.Retry.AdaptiveRetries }},
		{spec, map[string]string{"serverMonitoringMode": "poll", "directConnection": "true"}, func(c client.Options) bool { return true }},
	}
	for _, tc := range cases {
		c, err := ClientOptions(exp(tc.uri), Options{Policy: tc.policy})
		if err != nil {
			t.Errorf("%s %v: %v", tc.policy, tc.uri, err)
			continue
		}
		if !tc.check(c) || c.ReadPreference.Mode != selection.Primary {
			t.Errorf("%s %v: options %+v", tc.policy, tc.uri, c)
		}
	}
	e := exp(nil)
	e.Topology, e.ReadPreference = experiment.Topology{Kind: "replicaset", Nodes: 2}, "primaryPreferred"
	if c, err := ClientOptions(e, Options{Policy: spec}); err != nil || c.ReadPreference.Mode != selection.PrimaryPreferred {
		t.Errorf("read preference %v, %v; want primaryPreferred", c.ReadPreference, err)
	}
}

// TestRefusals: what the simulator cannot model is refused, naming the field, the value and the
// reason.
func TestRefusals(t *testing.T) {
	overloadErr := &experiment.Error{Code: 462, Labels: experiment.Overloaded}
	cases := []struct {
		name   string
		policy string
		mod    func(e *experiment.Experiment)
		want   string
	}{
		{"no policy", "", nil, "policy: empty"},
		{"unknown policy", "mongodb-1999", nil, `retryPolicy: "mongodb-1999"`},
		{"unknown option", spec, func(e *experiment.Experiment) { e.URI = map[string]string{"compressors": "zstd"} },
			`uri.compressors: "zstd": the simulator's replay does not model this option`},
		{"CSOT without a deadline", spec, func(e *experiment.Experiment) { e.URI = map[string]string{"timeoutMS": "0"} },
			`uri.timeoutMS: "0": must be a whole number of milliseconds > 0`},
		{"bad bool", spec, func(e *experiment.Experiment) { e.URI = map[string]string{"retryReads": "no"} },
			`uri.retryReads: "no": must be true or false`},
		{"negative retries", spec, func(e *experiment.Experiment) { e.URI = map[string]string{"maxAdaptiveRetries": "-1"} },
			`uri.maxAdaptiveRetries: "-1": must be a whole number ≥ 0`},
		{"streaming monitor", spec, func(e *experiment.Experiment) { e.URI = map[string]string{"serverMonitoringMode": "stream"} },
			`uri.serverMonitoringMode: "stream": must be poll`},
		{"direct replica set", spec, func(e *experiment.Experiment) {
			e.Topology, e.URI = experiment.Topology{Kind: "replicaset", Nodes: 2}, map[string]string{"directConnection": "true"}
		}, `uri.directConnection: "true": must be false for a replicaset topology`},
		{"handshake auth error", spec, func(e *experiment.Experiment) {
			e.Handshake = []experiment.Answer{{Error: &experiment.Error{Code: 18}}}
		}, "handshake[0].error: code 18 without SystemOverloadedError: the simulated client takes every failed handshake for an overloaded one"},
		{"handshake base backoff", spec, func(e *experiment.Experiment) {
			e.Handshake = []experiment.Answer{{Error: &experiment.Error{Code: 462, Labels: experiment.Overloaded, BaseBackoffMS: 20}}}
		}, "handshake[0].error.baseBackoffMS: 20: the simulated client's failed handshake carries no baseBackoffMS"},
		{"unknown label", spec, func(e *experiment.Experiment) {
			e.Script = []experiment.Entry{{Command: "find", Answers: []experiment.Answer{{Error: &experiment.Error{Code: 462, Labels: []string{"Busy"}}}}}}
		}, `script[0].answers[0].error.labels[0]: "Busy": the simulator has no such label`},
		{"invalid experiment", spec, func(e *experiment.Experiment) { e.Count = 0 }, "count: 0"},
	}
	for _, tc := range cases {
		e := exp(nil)
		e.Handshake = []experiment.Answer{{Error: overloadErr}}
		if tc.mod != nil {
			tc.mod(e)
		}
		_, err := Replay(e, Options{Policy: tc.policy})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := Replay(nil, Options{Policy: spec}); err == nil {
		t.Error("a nil experiment replayed")
	}
}

// TestIgnoredOptions: the options a policy does not read are named; those it reads, or that
// keep their defaults, are not.
func TestIgnoredOptions(t *testing.T) {
	e := exp(map[string]string{"maxAdaptiveRetries": "4", "enableOverloadRetargeting": "true", "adaptiveRetries": "false", "retryReads": "false"})
	for _, tc := range []struct {
		policy string
		want   string
	}{
		{"mongodb-2026-03", "enableOverloadRetargeting,maxAdaptiveRetries"},
		{spec, ""},
		{"mongodb-legacy", "enableOverloadRetargeting,maxAdaptiveRetries"},
	} {
		if got := strings.Join(IgnoredOptions(e, Options{Policy: tc.policy}), ","); got != tc.want {
			t.Errorf("%s ignores %q, want %q", tc.policy, got, tc.want)
		}
	}
}

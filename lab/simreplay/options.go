package simreplay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/client"
	"github.com/overloadsim/overloadsim/client/retry"
	"github.com/overloadsim/overloadsim/client/selection"
	"github.com/overloadsim/overloadsim/lab/experiment"
)

// Options say what the simulator replays an experiment with.
type Options struct {
	// Policy names the client's retry policy, one of the simulator's (client.Options.RetryPolicy),
	// e.g. "mongodb-2026-07". Required.
	Policy string
	// Seed seeds the client's random stream: backoff jitter and server selection. The same
	// experiment and Seed give the same record.
	Seed uint64
}

// Release names what o replays as a record's Release: "sim:" and the policy.
func (o Options) Release() string { return "sim:" + o.Policy }

// ClientOptions returns the options of the client that replays e with o: the drivers' defaults,
// then what o stands for (base), then the experiment's connection-string options (applyURI), and
// e's read preference.
func ClientOptions(e *experiment.Experiment, o Options) (client.Options, error) {
	c, err := base(o)
	if err != nil {
		return c, err
	}
	if err := applyURI(&c, e); err != nil {
		return c, err
	}
	if retry.IgnoresTimeoutMS(c.RetryPolicy) {
		// The release ignores timeoutMS (the real runner gets it in the URI and drops it).
		c.Timeout = 0
	}
	mode := selection.Primary
	if e.ReadPreference != "" {
		m, ok := selection.ParseMode(e.ReadPreference)
		if !ok {
			return c, fmt.Errorf("readPreference: %q: not a read preference mode", e.ReadPreference)
		}
		mode = m
	}
	c.ReadPreference = selection.ReadPreference{Mode: mode}
	return c, nil
}

// base returns the client options o stands for before the experiment's own: the drivers'
// defaults with o's retry policy. It is the one place that reads Options.
func base(o Options) (client.Options, error) {
	c := client.DefaultOptions()
	if o.Policy == "" {
		return c, fmt.Errorf("policy: empty: name a retry policy (%s)", strings.Join(retry.Names(), ", "))
	}
	if err := retry.DefaultOptions().Validate(o.Policy); err != nil {
		return c, fmt.Errorf("policy: %w", err)
	}
	c.RetryPolicy = o.Policy
	return c, nil
}

// uriOption sets one connection-string option on c from its value v; kind is the experiment's
// topology kind.
type uriOption func(c *client.Options, v, kind string) error

// uriOptions are the connection-string options the replay models. The harness adds
// serverMonitoringMode=poll and, for a standalone, directConnection=true to every real run; the
// simulator's monitor polls and its single topology is a direct connection, so those two are
// accepted with exactly the harness's values.
var uriOptions = map[string]uriOption{
	"retryReads":  boolOption(func(c *client.Options, b bool) { c.Retry.RetryReads = b }),
	"retryWrites": boolOption(func(c *client.Options, b bool) { c.Retry.RetryWrites = b }),
	"timeoutMS": func(c *client.Options, v, _ string) error {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			// A driver's timeoutMS=0 turns CSOT on with no deadline; the simulator's CSOT is
			// on exactly when there is a deadline.
			return fmt.Errorf("must be a whole number of milliseconds > 0 (the simulator cannot model CSOT without a deadline)")
		}
		c.Timeout = time.Duration(ms) * time.Millisecond
		return nil
	},
	"maxAdaptiveRetries": func(c *client.Options, v, _ string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("must be a whole number ≥ 0")
		}
		if reads(c.RetryPolicy, "maxAdaptiveRetries", v) {
			c.Retry.MaxAdaptiveRetries = n
		}
		return nil
	},
	"enableOverloadRetargeting": boolOption(func(c *client.Options, b bool) {
		if reads(c.RetryPolicy, "enableOverloadRetargeting", strconv.FormatBool(b)) {
			c.Retry.EnableOverloadRetargeting = b
		}
	}),
	"adaptiveRetries": boolOption(func(c *client.Options, b bool) {
		if reads(c.RetryPolicy, "adaptiveRetries", strconv.FormatBool(b)) {
			c.Retry.AdaptiveRetries = b
		}
	}),
	"serverMonitoringMode": func(_ *client.Options, v, _ string) error {
		if v != "poll" {
			return fmt.Errorf("must be poll: the simulator's monitor polls")
		}
		return nil
	},
	"directConnection": func(_ *client.Options, v, kind string) error {
		if want := strconv.FormatBool(kind == "standalone"); v != want {
			return fmt.Errorf("must be %s for a %s topology: the simulator connects directly exactly to a standalone", want, kind)
		}
		return nil
	},
}

// boolOption is an option whose value is true or false.
func boolOption(set func(c *client.Options, b bool)) uriOption {
	return func(c *client.Options, v, _ string) error {
		switch v {
		case "true", "false":
			set(c, v == "true")
			return nil
		}
		return fmt.Errorf("must be true or false")
	}
}

// policyOptions set the connection-string options that only some retry policies read on a
// policy's options, from a value uriOptions has checked.
var policyOptions = map[string]func(r *retry.Options, v string){
	"maxAdaptiveRetries":        func(r *retry.Options, v string) { r.MaxAdaptiveRetries, _ = strconv.Atoi(v) },
	"enableOverloadRetargeting": func(r *retry.Options, v string) { r.EnableOverloadRetargeting = v == "true" },
	"adaptiveRetries":           func(r *retry.Options, v string) { r.AdaptiveRetries = v == "true" },
}

// reads reports whether the retry policy called name reads option at value v (one of
// policyOptions). A policy that does not read it ignores it, as a release that does not know a
// connection-string option ignores it: the experiment then shows the policy's own behaviour.
// An option at its default is read by every policy.
func reads(name, option, v string) bool {
	r := retry.DefaultOptions()
	policyOptions[option](&r, v)
	return r.Validate(name) == nil
}

// IgnoredOptions returns the experiment's connection-string options that o's retry policy does
// not read and the replay therefore leaves at their defaults, sorted: for a report to say so.
func IgnoredOptions(e *experiment.Experiment, o Options) []string {
	var out []string
	for k, v := range e.URI {
		if _, ok := policyOptions[k]; ok && !reads(o.Policy, k, v) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// applyURI sets e's connection-string options on c, refusing any the replay does not model.
func applyURI(c *client.Options, e *experiment.Experiment) error {
	keys := make([]string, 0, len(e.URI))
	for k := range e.URI {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		set, ok := uriOptions[k]
		if !ok {
			known := make([]string, 0, len(uriOptions))
			for name := range uriOptions {
				known = append(known, name)
			}
			slices.Sort(known)
			return fmt.Errorf("uri.%s: %q: the simulator's replay does not model this option (it models %s)",
				k, e.URI[k], strings.Join(known, ", "))
		}
		if err := set(c, e.URI[k], e.Topology.Kind); err != nil {
			return fmt.Errorf("uri.%s: %q: %w", k, e.URI[k], err)
		}
	}
	return nil
}

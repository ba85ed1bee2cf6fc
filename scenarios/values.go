package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/client/workload"
	"github.com/overloadsim/overloadsim/dist"
	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/server/failpoint"
)

// Dist is a duration distribution in its short syntax: a bare duration (5ms, a constant),
// const(1ms), exp(5ms), lognormal(3ms, 0.5), gamma(5ms, 2), uniform(1ms, 3ms),
// empirical(1ms, 2ms, 5ms) or empirical(file.csv), a file of values read relative to the
// scenario file (see dist.ReadEmpiricalCSV for its format).
type Dist struct {
	D dist.Duration // the distribution; nil when not set
}

// String returns the distribution's canonical text, e.g. exp(5ms).
func (x Dist) String() string {
	if x.D == nil {
		return ""
	}
	return x.D.String()
}

func (x *Dist) decodeYAML(d *decoder, n *node, path string) {
	if n.kind != scalarNode {
		if n.kind == nullNode {
			x.D = nil
			return
		}
		d.problem(n, path, describe(n), "must be a distribution such as exp(5ms), lognormal(3ms, 0.5), const(1ms) or empirical(file.csv)")
		return
	}
	v, err := dist.ParseWith(n.text, d.empirical)
	if err != nil {
		// The field error's value is the text, which the problem gives as written.
		rule := err.Error()
		if fe := (*field.Error)(nil); errors.As(err, &fe) {
			rule = fe.Rule
		}
		d.problem(n, path, n.text, rule)
		return
	}
	x.D = v
}

func (x Dist) encodeYAML() *node { return scalar(x.String()) }

// empirical loads the values of empirical(file) through the scenario's file reader.
func (d *decoder) empirical(name string) ([]time.Duration, error) {
	data, err := d.files(name)
	if err != nil {
		return nil, err
	}
	return dist.ReadEmpiricalCSV(bytes.NewReader(data))
}

// Warmup is the start of a run left out of its summary: a fixed duration, or auto (MSER-5,
// chosen from the run's own time series).
type Warmup struct {
	Auto  bool          // choose by MSER-5 after the run
	Fixed time.Duration // the warm-up when not Auto
}

// String returns auto or the duration.
func (w Warmup) String() string {
	if w.Auto {
		return "auto"
	}
	return w.Fixed.String()
}

func (w *Warmup) decodeYAML(d *decoder, n *node, path string) {
	if n.kind == scalarNode && n.text == "auto" {
		*w = Warmup{Auto: true}
		return
	}
	if n.kind != scalarNode {
		d.problem(n, path, describe(n), "must be a duration such as 10s, or auto")
		return
	}
	v, rule := parseDuration(n.text, false)
	if rule != "" {
		d.problem(n, path, n.text, "must be a duration such as 10s, or auto")
		return
	}
	*w = Warmup{Fixed: v}
}

func (w Warmup) encodeYAML() *node { return scalar(w.String()) }

// RatePoint is one knot of a piecewise profile: the rate at time At since the start of the run.
type RatePoint struct {
	At   time.Duration `yaml:"at"`        // since the start of the run
	Rate float64       `yaml:"rate,rate"` // operations per second
}

// Profile is a load profile: a group's rate of operations over time. In a file it is written
// as a rate (2000/s, a constant), as trace(file.csv), or as a mapping with a kind and the
// kind's parameters:
//
//	kind       parameters (rates in ops/s such as 2000/s, times since the start of the run)
//	constant   rate
//	step       before, after, at
//	ramp       from, to, start, end
//	spike      base, peak, start, duration
//	sine       mean, amplitude, period, phase (radians, default 0)
//	piecewise  points: a list of {at, rate}, linear between them
//	trace      file: a CSV of time, rate (see workload.ReadTraceCSV), a step per sample
type Profile struct {
	// Kind is constant, step, ramp, spike, sine, piecewise or trace; only its parameters are
	// set.
	Kind string

	Rate            float64 // constant
	Before, After   float64 // step
	At              time.Duration
	From, To        float64 // ramp
	Start, End      time.Duration
	Base, Peak      float64 // spike (with Start)
	Duration        time.Duration
	Mean, Amplitude float64 // sine
	Period          time.Duration
	Phase           float64
	Points          []RatePoint // piecewise
	File            string      // trace

	p workload.Profile
}

// profileFields is the mapping form of a Profile, field for field.
type profileFields struct {
	Kind      string        `yaml:"kind"`
	Rate      float64       `yaml:"rate,rate"`
	Before    float64       `yaml:"before,rate"`
	After     float64       `yaml:"after,rate"`
	At        time.Duration `yaml:"at"`
	From      float64       `yaml:"from,rate"`
	To        float64       `yaml:"to,rate"`
	Start     time.Duration `yaml:"start"`
	End       time.Duration `yaml:"end"`
	Base      float64       `yaml:"base,rate"`
	Peak      float64       `yaml:"peak,rate"`
	Duration  time.Duration `yaml:"duration"`
	Mean      float64       `yaml:"mean,rate"`
	Amplitude float64       `yaml:"amplitude,rate"`
	Period    time.Duration `yaml:"period"`
	Phase     float64       `yaml:"phase"`
	Points    []RatePoint   `yaml:"points"`
	File      string        `yaml:"file"`
}

// profileParams lists each kind's parameters, in canonical order; optional ones are marked.
var profileParams = []struct {
	kind     string
	params   []string
	optional []string
}{
	{"constant", []string{"rate"}, nil},
	{"step", []string{"before", "after", "at"}, nil},
	{"ramp", []string{"from", "to", "start", "end"}, nil},
	{"spike", []string{"base", "peak", "start", "duration"}, nil},
	{"sine", []string{"mean", "amplitude", "period", "phase"}, []string{"phase"}},
	{"piecewise", []string{"points"}, nil},
	{"trace", []string{"file"}, nil},
}

func profileKinds() []string {
	out := make([]string, len(profileParams))
	for i, k := range profileParams {
		out[i] = k.kind
	}
	return out
}

// Built returns the workload profile; nil until the scenario has been validated.
func (x *Profile) Built() workload.Profile { return x.p }

// String returns the profile's canonical text as the workload package prints it, e.g.
// spike(1000/s, 3000/s, 10s, 20s).
func (x *Profile) String() string {
	if x.p == nil {
		return x.Kind
	}
	return x.p.String()
}

func (x *Profile) decodeYAML(d *decoder, n *node, path string) {
	*x = Profile{}
	switch n.kind {
	case nullNode:
		return
	case seqNode:
		d.problem(n, path, describe(n), "must be a rate such as 2000/s, trace(file.csv), or a mapping with a kind ("+strings.Join(profileKinds(), ", ")+")")
		return
	case scalarNode:
		if file, ok := strings.CutPrefix(n.text, "trace("); ok && strings.HasSuffix(file, ")") {
			x.Kind, x.File = "trace", strings.TrimSpace(strings.TrimSuffix(file, ")"))
			x.load(d, n, path)
			return
		}
		r, rule := parseNumber(n.text, true)
		if rule != "" || !strings.HasSuffix(n.text, "/s") && n.text != "0" {
			d.problem(n, path, n.text, "must be a rate such as 2000/s, trace(file.csv), or a mapping with a kind ("+strings.Join(profileKinds(), ", ")+")")
			return
		}
		x.Kind, x.Rate = "constant", r
		x.build(d, n, path)
		return
	}
	var f profileFields
	before := len(d.probs)
	d.decodeStruct(n, reflect.ValueOf(&f).Elem(), path)
	if len(d.probs) > before {
		return
	}
	*x = Profile{Kind: f.Kind, Rate: f.Rate, Before: f.Before, After: f.After, At: f.At, From: f.From, To: f.To,
		Start: f.Start, End: f.End, Base: f.Base, Peak: f.Peak, Duration: f.Duration, Mean: f.Mean,
		Amplitude: f.Amplitude, Period: f.Period, Phase: f.Phase, Points: f.Points, File: f.File}
	i := slices.IndexFunc(profileParams, func(p struct {
		kind     string
		params   []string
		optional []string
	}) bool {
		return p.kind == f.Kind
	})
	if i < 0 {
		kn := n.get("kind")
		if kn == nil {
			d.problem(n, path+".kind", "(missing)", "required: one of "+strings.Join(profileKinds(), ", "))
		} else {
			d.problem(kn, path+".kind", describe(kn), "must be one of "+strings.Join(profileKinds(), ", "))
		}
		return
	}
	spec := profileParams[i]
	ok := true
	for j, k := range n.keys {
		if k.text != "kind" && !slices.Contains(spec.params, k.text) {
			d.problem(n.vals[j], path+"."+k.text, describe(n.vals[j]), "not a parameter of a "+f.Kind+" profile ("+strings.Join(spec.params, ", ")+")")
			ok = false
		}
	}
	for _, p := range spec.params {
		if n.get(p) == nil && !slices.Contains(spec.optional, p) {
			d.problem(n, path+"."+p, "(missing)", "required for a "+f.Kind+" profile")
			ok = false
		}
	}
	if !ok {
		return
	}
	if f.Kind == "trace" {
		x.load(d, n.get("file"), path+".file")
		return
	}
	x.build(d, n, path)
}

// load reads a trace file and builds the profile.
func (x *Profile) load(d *decoder, n *node, path string) {
	if x.File == "" {
		d.problem(n, path, `""`, "must name a CSV file of time, rate")
		return
	}
	data, err := d.files(x.File)
	if err == nil {
		var pts []workload.Point
		if pts, err = workload.ReadTraceCSV(bytes.NewReader(data)); err == nil {
			x.p, err = workload.TraceFile(x.File, pts)
		}
	}
	// A problem in the file is the file's: its field error, line and column, is the rule.
	for _, part := range field.Parts(err) {
		rule := part.Error()
		if fe := (*field.Error)(nil); errors.As(part, &fe) {
			rule = fe.Error()
		}
		d.problem(n, path, x.File, rule)
	}
}

// build makes the workload profile and re-attributes its constructor's errors to the
// parameters they name: a field error's field is a parameter (end) or a point's (points[2].at).
func (x *Profile) build(d *decoder, n *node, path string) {
	var err error
	switch x.Kind {
	case "constant":
		x.p, err = workload.Constant(x.Rate)
	case "step":
		x.p, err = workload.Step(x.Before, x.After, x.At)
	case "ramp":
		x.p, err = workload.Ramp(x.From, x.To, x.Start, x.End)
	case "spike":
		x.p, err = workload.Spike(x.Base, x.Peak, x.Start, x.Duration)
	case "sine":
		x.p, err = workload.Sine(x.Mean, x.Amplitude, x.Period, x.Phase)
	case "piecewise":
		pts := make([]workload.Point, len(x.Points))
		for i, p := range x.Points {
			pts[i] = workload.Point{T: p.At, Rate: p.Rate}
		}
		x.p, err = workload.Piecewise(pts)
	}
	for _, part := range field.Parts(err) {
		var fe *field.Error
		if !errors.As(part, &fe) {
			d.problem(n, path, describe(n), part.Error())
			continue
		}
		// A parameter the file writes is the problem's field; a rate written as 2000/s has none.
		if fn := n.lookup(fe.Field); fn != nil {
			d.problem(fn, field.Join(path, fe.Field), fe.Value, fe.Rule)
		} else {
			d.problem(n, path, fe.Value, fe.Rule)
		}
	}
}

func (x Profile) encodeYAML() *node {
	switch x.Kind {
	case "constant":
		return scalar(formatFloat(x.Rate) + "/s")
	case "trace":
		return scalar("trace(" + x.File + ")")
	}
	f := profileFields{Kind: x.Kind, Rate: x.Rate, Before: x.Before, After: x.After, At: x.At, From: x.From,
		To: x.To, Start: x.Start, End: x.End, Base: x.Base, Peak: x.Peak, Duration: x.Duration, Mean: x.Mean,
		Amplitude: x.Amplitude, Period: x.Period, Phase: x.Phase, Points: x.Points, File: x.File}
	full := encode(reflect.ValueOf(f), fieldInfo{})
	m := &node{kind: mapNode, keys: []*node{scalar("kind")}, vals: []*node{scalar(x.Kind)}}
	for _, spec := range profileParams {
		if spec.kind != x.Kind {
			continue
		}
		for _, p := range spec.params {
			m.keys = append(m.keys, scalar(p))
			m.vals = append(m.vals, full.get(p))
		}
	}
	return m
}

// FailMode is configureFailPoint's mode: alwaysOn, off, {times: N}, {skip: N} or
// {activationProbability: P}.
type FailMode struct {
	failpoint.Mode // the mode, as the failpoint package holds it
}

func (m *FailMode) decodeYAML(d *decoder, n *node, path string) {
	const want = "must be alwaysOn, off, {times: N}, {skip: N} or {activationProbability: P}"
	switch {
	case n.kind == scalarNode && n.text == "alwaysOn":
		m.Mode = failpoint.AlwaysOn()
	case n.kind == scalarNode && n.text == "off":
		m.Mode = failpoint.Off()
	case n.kind == mapNode && len(n.keys) == 1:
		v := n.vals[0]
		fp := path + "." + n.keys[0].text
		d.at[fp] = v.pos
		if v.kind != scalarNode {
			d.problem(v, fp, describe(v), "must be a number")
			return
		}
		switch n.keys[0].text {
		case "times", "skip":
			c, err := strconv.ParseInt(v.text, 10, 64)
			if err != nil {
				d.problem(v, fp, v.text, "must be an integer")
				return
			}
			if n.keys[0].text == "times" {
				m.Mode = failpoint.Times(c)
			} else {
				m.Mode = failpoint.Skip(c)
			}
		case "activationProbability":
			p, rule := parseNumber(v.text, false)
			if rule != "" {
				d.problem(v, fp, v.text, "must be a number in [0, 1]")
				return
			}
			m.Mode = failpoint.ActivationProbability(p)
		default:
			d.problem(n.keys[0], path, n.keys[0].text, want)
		}
	default:
		d.problem(n, path, describe(n), want)
	}
}

func (m FailMode) encodeYAML() *node {
	switch m.Kind {
	case failpoint.ModeTimes, failpoint.ModeSkip:
		return &node{kind: mapNode, keys: []*node{scalar(m.Kind.String())}, vals: []*node{scalar(strconv.FormatInt(m.N, 10))}}
	case failpoint.ModeActivationProbability:
		return &node{kind: mapNode, keys: []*node{scalar("activationProbability")}, vals: []*node{scalar(formatFloat(m.P))}}
	}
	return scalar(m.Kind.String())
}

// SweepValues are the values a sweep gives one parameter: a list, or a range from:to:step of
// integers, numbers, durations (1s:5s:1s) or rates (1000/s:4000/s:500/s), both ends included.
type SweepValues struct {
	Range  string   // from:to:step, or "" for a list
	Values []string // the values as YAML text, in order (the expanded range for a range)
}

// maxSweepValues bounds the values one parameter may take.
const maxSweepValues = 10_000

func (s *SweepValues) decodeYAML(d *decoder, n *node, path string) {
	*s = SweepValues{}
	switch n.kind {
	case seqNode:
		if len(n.items) == 0 {
			d.problem(n, path, "[]", "must list at least one value")
			return
		}
		for _, it := range n.items {
			s.Values = append(s.Values, flowText(it))
		}
	case scalarNode:
		vals, rule := expandRange(n.text)
		if rule != "" {
			d.problem(n, path, n.text, rule)
			return
		}
		s.Range, s.Values = n.text, vals
	default:
		d.problem(n, path, describe(n), "must be from:to:step or a list of values")
	}
}

func (s SweepValues) encodeYAML() *node {
	if s.Range != "" {
		return scalar(s.Range)
	}
	out := &node{kind: seqNode}
	for _, v := range s.Values {
		n, err := parseValue("", v)
		if err != nil {
			n = scalar(v)
		}
		out.items = append(out.items, n)
	}
	return out
}

// expandRange lists the values of from:to:step.
func expandRange(text string) ([]string, string) {
	const want = "must be from:to:step (numbers, durations such as 1s:5s:1s, or rates such as 1000/s:4000/s:1000/s) or a list"
	parts := strings.Split(text, ":")
	if len(parts) != 3 {
		return nil, want
	}
	// Integers, then numbers, durations and rates: the first reading that fits all three.
	if a, errA := strconv.ParseInt(parts[0], 10, 64); errA == nil {
		b, errB := strconv.ParseInt(parts[1], 10, 64)
		c, errC := strconv.ParseInt(parts[2], 10, 64)
		if errB == nil && errC == nil {
			if rule := checkRange(float64(a), float64(b), float64(c), parts); rule != "" {
				return nil, rule
			}
			var out []string
			for v := a; v <= b; v += c {
				out = append(out, strconv.FormatInt(v, 10))
			}
			return out, ""
		}
	}
	type reading struct {
		parse  func(string) (float64, bool)
		format func(float64) string
	}
	readings := []reading{
		{func(s string) (float64, bool) {
			x, r := parseNumber(s, false)
			return x, r == "" && !strings.HasSuffix(s, "/s")
		}, formatFloat},
		{func(s string) (float64, bool) { d, err := time.ParseDuration(s); return float64(d), err == nil },
			func(x float64) string { return time.Duration(math.Round(x)).String() }},
		{func(s string) (float64, bool) {
			x, r := parseNumber(s, true)
			return x, r == "" && strings.HasSuffix(s, "/s")
		}, func(x float64) string { return formatFloat(x) + "/s" }},
	}
	for _, rd := range readings {
		a, okA := rd.parse(parts[0])
		b, okB := rd.parse(parts[1])
		c, okC := rd.parse(parts[2])
		if !okA || !okB || !okC {
			continue
		}
		if rule := checkRange(a, b, c, parts); rule != "" {
			return nil, rule
		}
		n := int(math.Floor((b-a)/c+1e-9)) + 1
		out := make([]string, n)
		for i := range n {
			// Multiply rather than accumulate, so that the k-th value carries no summed error, and
			// round to 12 significant digits, so that 0.4 + 2·0.1 reads 0.6, not 0.6000000000000001.
			x, _ := strconv.ParseFloat(strconv.FormatFloat(float64(a+float64(float64(i)*c)), 'g', 12, 64), 64)
			out[i] = rd.format(x)
		}
		return out, ""
	}
	return nil, want
}

// checkRange refuses a range from:to:step (parts, as written) that gives no values, too many,
// or, from a range that is not one value (to > from), only one: a step larger than to − from
// is almost certainly a mistake (1:2:5 for 1:5:2), and would sweep one point silently.
func checkRange(from, to, step float64, parts []string) string {
	switch {
	case !(step > 0):
		return "step must be > 0"
	case to < from:
		return "to must be ≥ from"
	case to > from && step > to-from:
		return fmt.Sprintf("the step %s is larger than to − from (%s − %s), so the range gives the one value %s: "+
			"the step must be at most to − from (to sweep one value, give it alone)", parts[2], parts[1], parts[0], parts[0])
	case (to-from)/step >= maxSweepValues:
		return fmt.Sprintf("gives more than %d values", maxSweepValues)
	}
	return ""
}

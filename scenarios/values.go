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
	"github.com/overloadsim/overloadsim/internal/yamlstrict"
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

func (x *Dist) decodeYAML(d *decoder, n *yamlstrict.Node, path string) {
	if n.Kind != yamlstrict.ScalarKind {
		if n.Kind == yamlstrict.NullKind {
			x.D = nil
			return
		}
		d.Problem(n, path, yamlstrict.Describe(n), "must be a distribution such as exp(5ms), lognormal(3ms, 0.5), const(1ms) or empirical(file.csv)")
		return
	}
	v, err := dist.ParseWith(n.Text, d.empirical)
	if err != nil {
		// The field error's value is the text, which the problem gives as written.
		rule := err.Error()
		if fe := (*field.Error)(nil); errors.As(err, &fe) {
			rule = fe.Rule
		}
		d.Problem(n, path, n.Text, rule)
		return
	}
	x.D = v
}

func (x Dist) encodeYAML() *yamlstrict.Node { return yamlstrict.NewScalar(x.String()) }

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

func (w *Warmup) decodeYAML(d *decoder, n *yamlstrict.Node, path string) {
	if n.Kind == yamlstrict.ScalarKind && n.Text == "auto" {
		*w = Warmup{Auto: true}
		return
	}
	if n.Kind != yamlstrict.ScalarKind {
		d.Problem(n, path, yamlstrict.Describe(n), "must be a duration such as 10s, or auto")
		return
	}
	v, rule := parseDuration(n.Text, false)
	if rule != "" {
		d.Problem(n, path, n.Text, "must be a duration such as 10s, or auto")
		return
	}
	*w = Warmup{Fixed: v}
}

func (w Warmup) encodeYAML() *yamlstrict.Node { return yamlstrict.NewScalar(w.String()) }

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

func (x *Profile) decodeYAML(d *decoder, n *yamlstrict.Node, path string) {
	*x = Profile{}
	switch n.Kind {
	case yamlstrict.NullKind:
		return
	case yamlstrict.SeqKind:
		d.Problem(n, path, yamlstrict.Describe(n), "must be a rate such as 2000/s, trace(file.csv), or a mapping with a kind ("+strings.Join(profileKinds(), ", ")+")")
		return
	case yamlstrict.ScalarKind:
		if file, ok := strings.CutPrefix(n.Text, "trace("); ok && strings.HasSuffix(file, ")") {
			x.Kind, x.File = "trace", strings.TrimSpace(strings.TrimSuffix(file, ")"))
			x.load(d, n, path)
			return
		}
		r, rule := parseNumber(n.Text, true)
		if rule != "" || !strings.HasSuffix(n.Text, "/s") && n.Text != "0" {
			d.Problem(n, path, n.Text, "must be a rate such as 2000/s, trace(file.csv), or a mapping with a kind ("+strings.Join(profileKinds(), ", ")+")")
			return
		}
		x.Kind, x.Rate = "constant", r
		x.build(d, n, path)
		return
	}
	var f profileFields
	before := len(d.Errors)
	d.DecodeStruct(n, reflect.ValueOf(&f).Elem(), path)
	if len(d.Errors) > before {
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
		kn := n.Get("kind")
		if kn == nil {
			d.Problem(n, path+".kind", "(missing)", "required: one of "+strings.Join(profileKinds(), ", "))
		} else {
			d.Problem(kn, path+".kind", yamlstrict.Describe(kn), "must be one of "+strings.Join(profileKinds(), ", "))
		}
		return
	}
	spec := profileParams[i]
	ok := true
	for j, k := range n.Keys {
		if k.Text != "kind" && !slices.Contains(spec.params, k.Text) {
			d.Problem(n.Vals[j], path+"."+k.Text, yamlstrict.Describe(n.Vals[j]), "not a parameter of a "+f.Kind+" profile ("+strings.Join(spec.params, ", ")+")")
			ok = false
		}
	}
	for _, p := range spec.params {
		if n.Get(p) == nil && !slices.Contains(spec.optional, p) {
			d.Problem(n, path+"."+p, "(missing)", "required for a "+f.Kind+" profile")
			ok = false
		}
	}
	if !ok {
		return
	}
	if f.Kind == "trace" {
		x.load(d, n.Get("file"), path+".file")
		return
	}
	x.build(d, n, path)
}

// load reads a trace file and builds the profile.
func (x *Profile) load(d *decoder, n *yamlstrict.Node, path string) {
	if x.File == "" {
		d.Problem(n, path, `""`, "must name a CSV file of time, rate")
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
		d.Problem(n, path, x.File, rule)
	}
}

// build makes the workload profile and re-attributes its constructor's errors to the
// parameters they name: a field error's field is a parameter (end) or a point's (points[2].at).
func (x *Profile) build(d *decoder, n *yamlstrict.Node, path string) {
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
			d.Problem(n, path, yamlstrict.Describe(n), part.Error())
			continue
		}
		// A parameter the file writes is the problem's field; a rate written as 2000/s has none.
		if fn := n.Lookup(fe.Field); fn != nil {
			d.Problem(fn, field.Join(path, fe.Field), fe.Value, fe.Rule)
		} else {
			d.Problem(n, path, fe.Value, fe.Rule)
		}
	}
}

func (x Profile) encodeYAML() *yamlstrict.Node {
	switch x.Kind {
	case "constant":
		return yamlstrict.NewScalar(yamlstrict.FormatFloat(x.Rate) + "/s")
	case "trace":
		return yamlstrict.NewScalar("trace(" + x.File + ")")
	}
	f := profileFields{Kind: x.Kind, Rate: x.Rate, Before: x.Before, After: x.After, At: x.At, From: x.From,
		To: x.To, Start: x.Start, End: x.End, Base: x.Base, Peak: x.Peak, Duration: x.Duration, Mean: x.Mean,
		Amplitude: x.Amplitude, Period: x.Period, Phase: x.Phase, Points: x.Points, File: x.File}
	full := encode(reflect.ValueOf(f), yamlstrict.Field{})
	m := &yamlstrict.Node{Kind: yamlstrict.MapKind, Keys: []*yamlstrict.Node{yamlstrict.NewScalar("kind")}, Vals: []*yamlstrict.Node{yamlstrict.NewScalar(x.Kind)}}
	for _, spec := range profileParams {
		if spec.kind != x.Kind {
			continue
		}
		for _, p := range spec.params {
			m.Keys = append(m.Keys, yamlstrict.NewScalar(p))
			m.Vals = append(m.Vals, full.Get(p))
		}
	}
	return m
}

// FailMode is configureFailPoint's mode: alwaysOn, off, {times: N}, {skip: N} or
// {activationProbability: P}.
type FailMode struct {
	failpoint.Mode // the mode, as the failpoint package holds it
}

func (m *FailMode) decodeYAML(d *decoder, n *yamlstrict.Node, path string) {
	const want = "must be alwaysOn, off, {times: N}, {skip: N} or {activationProbability: P}"
	switch {
	case n.Kind == yamlstrict.ScalarKind && n.Text == "alwaysOn":
		m.Mode = failpoint.AlwaysOn()
	case n.Kind == yamlstrict.ScalarKind && n.Text == "off":
		m.Mode = failpoint.Off()
	case n.Kind == yamlstrict.MapKind && len(n.Keys) == 1:
		v := n.Vals[0]
		fp := path + "." + n.Keys[0].Text
		d.At[fp] = v.Pos
		if v.Kind != yamlstrict.ScalarKind {
			d.Problem(v, fp, yamlstrict.Describe(v), "must be a number")
			return
		}
		switch n.Keys[0].Text {
		case "times", "skip":
			c, err := strconv.ParseInt(v.Text, 10, 64)
			if err != nil {
				d.Problem(v, fp, v.Text, "must be an integer")
				return
			}
			if n.Keys[0].Text == "times" {
				m.Mode = failpoint.Times(c)
			} else {
				m.Mode = failpoint.Skip(c)
			}
		case "activationProbability":
			p, rule := parseNumber(v.Text, false)
			if rule != "" {
				d.Problem(v, fp, v.Text, "must be a number in [0, 1]")
				return
			}
			m.Mode = failpoint.ActivationProbability(p)
		default:
			d.Problem(n.Keys[0], path, n.Keys[0].Text, want)
		}
	default:
		d.Problem(n, path, yamlstrict.Describe(n), want)
	}
}

func (m FailMode) encodeYAML() *yamlstrict.Node {
	switch m.Kind {
	case failpoint.ModeTimes, failpoint.ModeSkip:
		return &yamlstrict.Node{Kind: yamlstrict.MapKind, Keys: []*yamlstrict.Node{yamlstrict.NewScalar(m.Kind.String())}, Vals: []*yamlstrict.Node{yamlstrict.NewScalar(strconv.FormatInt(m.N, 10))}}
	case failpoint.ModeActivationProbability:
		return &yamlstrict.Node{Kind: yamlstrict.MapKind, Keys: []*yamlstrict.Node{yamlstrict.NewScalar("activationProbability")}, Vals: []*yamlstrict.Node{yamlstrict.NewScalar(yamlstrict.FormatFloat(m.P))}}
	}
	return yamlstrict.NewScalar(m.Kind.String())
}

// SweepValues are the values a sweep gives one parameter: a list, or a range from:to:step of
// integers, numbers, durations (1s:5s:1s) or rates (1000/s:4000/s:500/s), both ends included.
type SweepValues struct {
	Range  string   // from:to:step, or "" for a list
	Values []string // the values as YAML text, in order (the expanded range for a range)
}

// maxSweepValues bounds the values one parameter may take.
const maxSweepValues = 10_000

func (s *SweepValues) decodeYAML(d *decoder, n *yamlstrict.Node, path string) {
	*s = SweepValues{}
	switch n.Kind {
	case yamlstrict.SeqKind:
		if len(n.Items) == 0 {
			d.Problem(n, path, "[]", "must list at least one value")
			return
		}
		for _, it := range n.Items {
			s.Values = append(s.Values, yamlstrict.Flow(it))
		}
	case yamlstrict.ScalarKind:
		vals, rule := expandRange(n.Text)
		if rule != "" {
			d.Problem(n, path, n.Text, rule)
			return
		}
		s.Range, s.Values = n.Text, vals
	default:
		d.Problem(n, path, yamlstrict.Describe(n), "must be from:to:step or a list of values")
	}
}

func (s SweepValues) encodeYAML() *yamlstrict.Node {
	if s.Range != "" {
		return yamlstrict.NewScalar(s.Range)
	}
	out := &yamlstrict.Node{Kind: yamlstrict.SeqKind}
	for _, v := range s.Values {
		n, err := parseValue("", v)
		if err != nil {
			n = yamlstrict.NewScalar(v)
		}
		out.Items = append(out.Items, n)
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
		}, yamlstrict.FormatFloat},
		{func(s string) (float64, bool) { d, err := time.ParseDuration(s); return float64(d), err == nil },
			func(x float64) string { return time.Duration(math.Round(x)).String() }},
		{func(s string) (float64, bool) {
			x, r := parseNumber(s, true)
			return x, r == "" && strings.HasSuffix(s, "/s")
		}, func(x float64) string { return yamlstrict.FormatFloat(x) + "/s" }},
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

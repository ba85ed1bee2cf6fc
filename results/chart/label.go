package chart

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/goccy/go-yaml"

	"github.com/overloadsim/overloadsim/results"
)

// LatencyUnit picks milliseconds or seconds for latencies up to hi seconds: the unit's name
// and the factor from seconds to it.
func LatencyUnit(hi float64) (name string, scale float64) {
	if hi >= 10 {
		return "s", 1
	}
	return "ms", 1000
}

// LogScale decides the y scale of values: a log axis when the positive values span more than
// a factor of 50, else linear from 0. It returns the positive extremes (NaN when none).
func LogScale(series ...[]float64) (useLog bool, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, ys := range series {
		for _, y := range ys {
			if !math.IsNaN(y) && !math.IsInf(y, 0) && y > 0 {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return false, math.NaN(), math.NaN()
	}
	return hi/lo > 50, lo, hi
}

// figureWords are the figures' words for the metrics whose axis they do not name by the
// catalogue's label (results.MetricInfo.Label): amplification is read as attempts per
// operation, and a sweep's p99 latency is of successes by its title.
var figureWords = map[string]string{
	"amplification":  "attempts per operation",
	"latency_ok_p99": "p99 latency",
}

// unitWords is how an axis writes the unit of metric (a summary metric's name), from the
// metric catalogue (results.LookupMetric): milliseconds or seconds for a latency, chosen by
// the largest of values, "operations/s" for a rate, "attempts per operation" for an
// amplification, none for the rest; and the factor from the metric's unit to the one shown.
func unitWords(metric string, values []float64) (unit string, k float64) {
	m, ok := results.LookupMetric(metric)
	if !ok || !m.InSummary() {
		return "", 1
	}
	switch {
	case m.Unit == "s":
		hi := 0.0
		for _, x := range values {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				hi = math.Max(hi, x)
			}
		}
		return LatencyUnit(hi)
	case m.Unit == "/s":
		return "operations/s", 1
	case m.Name == "amplification":
		return figureWords[m.Name], 1
	}
	return "", 1
}

// MetricAxis labels a figure's y axis that shows metric (a summary metric's name): the
// figure's words for it (the catalogue's label, or figureWords), then in brackets its unit
// (unitWords, where the words do not already say it) and "log scale" on a log axis:
// "goodput (operations/s)", "attempts per operation", "p99 latency (ms, log scale)". It
// returns the factor from the metric's unit to the one shown.
func MetricAxis(metric string, values []float64, log bool) (label string, k float64) {
	m, _ := results.LookupMetric(metric)
	words, ok := figureWords[m.Name]
	if !ok {
		words = m.Label
	}
	unit, k := unitWords(metric, values)
	var parts []string
	if unit != "" && unit != words {
		parts = append(parts, unit)
	}
	if log {
		parts = append(parts, "log scale")
	}
	if len(parts) > 0 {
		words += " (" + strings.Join(parts, ", ") + ")"
	}
	return words, k
}

// AxisLabel labels an axis that shows metric (a summary metric's name, "group.a.latency_ok_p99"):
// words, then in brackets its unit (unitWords: read from the metric catalogue) and better,
// which way is better when known ("higher is better"). It returns the factor from the metric's
// unit to the one shown; values are every value the axis shows, which pick a latency's unit.
func AxisLabel(words, metric, better string, values []float64) (label string, k float64) {
	unit, k := unitWords(metric, values)
	var parts []string
	if unit != "" {
		parts = append(parts, unit)
	}
	if better != "" {
		parts = append(parts, better)
	}
	label = words
	if len(parts) > 0 {
		label += "\n(" + strings.Join(parts, ", ") + ")"
	}
	return label, k
}

// ParamInfo is what a parameter's short name (ParamLabel) needs of its scenario: the names of
// its client groups and nodes and the kinds of its faults, by index.
type ParamInfo struct {
	Groups []string // clients[i].name
	Nodes  []string // topology.nodes[i].name
	Faults []string // faults[i].kind: "capacity", "pause", "load", …
}

// ParamInfoOf reads a ParamInfo from a scenario in canonical form (results.Header.Canonical);
// a text that does not parse gives an empty ParamInfo, whose short names fall back to the
// paths.
func ParamInfoOf(canonical string) ParamInfo {
	var sc struct {
		Topology struct {
			Nodes []struct {
				Name string `yaml:"name"`
			} `yaml:"nodes"`
		} `yaml:"topology"`
		Clients []struct {
			Name string `yaml:"name"`
		} `yaml:"clients"`
		Faults []struct {
			Kind string `yaml:"kind"`
		} `yaml:"faults"`
	}
	if err := yaml.Unmarshal([]byte(canonical), &sc); err != nil {
		return ParamInfo{}
	}
	var info ParamInfo
	for _, n := range sc.Topology.Nodes {
		info.Nodes = append(info.Nodes, n.Name)
	}
	for _, c := range sc.Clients {
		info.Groups = append(info.Groups, c.Name)
	}
	for _, f := range sc.Faults {
		info.Faults = append(info.Faults, f.Kind)
	}
	return info
}

// faultNouns name what a fault of each kind is, for the short names of its fields: the length
// of a capacity fault is a cut's ("cut length"), of a pause a pause's.
var faultNouns = map[string]string{
	"capacity": "cut", "pause": "pause", "load": "surge", "down": "outage", "networkDelay": "delay",
	"failPoint": "fail point", "rebalance": "rebalance", "requestLimiter": "limiter change",
	"connLimiter": "connection limiter change", "stepDown": "step-down", "up": "restart",
}

// fieldWords are the short names of the fields whose words (camel case split, lower case)
// would be long or unclear; a fault's fields whose name says something of the fault's own
// ("for", "at") are named by the fault's noun instead (faultNouns).
var fieldWords = map[string]string{
	"ingressRequestAdmissionRatePerSec":        "limiter rate",
	"ingressRequestAdmissionBurstCapacitySecs": "limiter burst",
	"ingressRequestAdmissionMaxQueueDepth":     "limiter queue",
	"ingressConnectionEstablishmentRatePerSec": "connection limiter rate",
	"maxQueueDepth": "queue limit",
	"service":       "service time",
	"rate":          "rate",
	"attempts":      "retry attempts",
}

// indexed matches a path that starts with one element of a list: "clients[1].driver.retryPolicy"
// is clients, 1, "driver.retryPolicy".
var indexed = regexp.MustCompile(`^(clients|faults|topology\.nodes)\[(\d+)\]\.(.+)$`)

// ParamLabel is the short name of the swept parameter path, for axis titles, panel titles and
// legends: overrides[path] when given (--label PATH=NAME); else a name built from the path and
// its scenario (info):
//   - load: "load (× today)";
//   - clients[i].F: the group's name and F's last field in words ("web rate", "web retry policy");
//   - faults[i].for and .at: the fault's noun (faultNouns) and "length" or "start" ("cut
//     length", "pause length"); faults[i].speed "CPU left", .workers "workers left", .factor
//     "surge factor", any other field its words;
//   - topology.nodes[i].F: the node's name and F in words ("db limiter rate");
//
// and the path itself when it names no group, node or fault the scenario has.
func ParamLabel(path string, info ParamInfo, overrides map[string]string) string {
	if name, ok := overrides[path]; ok && name != "" {
		return name
	}
	if path == "load" {
		return "load (× today)"
	}
	m := indexed.FindStringSubmatch(path)
	if m == nil {
		return path
	}
	i, err := strconv.Atoi(m[2])
	if err != nil {
		return path
	}
	field := m[3]
	last := field[strings.LastIndex(field, ".")+1:]
	at := func(names []string) (string, bool) {
		if i < len(names) && names[i] != "" {
			return names[i], true
		}
		return "", false
	}
	switch m[1] {
	case "clients":
		if g, ok := at(info.Groups); ok {
			return g + " " + words(last)
		}
	case "topology.nodes":
		if n, ok := at(info.Nodes); ok {
			return n + " " + words(last)
		}
	case "faults":
		kind, ok := at(info.Faults)
		if !ok {
			return path
		}
		noun := faultNouns[kind]
		if noun == "" {
			noun = words(kind)
		}
		switch field {
		case "for":
			return noun + " length"
		case "at":
			return noun + " start"
		case "speed":
			return "CPU left"
		case "workers":
			return "workers left"
		case "factor":
			return noun + " factor"
		case "delay":
			return "added delay"
		}
		return noun + " " + words(last)
	}
	return path
}

// words writes a field's name as words: its short name (fieldWords), else its camel case split
// and in lower case ("retryPolicy": "retry policy").
func words(field string) string {
	if w, ok := fieldWords[field]; ok {
		return w
	}
	var b strings.Builder
	for i, r := range field {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte(' ')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ValueNames names each of a parameter's values by what differs between them: values that are
// all YAML flow maps ("{retryPolicy: mongodb-2026-07, adaptiveRetries: true}") are named by the
// fields whose values differ ("mongodb-2026-07", or "retryPolicy=mongodb-2026-07
// adaptiveRetries=true" when several differ); any other values are their own names.
func ValueNames(values []string) []string {
	maps := make([][][2]string, len(values))
	for i, v := range values {
		fields, ok := flowMap(v)
		if !ok {
			return slices.Clone(values)
		}
		maps[i] = fields
	}
	var keys []string // the fields that differ, in order of first appearance
	for _, fields := range maps {
		for _, f := range fields {
			if slices.Contains(keys, f[0]) {
				continue
			}
			for _, other := range maps {
				if lookup(other, f[0]) != f[1] {
					keys = append(keys, f[0])
					break
				}
			}
		}
	}
	if len(keys) == 0 {
		return slices.Clone(values)
	}
	out := make([]string, len(values))
	for i, fields := range maps {
		var parts []string
		for _, k := range keys {
			v := lookup(fields, k)
			if v == "" {
				v = "(unset)"
			}
			if len(keys) > 1 {
				v = k + "=" + v
			}
			parts = append(parts, v)
		}
		out[i] = strings.Join(parts, " ")
	}
	if len(slices.Compact(slices.Sorted(slices.Values(out)))) != len(slices.Compact(slices.Sorted(slices.Values(values)))) {
		return slices.Clone(values) // two values with the same name: keep them apart
	}
	return out
}

func lookup(fields [][2]string, key string) string {
	for _, f := range fields {
		if f[0] == key {
			return f[1]
		}
	}
	return ""
}

// flowMap splits a YAML flow map of plain fields, "{a: 1, b: x}", into its fields in order;
// false for anything else (a nested value or a quoted comma keeps the value whole).
func flowMap(v string) ([][2]string, bool) {
	inner, ok := strings.CutPrefix(strings.TrimSpace(v), "{")
	if !ok {
		return nil, false
	}
	inner, ok = strings.CutSuffix(inner, "}")
	if !ok || strings.ContainsAny(inner, "{}[]\"'") {
		return nil, false
	}
	var out [][2]string
	for _, part := range strings.Split(inner, ",") {
		k, val, ok := strings.Cut(part, ":")
		if !ok {
			return nil, false
		}
		out = append(out, [2]string{strings.TrimSpace(k), strings.TrimSpace(val)})
	}
	return out, len(out) > 0
}

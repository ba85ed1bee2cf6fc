package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/overloadsim/overloadsim/results"
)

// share reports whether metric is a share of runs or operations, from 0 to 1 (a trigger's
// share stuck, recovered, relapsed or undecided), which the comparison writes in per cent.
func share(metric string) bool {
	m, ok := results.LookupMetric(metric)
	return ok && m.Scope == results.ScopeFault && m.Unit == ""
}

// Unit is the unit a comparison writes metric's values in: "s" for a latency or a recovery
// time (written in ms or s), "operations/s" for a rate, "%" for a share, "attempts/operation"
// for an amplification, "" for the rest.
func Unit(metric string) string {
	m, _ := results.LookupMetric(metric)
	switch {
	case share(metric):
		return "%"
	case m.Unit == "/s":
		return "operations/s"
	case m.Unit == "s":
		return "s"
	case m.Name == "amplification":
		return "attempts/operation"
	}
	return ""
}

// FormatValue writes a value of metric in its unit (Unit), four significant digits: "764.5/s",
// "2.216 s", "625.4 ms", "2.567 attempts/op", "20 %"; "–" for no value.
func FormatValue(metric string, x float64) string { return format(metric, x, 4, false) }

// FormatCI writes a mean with its 95 % half-width in the metric's unit: "764.5/s ± 5/s",
// "2.567 ± 0.016 attempts/op"; the mean alone without a half-width.
func FormatCI(metric string, mean, ci float64) string {
	s := FormatValue(metric, mean)
	if math.IsNaN(mean) || math.IsNaN(ci) || math.IsInf(ci, 0) {
		return s
	}
	h := format(metric, ci, 2, false)
	// A unit written after a space, the same on both (" %", " attempts/op"), once at the end.
	if u := Unit(metric); u == "%" || u == "attempts/operation" {
		suffix := s[strings.LastIndex(s, " "):]
		return strings.TrimSuffix(s, suffix) + " ± " + h
	}
	return s + " ± " + h
}

// FormatDelta writes a difference of metric, signed, in its unit: "+13.7/s", "-1.59 s",
// "+5 pp" (percentage points, for a share).
func FormatDelta(metric string, d float64) string { return format(metric, d, 3, true) }

func format(metric string, x float64, digits int, signed bool) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	g := func(x float64) string {
		s := strconv.FormatFloat(math.Abs(x), 'g', digits, 64)
		if strings.Contains(s, "e+") { // whole numbers keep their digits: 12346, not 1.235e+04
			s = strconv.FormatFloat(math.Abs(x), 'f', 0, 64)
		}
		switch {
		case x < 0:
			return "-" + s
		case signed:
			return "+" + s
		}
		return s
	}
	switch Unit(metric) {
	case "%":
		if signed {
			return g(100*x) + " pp"
		}
		return g(100*x) + " %"
	case "operations/s":
		return g(x) + "/s"
	case "s":
		if math.Abs(x) >= 1 || x == 0 {
			return g(x) + " s"
		}
		return g(1000*x) + " ms"
	case "attempts/operation":
		return g(x) + " attempts/op"
	}
	return g(x)
}

// HeadlineItem is one metric's part of a Headline: its text and its verdict (NoVerdict where
// points differ in verdict).
type HeadlineItem struct {
	Text    string
	Verdict Verdict
}

// headlineWords name the group metrics in a headline where the catalogue's label is not the
// comparison's word.
var headlineWords = map[string]string{"latency_ok_p99": "p99 latency of successes"}

// Headline is what a comparison says of result i (i > 0) first, metric by metric over every
// metric it compares but the offered load: with one point, each difference and its verdict
// ("goodput -13.7/s (-1.8 %): worse"); over several, how many points are better and worse
// ("goodput better at none, worse at 2 of 4 points"), better or worse when all the points judged
// so agree.
func Headline(c Comparison, i int) []HeadlineItem {
	var out []HeadlineItem
	var metrics []string
	points := map[string]bool{}
	for _, row := range c.Rows {
		points[row.Point] = true
		if row.Metric != "total.offered" && !slices.Contains(metrics, row.Metric) {
			metrics = append(metrics, row.Metric)
		}
	}
	for _, metric := range metrics {
		name := metric[strings.LastIndex(metric, ".")+1:]
		if m, ok := results.LookupMetric(metric); ok {
			name = m.Label
			if w, ok := headlineWords[m.Name]; ok {
				name = w
			}
			if m.Scope == results.ScopeFault {
				name = strings.TrimPrefix(metric[:strings.LastIndex(metric, ".")], "fault.") + " " + m.Label
			}
		}
		var better, worse, judged int
		var one string
		var verdict Verdict
		for _, row := range c.Rows {
			if row.Metric != metric || i >= len(row.Values) {
				continue
			}
			v := row.Values[i]
			if math.IsNaN(v.Delta) {
				continue
			}
			judged++
			switch v.Verdict {
			case Better:
				better++
			case Worse:
				worse++
			}
			one = name + " " + FormatDelta(metric, v.Delta)
			if !math.IsNaN(v.DeltaRel) && v.Delta != 0 {
				one += fmt.Sprintf(" (%+.1f %%)", 100*v.DeltaRel)
			}
			if v.Verdict != NoVerdict && v.Verdict != Neutral {
				one += ": " + string(v.Verdict)
			}
			verdict = v.Verdict
		}
		switch {
		case judged == 0:
		case len(points) == 1:
			out = append(out, HeadlineItem{one, verdict})
		default:
			count := func(n int) string {
				if n == 0 {
					return "none"
				}
				return fmt.Sprintf("%d of %d points", n, judged)
			}
			it := HeadlineItem{Text: fmt.Sprintf("%s better at %s, worse at %s", name, count(better), count(worse))}
			switch {
			case better+worse == 0:
				it = HeadlineItem{fmt.Sprintf("%s: no significant difference at %d points", name, judged), NotSignificant}
			case worse == 0:
				it.Verdict = Better
			case better == 0:
				it.Verdict = Worse
			}
			out = append(out, it)
		}
	}
	return out
}

package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/sweep"
)

// loadSweepFolder writes a load sweep against a configured ceiling of 1000/s, today's load
// 400/s: served in full to 1000/s, short at 1500/s, so that its report has answers in words
// (sweep.LoadAnswers). It returns the folder.
func loadSweepFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	hdr := results.Header{Tool: "overloadsim", Version: "dev", Scenario: "load"}
	var pts []sweep.PointStats
	for _, x := range []float64{500, 1000, 1500} {
		pts = append(pts, sweep.PointStats{
			Params:       []results.Param{{Path: "clients[0].workload.rate", Value: strconv.FormatFloat(x, 'f', 0, 64) + "/s"}},
			Replications: 2,
			Metrics: []results.MetricStats{{Name: "total.offered", Mean: x, N: 2}, {Name: "total.goodput", Mean: math.Min(x, 1000), N: 2},
				{Name: "total.latency_ok_p99", Mean: 0.02 * x / 500, N: 2}},
		})
	}
	ctx := &sweep.LoadContext{Today: 400, Ceiling: 1000, CeilingSource: "ingress request limiter 1000/s on db"}
	if err := sweep.WriteSweepDir(dir, hdr, pts, "", ctx); err != nil {
		t.Fatal(err)
	}
	return dir
}

// firstScreenExpr measures a report in the browser: the answer block's text and where it ends,
// every visible table's width against its container's (a table that scrolls sideways is wider),
// the page's width, and, on a run's rates chart, the share of the plot's left half (left of
// the ceiling line's label) where a pixel in the ceiling line's colour (#111111) lies within a
// pixel of the configured ceiling's height.
const firstScreenExpr = `(() => {
  const a = document.getElementById("answer");
  const out = {answer: a ? a.innerText : "", answerBottom: a ? a.getBoundingClientRect().bottom : -1,
    pageWidth: document.documentElement.scrollWidth, tables: [], ceiling: -1};
  for (const t of document.querySelectorAll("table")) {
    if (t.offsetParent === null) continue; // in a closed <details>
    const box = t.parentElement;
    out.tables.push({id: t.id, scrollWidth: box.scrollWidth, clientWidth: box.clientWidth,
      tableWidth: Math.ceil(t.getBoundingClientRect().width)});
  }
  const data = document.getElementById("chart-data");
  const u = window.overloadsimCharts && window.overloadsimCharts.rates;
  if (data && u) {
    const refs = JSON.parse(data.textContent).charts[0].refs;
    if (refs.length > 0) {
      const y = Math.round(u.valToPos(refs[0].y, "y", true));
      const left = Math.round(u.bbox.left), w = Math.round(u.bbox.width / 2);
      const px = u.ctx.getImageData(left, y - 1, w, 3).data;
      let hit = 0;
      for (let x = 0; x < w; x++) {
        for (let r = 0; r < 3; r++) {
          const i = 4 * (r * w + x);
          if (px[i + 3] > 200 && px[i] < 0x30 && px[i + 1] < 0x30 && px[i + 2] < 0x30) { hit++; break; }
        }
      }
      out.ceiling = hit / w;
    } else {
      out.ceiling = 0;
    }
  }
  return JSON.stringify(out);
})()`

// firstScreen is what firstScreenExpr measured.
type firstScreen struct {
	Answer       string
	AnswerBottom float64
	PageWidth    int
	Tables       []struct {
		ID                                   string
		ScrollWidth, ClientWidth, TableWidth int
	}
	Ceiling float64
}

// TestFirstScreen opens a run's report and two sweeps' in headless Chromium and checks what a
// capacity planner sees (docs/report.md): the first screen of a 1280×800 window holds the answer
// in words — where today's load sits against the configured ceiling and each trigger's verdict
// with its failure share and amplification for a run, the safe load and the knee for a load
// sweep; no table scrolls sideways, at 1280 px nor at 800 px (wide tables wrap, and turn into
// cards on a narrow page); and the run's rates chart draws the configured ceiling as a line.
func TestFirstScreen(t *testing.T) {
	needChromium(t)
	dir := spikeRun(t, "45s") // the library's spike: 10 s to 30 s at three times the limiter's 1000/s
	run, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	loadSweep, err := Write(loadSweepFolder(t))
	if err != nil {
		t.Fatal(err)
	}
	outcomeSweep, err := Write(copyFolder(t, "sweep")) // a trigger's outcomes column, parameter paths
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		gloss, page string
		answer      []string // in the answer block, on the first screen
		ceiling     bool     // the page has a rates chart with the ceiling
	}{
		{"spike run", run, []string{
			"Today's load 1611/s (the scenario as configured, averaged over the run) = 161 % of the configured ceiling 1000/s (ingress request limiter 1000/s on db).",
			"spike (10 s – 30 s): recovered ", "of the operations failed and each made ", " attempts (before it: 0.0 % failed",
		}, true},
		{"load sweep", loadSweep, []string{"Safe to 2.50× today's load (1000/s): beyond it, at 1500/s,", "The knee is between 1000/s"}, false},
		{"sweep of retry attempts", outcomeSweep, nil, false},
	} {
		for _, width := range []int{1280, 800} {
			problems, value := evalInDevTools(t, fileURL(c.page), width, 800, firstScreenExpr)
			for _, p := range problems {
				t.Errorf("%s at %d px: %s", c.gloss, width, p)
			}
			var got firstScreen
			if err := json.Unmarshal([]byte(value), &got); err != nil {
				t.Fatalf("%s: %v: %q", c.gloss, err, value)
			}
			where := fmt.Sprintf("%s at %d px", c.gloss, width)
			if width == 1280 && len(c.answer) > 0 {
				for _, w := range c.answer {
					if !strings.Contains(got.Answer, w) {
						t.Errorf("%s: the answer block %q lacks %q", where, got.Answer, w)
					}
				}
				if got.AnswerBottom < 0 || got.AnswerBottom > 800 {
					t.Errorf("%s: the answer block ends %.0f px down, below the first screen (800 px)", where, got.AnswerBottom)
				}
			}
			if len(got.Tables) == 0 {
				t.Errorf("%s: no table measured", where)
			}
			for _, tb := range got.Tables {
				if tb.ScrollWidth > tb.ClientWidth || tb.TableWidth > tb.ClientWidth {
					t.Errorf("%s: table %q is %d px wide in a container %d px wide (scrollWidth %d): it scrolls sideways",
						where, tb.ID, tb.TableWidth, tb.ClientWidth, tb.ScrollWidth)
				}
			}
			if got.PageWidth > width {
				t.Errorf("%s: the page is %d px wide", where, got.PageWidth)
			}
			// A dotted line: about 40 % of the columns have ink, the rest is its gaps.
			if c.ceiling && !(got.Ceiling > 0.2) {
				t.Errorf("%s: the rates chart has the ceiling's colour in %.0f %% of the columns at 1000/s, want a dotted line (> 20 %%)", where, 100*got.Ceiling)
			}
		}
	}
}

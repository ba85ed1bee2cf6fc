package docs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/overloadsim/overloadsim/bench"
	tuneexp "github.com/overloadsim/overloadsim/experiment/tune"
	"github.com/overloadsim/overloadsim/results"
	"github.com/overloadsim/overloadsim/results/compare"
	"github.com/overloadsim/overloadsim/results/phasemap"
	"github.com/overloadsim/overloadsim/results/sweep"
	"github.com/overloadsim/overloadsim/results/tune"
	"github.com/overloadsim/overloadsim/scenarios"
)

// TestSchemas checks the JSON Schemas in schemas/ against real output files: a run, a load sweep
// with answers and verdicts, a metastability map, a comparison and a tuning, each written by the
// writers the CLI uses from runs of a library scenario, and every folder's manifest.
func TestSchemas(t *testing.T) {
	c := jsonschema.NewCompiler()
	schemas := map[string]*jsonschema.Schema{}
	for _, name := range []string{"summary", "sweep", "manifest", "compare", "map", "tune"} {
		path := filepath.Join("schemas", name+".schema.json")
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := c.AddResource(path, doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if schemas[name], err = c.Compile(path); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	validate := func(schema, path string) {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := schemas[schema].Validate(doc); err != nil {
			t.Errorf("%s does not match schemas/%s.schema.json: %v", path, schema, err)
		}
	}

	base := t.TempDir()
	spike := func(overrides ...string) *scenarios.Scenario {
		sc, err := scenarios.Lookup("spike")
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.SetAll(append([]string{"duration=15s"}, overrides...)...); err != nil {
			t.Fatal(err)
		}
		return sc
	}
	var runDirs []string
	for _, policy := range []string{"mongodb-2026-03", "mongodb-2026-07"} {
		c := spike()
		if err := c.Set("clients[1].driver.retryPolicy", policy); err != nil {
			t.Fatal(err)
		}
		run, err := bench.Run(c, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		run.Summary.Verdicts = results.JudgeRun(c.Expectations(), run.Summary.Expected)
		dir := filepath.Join(base, "run", policy)
		if err := results.WriteRunDir(dir, run); err != nil {
			t.Fatal(err)
		}
		validate("summary", filepath.Join(dir, results.SummaryFile))
		validate("manifest", filepath.Join(dir, results.ManifestFile))
		runDirs = append(runDirs, dir)
	}

	// A load sweep of two points, two replications each, with its answers and verdicts.
	sw := spike()
	if err := sw.Vary("clients[0].workload.rate", "250/s,2000/s"); err != nil {
		t.Fatal(err)
	}
	points, err := sw.Points()
	if err != nil {
		t.Fatal(err)
	}
	var prs []sweep.PointResult
	var verdicts []results.Verdict
	for _, p := range points {
		pr := sweep.PointResult{Params: p.Params}
		var measured [][]results.Measured
		for r := range 2 {
			run, err := bench.Run(p.Scenario, 1, r)
			if err != nil {
				t.Fatal(err)
			}
			pr.Replications = append(pr.Replications, run.Summary)
			measured = append(measured, run.Summary.Expected)
		}
		prs = append(prs, pr)
		verdicts = append(verdicts, results.Judge(sw.Expectations(), p.Params, measured)...)
	}
	hdr := results.Header{Tool: "overloadsim", Version: "test", Scenario: sw.Name, Canonical: sw.String(), Seed: 1,
		Duration: sw.Duration, Interval: sw.Interval}
	ctx := sw.SweepLoadContext(points, 0)
	sweepDir := filepath.Join(base, "sweep")
	if err := sweep.WriteSweepDir(sweepDir, hdr, sweep.Aggregate(prs), "", &ctx, verdicts...); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(sweepDir, results.SweepFile))
	if !strings.Contains(string(b), `"answers"`) || !strings.Contains(string(b), `"expectations"`) {
		t.Fatal("the sweep has no answers or verdicts to check the schema on")
	}
	validate("sweep", filepath.Join(sweepDir, results.SweepFile))
	validate("manifest", filepath.Join(sweepDir, results.ManifestFile))

	// A map of the two points' outcomes after the spike.
	m := phasemap.Map{Header: hdr, Trigger: "spike", Axes: []results.Axis{
		{Path: "clients[0].workload.rate", Values: []string{"250/s", "2000/s"}}, {Path: "seed", Values: []string{"1"}}}}
	for _, pr := range prs {
		var os []results.RecoveryOutcome
		var secs []float64
		for _, s := range pr.Replications {
			os, secs = append(os, s.Recoveries[0].Outcome), append(secs, s.Recoveries[0].Seconds)
		}
		m.Cells = append(m.Cells, phasemap.NewCell(append(pr.Params, results.Param{Path: "seed", Value: "1"}), os, secs))
	}
	mapDir := filepath.Join(base, "map")
	if err := phasemap.Write(mapDir, m); err != nil {
		t.Fatal(err)
	}
	validate("map", filepath.Join(mapDir, results.MapFile))
	validate("manifest", filepath.Join(mapDir, results.ManifestFile))

	// The two runs compared.
	var in []compare.Input
	for _, dir := range runDirs {
		man, err := results.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		pts, err := sweep.ReadPoints(dir)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := results.ReadHeader(dir)
		in = append(in, compare.Input{Label: dir, Kind: man.Kind, Digest: man.Digest, Header: h, Points: pts})
	}
	cmp := compare.Compare(in)
	cmpDir := filepath.Join(base, "compare")
	if err := compare.Write(cmpDir, compare.Header(cmp, "overloadsim", "test"), cmp); err != nil {
		t.Fatal(err)
	}
	validate("compare", filepath.Join(cmpDir, results.CompareFile))
	validate("manifest", filepath.Join(cmpDir, results.ManifestFile))

	// A tuning of the node's workers, with a refinement round: its grid and its recommendation.
	p, err := results.ParseTuneParam("topology.nodes[0].workers=4:8:2")
	if err != nil {
		t.Fatal(err)
	}
	p.Integer = true
	bound, err := results.ParseTuneConstraint("total.amplification<=10", 10*time.Second, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tu := tune.New(hdr, []results.TuneParam{p}, results.TuneObjective{Metric: "total.goodput", Sense: "maximize"},
		[]results.TuneConstraint{bound}, 2, 1)
	err = tuneexp.Search(tu, func(rd tuneexp.Round) ([][][]float64, []bool, error) {
		cands := rd.Candidates
		exps := make([]results.Expectation, len(tu.Measures))
		for i, m := range tu.Measures {
			exps[i] = m.Expectation()
		}
		values := make([][][]float64, len(cands))
		done := make([]bool, len(cands))
		for i, cand := range cands {
			sc := spike(cand.Params[0].Path + "=" + cand.Params[0].Value)
			values[i] = make([][]float64, len(exps))
			for r := range tu.Replications {
				run, err := bench.Run(sc, 1, r)
				if err != nil {
					return nil, nil, err
				}
				for m, v := range results.Measure(exps, &run.Summary, run.Series) {
					values[i][m] = append(values[i][m], v.Value)
				}
			}
			done[i] = true
		}
		return values, done, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tu.Candidates) != 3 || tu.Recommendation == nil {
		t.Fatalf("the tuning ran %d candidates, recommendation %v; want 3 and one", len(tu.Candidates), tu.Recommendation)
	}
	tuneDir := filepath.Join(base, "tune")
	if err := tune.WriteDir(tuneDir, tu); err != nil {
		t.Fatal(err)
	}
	validate("tune", filepath.Join(tuneDir, results.TuneFile))
	validate("manifest", filepath.Join(tuneDir, results.ManifestFile))

	// A schema that is wrong is caught: summary.json without its header.
	var doc map[string]any
	raw, _ := os.ReadFile(filepath.Join(runDirs[0], results.SummaryFile))
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "header")
	broken, _ := json.Marshal(doc)
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(broken)))
	if err != nil {
		t.Fatal(err)
	}
	if schemas["summary"].Validate(v) == nil {
		t.Error("a summary.json without its header matches the schema")
	}
}

// catalogueDefs are the definitions of summary.schema.json that hold each scope's metrics.
var catalogueDefs = map[results.Scope]string{results.ScopeGroup: "group", results.ScopeServer: "server", results.ScopeFault: "recovery"}

// TestSchemaCatalogue checks summary.schema.json against the metric catalogue
// (results.Catalogue): every metric with a key in summary.json is a number, or no value, at that
// key of its scope's definition (a trigger's outcome indicators the outcome they indicate), and
// every number of a group's or a server's definition that can be without a value, a rate or a
// ratio, is a metric of the catalogue.
func TestSchemaCatalogue(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("schemas", "summary.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Defs map[string]map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	// resolve follows a definition's $ref within the file.
	resolve := func(def map[string]any) map[string]any {
		if ref, ok := def["$ref"].(string); ok {
			return schema.Defs[strings.TrimPrefix(ref, "#/$defs/")]
		}
		return def
	}
	props := func(def map[string]any) map[string]any {
		p, _ := resolve(def)["properties"].(map[string]any)
		return p
	}
	nullableNumber := func(def map[string]any) bool {
		ty, _ := def["type"].([]any)
		return len(ty) == 2 && ty[0] == "number" && ty[1] == "null"
	}
	// keys lists the paths to the nullable numbers under def, as the catalogue writes them.
	var keys func(prefix string, def map[string]any) []string
	keys = func(prefix string, def map[string]any) []string {
		var out []string
		for name, p := range props(def) {
			p := resolve(p.(map[string]any))
			switch {
			case nullableNumber(p):
				out = append(out, prefix+name)
			case p["type"] == "array":
				out = append(out, keys(prefix+name+"[].", p["items"].(map[string]any))...)
			case p["properties"] != nil:
				out = append(out, keys(prefix+name+".", p)...)
			}
		}
		return out
	}

	have := map[results.Scope][]string{}
	for _, m := range results.Catalogue() {
		if m.InSummary() != (m.JSON != "") {
			t.Errorf("%s: a metric of Summary.Metrics has a key in summary.json and only they do; InSummary %v, JSON %q", m.Name, m.InSummary(), m.JSON)
		}
		if m.JSON == "" {
			continue
		}
		have[m.Scope] = append(have[m.Scope], m.JSON)
		def := schema.Defs[catalogueDefs[m.Scope]]
		for part := range strings.SplitSeq(m.JSON, ".") {
			name, array := strings.CutSuffix(part, "[]")
			next, ok := props(def)[name].(map[string]any)
			if !ok {
				def = nil
				break
			}
			def = resolve(next)
			if array {
				def, _ = def["items"].(map[string]any)
			}
		}
		switch {
		case def == nil:
			t.Errorf("%s: summary.schema.json's %s has no %s", m.Name, catalogueDefs[m.Scope], m.JSON)
		case m.Scope == results.ScopeFault && m.JSON == "outcome":
			if enum, _ := def["enum"].([]any); !slices.Contains(enum, any(m.Name)) {
				t.Errorf("%s: summary.schema.json's recovery outcome %v does not include it", m.Name, enum)
			}
		case !nullableNumber(def):
			t.Errorf("%s: summary.schema.json's %s.%s is %v, not a number or null", m.Name, catalogueDefs[m.Scope], m.JSON, def["type"])
		}
	}
	for _, scope := range []results.Scope{results.ScopeGroup, results.ScopeServer} {
		ks := keys("", schema.Defs[catalogueDefs[scope]])
		slices.Sort(ks)
		for _, k := range ks {
			if !slices.Contains(have[scope], k) {
				t.Errorf("summary.schema.json's %s.%s is a number that can be without a value but no metric of the catalogue (results.Catalogue)", catalogueDefs[scope], k)
			}
		}
	}
}

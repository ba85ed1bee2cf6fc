package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestFormatJSON: --format json prints the result as JSON that parses, on every command that has
// it, and another format is a usage error.
func TestFormatJSON(t *testing.T) {
	base := t.TempDir()
	parse := func(what, out string, v any) {
		t.Helper()
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Errorf("%s --format json printed no JSON (%v):\n%.300s", what, err, out)
		}
	}
	var list []struct {
		Name    string `json:"name"`
		Default bool   `json:"default"`
		Claim   string `json:"claim"`
	}
	parse("list", runOK(t, "list", "--format", "json"), &list)
	if len(list) < 10 || list[0].Claim == "" {
		t.Errorf("list: %+v", list)
	}
	sweep := filepath.Join(base, "sweep")
	var sw struct {
		Header struct{ Scenario string } `json:"header"`
		Points []any                     `json:"points"`
	}
	parse("sweep", runOK(t, "sweep", "healthy", "--vary", "clients[0].workload.rate=200/s,400/s", "--set", "duration=3s",
		"--set", "warmup=1s", "--replications", "2", "--out", sweep, "--format", "json"), &sw)
	if sw.Header.Scenario != "healthy" || len(sw.Points) != 2 {
		t.Errorf("sweep: %+v", sw)
	}
	var chk struct {
		OK          bool  `json:"ok"`
		Regressions []any `json:"regressions"`
	}
	parse("check", runOK(t, "check", "--baseline", filepath.Join(sweep, "sweep.json"), sweep, "--format", "json"), &chk)
	if !chk.OK || chk.Regressions == nil {
		t.Errorf("check: %+v", chk)
	}
	var m struct {
		Trigger string `json:"trigger"`
		Cells   []any  `json:"cells"`
	}
	parse("map", runOK(t, "map", tinyCut, "--vary", "faults[0].speed=0.3,0.6", "--vary", "faults[0].for=200ms,2s",
		"--replications", "2", "--out", filepath.Join(base, "map"), "--format", "json"), &m)
	if len(m.Cells) != 4 {
		t.Errorf("map: %+v", m)
	}
	for _, cmd := range [][]string{{"list"}, {"sweep", "healthy"}, {"map", tinyCut}, {"check", "--baseline", "x", sweep}} {
		if s, _, errb := runStatus(append(cmd, "--format", "yaml")...); s != exitUsage {
			t.Errorf("%v --format yaml: exit %d %s", cmd, s, errb)
		}
	}
}

package main

import "testing"

// TestMetricListTexts pins the texts that name metrics from the catalogue's roles and that
// the command transcripts do not show: tune's list of metric forms with its examples, and
// check's refusal of a --tolerance for a metric it does not watch.
func TestMetricListTexts(t *testing.T) {
	sc, err := loadScenario(tinyCut, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := metricForms(sc), "total.METRIC, group.NAME.METRIC (NAME: app), server.NAME.METRIC (NAME: db), fault.NAME.METRIC (NAME: cpu-cut), METRIC as 'simulate help metrics' lists it (goodput, amplification, latency_ok_p99, reject_share, recovery_time, …)"; got != want {
		t.Errorf("metricForms = %q\nwant          %q", got, want)
	}
	_, err = parseTolerance(map[string]string{"offered": "0.1"})
	if got, want := err.Error(), "--tolerance offered: unknown gate (goodput, amplification, p99, failure_share, stuck, recovery_time)"; got != want {
		t.Errorf("parseTolerance(offered) = %q, want %q", got, want)
	}
}

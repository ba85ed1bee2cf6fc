package scenarios

import (
	"strings"
	"testing"
)

// TestRangeStepLargerThanSpan pins that a range from:to:step with to > from whose step exceeds
// to − from is refused (checkRange), naming the step, the two ends and the rule: 1:2:5 once
// swept the one point 1 silently. A range of one value, 5:5:1, is still one value, and a step
// equal to the span gives both ends.
func TestRangeStepLargerThanSpan(t *testing.T) {
	for _, text := range []string{"1:2:5", "0.1:0.3:0.5", "1s:2s:5s", "1000/s:2000/s:5000/s"} {
		vals, rule := expandRange(text)
		parts := strings.Split(text, ":")
		want := "the step " + parts[2] + " is larger than to − from (" + parts[1] + " − " + parts[0] + ")"
		if vals != nil || !strings.Contains(rule, want) || !strings.Contains(rule, "the step must be at most to − from") {
			t.Errorf("expandRange(%q) = %q, %q; want it refused saying %q", text, vals, rule, want)
		}
	}
	for text, want := range map[string]string{"5:5:1": "5", "1:2:1": "1 2", "1s:2s:1s": "1s 2s"} {
		if vals, rule := expandRange(text); strings.Join(vals, " ") != want || rule != "" {
			t.Errorf("expandRange(%q) = %q, %q; want %q", text, vals, rule, want)
		}
	}
}

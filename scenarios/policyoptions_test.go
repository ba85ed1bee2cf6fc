package scenarios

import (
	"strings"
	"testing"
)

// TestPolicyOptionBlocks: each policy's block is read only with its retryPolicy, and a block
// given to another policy says where that policy's options go.
func TestPolicyOptionBlocks(t *testing.T) {
	for _, tc := range []struct {
		driver, want string
	}{
		{`{retryPolicy: envoy, grpc: {maxAttempts: 3}}`, "clients[0].driver.grpc: given: options of grpc, not of this policy; its options go in envoy (retryPolicy envoy)"},
		{`{retryPolicy: mongodb-2026-03, custom: {maxAttempts: 2}}`, "clients[0].driver.custom: given: options of custom, not of this policy (retryPolicy mongodb-2026-03)"},
		{`{retryPolicy: aws-adaptive, aws: {behavior: "2025"}}`, "clients[0].driver.aws.behavior"},
		{`{retryPolicy: custom, custom: {bucket: {capacity: 0}}}`, "clients[0].driver.custom.bucket.capacity: 0: must be a finite number > 0"},
		{`{retryPolicy: grpc, grpc: {maxAttemps: 3}}`, "clients[0].driver.grpc: maxAttemps: unknown field; did you mean maxAttempts?"},
		{`{retryPolicy: sre-throttle, retryReads: false}`, "retryReads/retryWrites: false: MongoDB options that sre-throttle ignores"},
		{`{retryPolicy: mongodb-2026-03, retryTokenCapacity: 5}`, "clients[0].driver.retryTokenCapacity: 5: applies only with adaptiveRetries=true"},
	} {
		text := "name: b\nduration: 5s\ntopology:\n  nodes: [{name: db}]\nclients:\n  - name: a\n    driver: " + tc.driver + "\n    workload: {rate: 10/s}\n"
		_, err := Parse("b.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("driver %s: error %v, want one containing %q", tc.driver, err, tc.want)
		}
	}
	ok := "name: b\nduration: 5s\ntopology:\n  nodes: [{name: db}]\nclients:\n  - name: a\n    driver: {retryPolicy: grpc, grpc: {retryThrottling: {maxTokens: 10, tokenRatio: 0.1}, hedgingPolicy: {maxAttempts: 3, hedgingDelay: 20ms}}}\n    workload: {rate: 10/s}\n"
	if _, err := Parse("ok.yaml", []byte(ok)); err != nil {
		t.Errorf("a grpc block with throttling and hedging: %v", err)
	}
}

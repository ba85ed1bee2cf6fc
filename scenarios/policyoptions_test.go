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
		// Two blocks: the driver holds the first, and the second is validated as if in its place.
		{`{retryPolicy: grpc, aws: {maxAttempts: 2}, grpc: {maxAttempts: 1}}`, "clients[0].driver.grpc.maxAttempts: 1: must be ≥ 2"},
		{`{retryPolicy: grpc, grpc: {maxAttempts: 3}, aws: {maxAttempts: 2}}`, "clients[0].driver.aws: given: options of aws-standard, aws-adaptive, not of this policy; its options go in grpc (retryPolicy grpc)"},
	} {
		text := "name: b\nduration: 5s\ntopology:\n  nodes: [{name: db}]\nclients:\n  - name: a\n    driver: " + tc.driver + "\n    workload: {rate: 10/s}\n"
		_, err := Parse("b.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("driver %s: error %v, want one containing %q", tc.driver, err, tc.want)
		}
	}
	ok := "name: b\nduration: 5s\ntopology:\n  nodes: [{name: db}]\nclients:\n  - name: a\n    driver: {retryPolicy: grpc, grpc: {retryThrottling: {maxTokens: 10, tokenRatio: 0.1}, hedgingPolicy: {maxAttempts: 3, hedgingDelay: 20ms}}}\n    workload: {rate: 10/s}\n"
	sc, err := Parse("ok.yaml", []byte(ok))
	if err != nil {
		t.Fatalf("a grpc block with throttling and hedging: %v", err)
	}
	// The canonical text writes the block under its key, every default filled in.
	want := `      grpc:
        maxAttempts: 4
        initialBackoff: 100ms
        maxBackoff: 1s
        backoffMultiplier: 2
        retryableStatusCodes: [UNAVAILABLE, RESOURCE_EXHAUSTED]
        retryThrottling: {maxTokens: 10, tokenRatio: 0.1}
        hedgingPolicy:
          maxAttempts: 3
          hedgingDelay: 20ms
          nonFatalStatusCodes: [UNAVAILABLE, INTERNAL, ABORTED]
        backoffJitter: grpc-go-1.69
    workload:`
	if text := sc.String(); !strings.Contains(text, want) {
		t.Errorf("canonical text:\n%s\nwant it to hold\n%s", text, want)
	}
}

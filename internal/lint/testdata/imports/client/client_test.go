package client_test

// Test files are exempt: an external test may drive its package from above.
import "example.org/m/scenarios"

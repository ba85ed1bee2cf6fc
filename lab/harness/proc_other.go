//go:build !unix

package harness

import "os/exec"

// ownGroup leaves the default: cancelling kills the runner's process only.
func ownGroup(*exec.Cmd) {}

//go:build unix

package harness

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the runner in a process group of its own and makes cancelling kill the whole
// group: a runner's children (node's workers, a shell's) must not outlive it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

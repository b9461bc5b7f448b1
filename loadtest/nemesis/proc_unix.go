//go:build unix

package nemesis

import (
	"os/exec"
	"syscall"
)

// groupKill starts cmd in a process group of its own and makes its
// cancellation kill the whole group: a shell's children too.
func groupKill(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

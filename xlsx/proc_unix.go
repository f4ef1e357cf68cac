//go:build unix

package xlsx

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own and ends the whole
// group on cancel: soffice is a script that starts the real binary, which
// killing the script alone would leave running.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

//go:build unix

package install

import (
	"os"
	"os/exec"
	"syscall"
)

// killSelf ends the process at once, as a crash or an OOM kill would: no
// deferred function runs.
func killSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }

// killedBySelf reports whether a child ended by killSelf.
func killedBySelf(ee *exec.ExitError) bool {
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

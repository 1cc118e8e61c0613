package install

import (
	"os"
	"os/exec"
)

// killedExitCode is what os.Process.Kill (TerminateProcess) leaves as the
// exit code on Windows.
const killedExitCode = 1

// killSelf ends the process at once with TerminateProcess: no deferred
// function runs.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill()
	}
}

// killedBySelf reports whether a child ended by killSelf. Windows records
// no signal, only the exit code TerminateProcess was given.
func killedBySelf(ee *exec.ExitError) bool { return ee.ExitCode() == killedExitCode }

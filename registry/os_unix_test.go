//go:build unix

package registry

import "syscall"

// syncFS flushes dirty pages so that a timed benchmark phase does not pay
// for the last one's writes.
func syncFS() { syscall.Sync() }

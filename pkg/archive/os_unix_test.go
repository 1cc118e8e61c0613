//go:build unix

package archive

import "syscall"

// umask sets the process umask and returns the previous one.
func umask(mask int) int { return syscall.Umask(mask) }

// mkfifo makes a named pipe, a special file Pack must refuse.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

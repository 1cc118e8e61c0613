// Package boundedfile reads small files (keys, tokens, policies,
// configuration, skill files) without trusting their size: a file that
// turns out larger than the caller allows is an error, never a huge
// allocation, even when it grows while being read.
package boundedfile

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// TooLargeError is a file larger than the bound it was read with.
type TooLargeError struct {
	// Path is the file.
	Path string
	// Max is the bound in bytes.
	Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %d bytes", e.Path, e.Max)
}

// Class is errdef.Validation: the file breaks the bound its reader sets.
func (e *TooLargeError) Class() errdef.Class { return errdef.Validation }

// Read returns the content of the file at path when it holds at most max
// bytes, else a *TooLargeError. It reads no more than max+1 bytes.
func Read(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, path, max)
}

// readAtMost reads r (the file at path) whole when it holds at most max
// bytes, reading no more than max+1.
func readAtMost(r io.Reader, path string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Max: max}
	}
	return data, nil
}

// NotRegularError is a path that is not a regular file (a FIFO, a
// device, a socket, a directory), refused at once: reading a FIFO would
// wait forever for a writer.
type NotRegularError struct {
	// Path is the file.
	Path string
	// Mode is what it is.
	Mode os.FileMode
}

// Class is errdef.Validation: a FIFO or device where a file belongs is
// refused input, not a failure of skillpm.
func (e *NotRegularError) Class() errdef.Class { return errdef.Validation }

func (e *NotRegularError) Error() string {
	what := "not a regular file"
	switch {
	case e.Mode&os.ModeNamedPipe != 0:
		what = "a named pipe (FIFO), not a regular file"
	case e.Mode&os.ModeDevice != 0:
		what = "a device, not a regular file"
	case e.Mode&os.ModeSocket != 0:
		what = "a socket, not a regular file"
	case e.Mode.IsDir():
		what = "a directory, not a regular file"
	}
	return fmt.Sprintf("%s is %s", e.Path, what)
}

// OpenRegular opens path for reading only if it is a regular file
// (following symlinks). The open itself does not block on a FIFO, and the
// check is made on the opened file, so a swap after a check cannot slip
// a FIFO or a device in.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return f, nil
}

// ReadRegular is Read for a path that must be a regular file
// (OpenRegular): a FIFO or a device is refused at once.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, path, max)
}

// Package boundedfile reads small files (keys, tokens, policies,
// configuration, skill files) without trusting their size: a file that
// turns out larger than the caller allows is an error, never a huge
// allocation, even when it grows while being read.
package boundedfile

import (
	"fmt"
	"io"
	"os"
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

// Read returns the content of the file at path when it holds at most max
// bytes, else a *TooLargeError. It reads no more than max+1 bytes.
func Read(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Max: max}
	}
	return data, nil
}

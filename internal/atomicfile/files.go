package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// File is one file of a [WriteFiles] batch.
type File struct {
	Path string
	Data []byte
	Perm os.FileMode
}

// WriteFiles replaces several files together, as a project's skills.yaml
// and skills.lock must be: every new content is written and fsynced to a
// temporary file beside its target first, and only when all of them are
// on disk are they renamed into place. A failure while writing leaves
// every target untouched; only a crash between the renames (a window of
// a few rename calls, no data written) can leave some replaced.
func WriteFiles(files []File) (err error) {
	tmps := make([]string, 0, len(files))
	defer func() {
		if err != nil {
			for _, t := range tmps {
				os.Remove(t)
			}
		}
	}()
	for _, f := range files {
		t, err := stage(f)
		if err != nil {
			return err
		}
		tmps = append(tmps, t)
	}
	dirs := map[string]bool{}
	for i, f := range files {
		if err := os.Rename(tmps[i], f.Path); err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
		dirs[filepath.Dir(f.Path)] = true
	}
	for dir := range dirs {
		if d, err := os.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	return nil
}

// stage writes f's data to a synced temporary file beside f.Path.
func stage(f File) (tmp string, err error) {
	t, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", f.Path, err)
	}
	defer func() {
		if err != nil {
			t.Close()
			os.Remove(t.Name())
		}
	}()
	if err = t.Chmod(f.Perm); err != nil {
		return "", fmt.Errorf("writing %s: %w", f.Path, err)
	}
	if _, err = t.Write(f.Data); err != nil {
		return "", fmt.Errorf("writing %s: %w", f.Path, err)
	}
	if err = t.Sync(); err != nil {
		return "", fmt.Errorf("writing %s: %w", f.Path, err)
	}
	if err = t.Close(); err != nil {
		return "", fmt.Errorf("writing %s: %w", f.Path, err)
	}
	return t.Name(), nil
}

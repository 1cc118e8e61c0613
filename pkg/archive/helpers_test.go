package archive

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// spec is a file to create in a test tree: content, and whether executable.
// A name ending in "/" is a directory.
type spec struct {
	body string
	exec bool
}

// writeTree creates files under dir in the order of names.
func writeTree(t testing.TB, dir string, names []string, files map[string]spec) {
	t.Helper()
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		s := files[name]
		mode := os.FileMode(0o644)
		if s.exec {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(s.body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
}

func sortedKeys(m map[string]spec) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}

// sampleSkill is a small tree used by several tests.
func sampleSkill() map[string]spec {
	return map[string]spec{
		"SKILL.md":              {body: "---\nname: sample\ndescription: A sample.\n---\n\nDo things.\n"},
		"scripts/run.sh":        {body: "#!/bin/sh\necho run\n", exec: true},
		"scripts/lib/helper.py": {body: "def helper():\n    return 42\n"},
		"references/a-b.md":     {body: "sorted before a/ in byte order\n"},
		"references/a/deep.md":  {body: "deep\n"},
		"assets/empty.txt":      {},
		"assets/ünïcode.md":     {body: "non-ASCII name\n"},
		"assets/" + strings.Repeat("long-name-", 12) + ".md": {body: "needs a PAX path record\n"},
	}
}

func packBytes(t testing.TB, dir string, opts PackOptions) ([]byte, PackResult) {
	t.Helper()
	var buf bytes.Buffer
	res, err := Pack(context.Background(), dir, &buf, opts)
	if err != nil {
		t.Fatalf("Pack: %v", err)
	}
	return buf.Bytes(), res
}

// ent is one entry of a test tar.
type ent struct {
	name string
	typ  byte
	body string
	mode int64
	link string
	size int64 // overrides len(body) when non-zero
}

func file(name, body string) ent { return ent{name: name, typ: tar.TypeReg, body: body, mode: 0o644} }
func dirEnt(name string) ent     { return ent{name: name, typ: tar.TypeDir, mode: 0o755} }

// tarBytes writes entries with archive/tar, which writes hostile names and
// types as given.
func tarBytes(t testing.TB, ents []ent) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range ents {
		size := int64(len(e.body))
		if e.typ != tar.TypeReg {
			size = 0
		}
		if e.size != 0 {
			size = e.size
		}
		hdr := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: e.mode, Size: size, Linkname: e.link, ModTime: time.Unix(0, 0)}
		if e.typ == tar.TypeXGlobalHeader {
			hdr = &tar.Header{Typeflag: e.typ, PAXRecords: map[string]string{"comment": e.body}}
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatalf("WriteHeader(%q): %v", e.name, err)
		}
		if e.typ == tar.TypeReg && e.size == 0 {
			if _, err := io.WriteString(tw, e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Close only when every entry is complete: an entry with a size
	// override tests a lying size field, and its header is already out.
	for _, e := range ents {
		if e.size != 0 {
			return buf.Bytes()
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipBytes(t testing.TB, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func tarGz(t testing.TB, ents ...ent) []byte { return gzipBytes(t, tarBytes(t, ents)) }

// rawHeader builds one tar header block by hand, for names and records
// archive/tar refuses to write.
func rawHeader(name string, typ byte, size int64) []byte {
	b := make([]byte, 512)
	copy(b[0:100], name)
	copy(b[100:108], "0000644\x00")
	copy(b[108:116], "0000000\x00")
	copy(b[116:124], "0000000\x00")
	copy(b[124:136], fmt.Sprintf("%011o\x00", size))
	copy(b[136:148], "00000000000\x00")
	b[156] = typ
	copy(b[257:265], "ustar\x0000")
	if typ == tar.TypeGNUSparse {
		copy(b[257:265], "ustar  \x00") // GNU format, as sparse entries need
	}
	copy(b[148:156], "        ")
	var sum int64
	for _, c := range b {
		sum += int64(c)
	}
	copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

// rawEntry is a header plus its padded data.
func rawEntry(name string, typ byte, data string) []byte {
	b := rawHeader(name, typ, int64(len(data)))
	b = append(b, data...)
	if pad := len(data) % 512; pad != 0 {
		b = append(b, make([]byte, 512-pad)...)
	}
	return b
}

// paxRecord formats one PAX record, "%d %s=%s\n", whose length counts
// its own digits.
func paxRecord(k, v string) string {
	size := len(k) + len(v) + 3
	size += len(fmt.Sprint(size))
	rec := fmt.Sprintf("%d %s=%s\n", size, k, v)
	if len(rec) != size {
		rec = fmt.Sprintf("%d %s=%s\n", len(rec), k, v)
	}
	return rec
}

func endOfArchive() []byte { return make([]byte, 1024) }

// listDir returns the names in dir, sorted.
func listDir(t testing.TB, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}

// tarNames lists the entry names of a .tar.gz.
func tarHeaders(t testing.TB, data []byte) []*tar.Header {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var hdrs []*tar.Header
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return hdrs
		}
		if err != nil {
			t.Fatal(err)
		}
		hdrs = append(hdrs, h)
	}
}

func headerNames(hdrs []*tar.Header) []string {
	var names []string
	for _, h := range hdrs {
		names = append(names, h.Name)
	}
	return names
}

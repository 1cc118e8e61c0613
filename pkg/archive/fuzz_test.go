package archive

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/skillpm/skillpm/internal/golden"
)

// fuzzLimits keeps each input cheap while still exercising every bound.
func fuzzLimits() Limits {
	return Limits{
		MaxEntries:      64,
		MaxTotalBytes:   1 << 20,
		MaxFileBytes:    256 << 10,
		MaxPathBytes:    256,
		MaxDepth:        8,
		MaxRatio:        100,
		RatioFloorBytes: 64 << 10,
	}
}

var sentinels = []error{
	ErrUnsafePath, ErrLinkEntry, ErrSpecialFile, ErrDuplicateEntry, ErrCaseCollision,
	ErrPathConflict, ErrLimit, ErrCorrupt, ErrImplicitExec,
}

// FuzzUnpack feeds arbitrary bytes to Unpack, once as they are (a .tar.gz)
// and once gzip'd by the harness (so the fuzzer can work on raw tar). It
// must never panic, never write outside its temporary parent, leave either
// a complete dest whose installed tree hash matches the result or nothing,
// and fail only with one of the package's sentinel errors.
func FuzzUnpack(f *testing.F) {
	f.Add(tarGz(f, file("SKILL.md", "---\nname: x\n---\n"), file("scripts/run.sh", "#!/bin/sh\n")))
	f.Add(tarBytes(f, []ent{dirEnt("a/"), file("a/b", "x")}))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, gzipBytes(t, data)} {
			outer := t.TempDir()
			parent := filepath.Join(outer, "parent")
			if err := os.Mkdir(parent, 0o755); err != nil {
				t.Fatal(err)
			}
			dest := filepath.Join(parent, "skill")
			s, err := Unpack(context.Background(), bytes.NewReader(in), dest, fuzzLimits())
			if names := listDir(t, outer); !slices.Equal(names, []string{"parent"}) {
				t.Fatalf("wrote outside the parent: %q", names)
			}
			names := listDir(t, parent)
			if err != nil {
				if len(names) != 0 {
					t.Fatalf("error %v left %q behind", err, names)
				}
				if !slices.ContainsFunc(sentinels, func(s error) bool { return errors.Is(err, s) }) {
					t.Fatalf("error without a sentinel: %v", err)
				}
				continue
			}
			if !slices.Equal(names, []string{"skill"}) {
				t.Fatalf("success left %q", names)
			}
			inst, err := TreeHashInstalled(context.Background(), dest)
			if err != nil {
				t.Fatalf("TreeHashInstalled: %v", err)
			}
			if inst.TreeHash != s.TreeHash || inst.Files != s.Files || inst.Bytes != s.Bytes {
				t.Fatalf("installed %+v, unpacked %+v", inst, s)
			}
		}
	})
}

// TestFuzzSeeds checks that the committed seed corpus holds a valid
// archive, a raw tar and every small hostile case as they are made today;
// -update rewrites it.
func TestFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzUnpack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	files := sampleSkill()
	writeTree(t, src, sortedKeys(files), files)
	valid, _ := packBytes(t, src, PackOptions{})
	seeds := map[string][]byte{
		"valid-skill": valid,
		"raw-tar":     tarBytes(t, []ent{dirEnt("./"), file("./SKILL.md", "x"), file("a/b/c", "y")}),
	}
	for _, tc := range hostileCases() {
		data := tc.data(t)
		if len(data) < 4096 {
			seeds["hostile-"+tc.name] = data
		}
	}
	for name, data := range seeds {
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n"
		path := filepath.Join(dir, name)
		golden.Check(t, path, []byte(body), *update)
	}
}

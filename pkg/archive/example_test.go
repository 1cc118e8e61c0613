package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/pkg/archive"
)

// Example packs a skill directory, checks the tree hash against a hash of
// the directory itself, and unpacks the layer the way an install does.
func Example() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "skill-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)

	src := filepath.Join(tmp, "hello")
	must(os.MkdirAll(filepath.Join(src, "scripts"), 0o755))
	must(os.WriteFile(filepath.Join(src, "SKILL.md"), []byte("---\nname: hello\ndescription: Says hello.\n---\nRun scripts/hello.sh.\n"), 0o644))
	must(os.WriteFile(filepath.Join(src, "scripts", "hello.sh"), []byte("#!/bin/sh\necho hello\n"), 0o755))
	must(os.WriteFile(filepath.Join(src, ".skillignore"), []byte("*.tmp\n"), 0o644))
	must(os.WriteFile(filepath.Join(src, "notes.tmp"), []byte("not packed\n"), 0o644))

	var layer bytes.Buffer
	packed, err := archive.Pack(ctx, src, &layer, archive.PackOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("files:", packed.Files, "dirs:", packed.Dirs)
	fmt.Println("tree:", packed.TreeHash)

	onDisk, err := archive.TreeHashDir(ctx, src, archive.PackOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("same as TreeHashDir:", onDisk.TreeHash == packed.TreeHash)

	unpacked, err := archive.Unpack(ctx, &layer, filepath.Join(tmp, "installed"), archive.DefaultLimits())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("same after Unpack:", unpacked.TreeHash == packed.TreeHash)
	// Output:
	// files: 3 dirs: 1
	// tree: sha256:43b4f215d5c2cbcae2dbdff3032c04761fa25094d85059098b38d74bf0e6b8d4
	// same as TreeHashDir: true
	// same after Unpack: true
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

package registry_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source"
)

func ExampleBuild() {
	a, err := registry.Build(context.Background(), "../testdata/asf/fix", registry.BuildOptions{NoVCS: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Manifest.ArtifactType, a.Tag())
	fmt.Println(a.Manifest.Annotations[registry.AnnotationRequires])
	fmt.Println(a.Manifest.Layers[0].Annotations["org.opencontainers.image.title"])
	// Output:
	// application/vnd.skillpm.skill.v1 1.0.0
	// {"code":"^1.0","diagnosis":"^1.0"}
	// fix-1.0.0.tar.gz
}

func ExampleClient_Publish() {
	ctx := context.Background()
	tmp, _ := os.MkdirTemp("", "skillpm-example-")
	defer os.RemoveAll(tmp)
	c, err := registry.New(registry.Options{CacheDir: filepath.Join(tmp, "cache"), EmbeddedDir: filepath.Join(tmp, "registry")})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := registry.Build(ctx, "../testdata/asf/fix", registry.BuildOptions{NoVCS: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 2 {
		res, err := c.Publish(ctx, c.Embedded(), a, registry.PublishOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Location.Repository, res.Tag, "unchanged:", res.Unchanged)
	}
	repo, _ := c.Repository(c.Embedded(), "fix")
	sel, _ := source.ParseSelector("^1")
	m, err := repo.Get(ctx, sel, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Metadata.Version, m.Metadata.Requires)
	// Output:
	// fix 1.0.0 unchanged: false
	// fix 1.0.0 unchanged: true
	// 1.0.0 map[code:^1.0 diagnosis:^1.0]
}

package depcheck

import (
	"go/parser"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/skillpm/skillpm"

// layers lists every package of the module by layer, lowest first. A
// package may import packages of its own layer and below, never above: the
// trust policy never reaches into an install, the registry client never
// into the resolver. A new package must be added here.
var layers = [][]string{
	// Leaves: the error taxonomy and small file helpers; test helpers.
	{"pkg/errdef", "internal/atomicfile", "internal/boundedfile", "internal/userdir", "internal/approval", "internal/gaiarules",
		"internal/corpustest", "internal/gittest", "internal/registrytest", "internal/depcheck", "internal/golden",
		"internal/yamlstrict", "internal/jsonkeys", "internal/reftable", "internal/buildinfo"},
	// The skill model and what reads skills alone; the source grammar.
	{"pkg/skill", "pkg/archive", "pkg/migrate", "pkg/audit", "pkg/audit/attest", "pkg/audit/internal/treesitter", "source"},
	// Signatures, the hosts table, git sources.
	{"sign", "hosts", "gitsource"},
	// Registry transport and content.
	{"registry"},
	// Trust policy and resolution; the registry as the resolver sees it
	// and under a trust policy.
	{"tiers", "resolve", "registry/catalog", "registry/policycheck", "registry/sparse", "registry/advisory"},
	// Installs, the roots a request names, and the workflow runner.
	{"install", "install/auditor", "install/roots", "asf"},
	// The engine: the decisions the front ends share. The module root
	// holds no Go code (TestRootHasNoGo).
	{"engine"},
	// Front-end glue: the HTTP API, the CLI's configuration.
	{"api", "internal/config"},
	// Commands.
	{"cmd/skillpm", "internal/cmd/release-image", "pkg/audit/internal/treesitter/precompile", "hosts/internal/gentable"},
}

// forbidden are imports the layers allow that must not exist all the same.
var forbidden = map[string][]string{
	// The install library reaches the audit through an interface, so a
	// program can install without the audit's parsers.
	"install": {"pkg/audit"},
}

// knownViolations are the imports that break the rules (none today), each with
// the work that removes it. The test fails when one of them is gone (take
// it off the list) as when a new one appears.
var knownViolations = map[string]string{}

// TestLayers parses the imports of every non-test file of the module and
// checks them against layers, forbidden and knownViolations.
func TestLayers(t *testing.T) {
	layerOf := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			layerOf[p] = i
		}
	}
	imports := map[string]map[string]bool{}
	_, files := moduleFiles(t, parser.ImportsOnly, 100, nil)
	for _, f := range files {
		if imports[f.Pkg] == nil {
			imports[f.Pkg] = map[string]bool{}
		}
		for _, imp := range f.File.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if p == module {
				imports[f.Pkg]["."] = true
			} else if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				imports[f.Pkg][rest] = true
			}
		}
	}
	if len(imports) < 20 {
		t.Fatalf("found %d packages; the walk is broken", len(imports))
	}
	seen := map[string]bool{}
	for pkg, imps := range imports {
		from, ok := layerOf[pkg]
		if !ok {
			t.Errorf("package %s is in no layer: add it to layers in %s", pkg, "internal/depcheck")
			continue
		}
		for imp := range imps {
			edge := pkg + " -> " + imp
			to, ok := layerOf[imp]
			bad := ok && to > from || slices.Contains(forbidden[pkg], imp)
			switch {
			case !bad:
			case knownViolations[edge] != "":
				seen[edge] = true
			case to > from:
				t.Errorf("%s imports %s, a higher layer (%d > %d): move the code, or take an interface", pkg, imp, to, from)
			default:
				t.Errorf("%s imports %s, which it must not", pkg, imp)
			}
		}
	}
	for edge, work := range knownViolations {
		if !seen[edge] {
			t.Errorf("%s is gone (%s): take it off knownViolations", edge, work)
		}
	}
	// Keep the test's own list honest: every listed package exists.
	for p := range layerOf {
		if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(p))); err != nil {
			t.Errorf("layers lists %s, which does not exist", p)
		}
	}
}

// TestRootHasNoGo: the module root is left to go.mod, the README and the
// top-level folders; the engine lives in engine/, as Helm's lives in
// pkg/action.
func TestRootHasNoGo(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") {
			t.Errorf("%s is Go code at the module root: move it into a package (the engine is engine/)", e.Name())
		}
	}
}

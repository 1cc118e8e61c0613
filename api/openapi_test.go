package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/skillpm/skillpm/api"
)

// specChecker validates real responses against the OpenAPI document the
// server embeds and serves, and records which operations answered with
// success, so a test can require that every one of them did.
type specChecker struct {
	t      *testing.T
	doc    *openapi3.T
	router routers.Router
	mu     sync.Mutex
	ok     map[string]bool // "GET /api/skills/{name}" answered 2xx
}

func newSpecChecker(t *testing.T) *specChecker {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI())
	if err != nil {
		t.Fatalf("the OpenAPI document does not load: %v", err)
	}
	router, err := legacy.NewRouter(doc) // validates the document
	if err != nil {
		t.Fatalf("the OpenAPI document is not valid: %v", err)
	}
	return &specChecker{t: t, doc: doc, router: router, ok: map[string]bool{}}
}

// check validates one response to req: against its operation, or, for a
// path the document does not have, as the error envelope. A streamed
// install is checked line by line as Events.
func (c *specChecker) check(req *http.Request, res *http.Response, body []byte) {
	c.t.Helper()
	if !strings.HasPrefix(req.URL.Path, "/api/") {
		return
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		if res.StatusCode < 400 {
			c.t.Errorf("%s %s answered %d but is not in the OpenAPI document: %v", req.Method, req.URL.Path, res.StatusCode, err)
			return
		}
		c.visit(req, "ErrorBody", body)
		return
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	streamed := strings.HasPrefix(res.Header.Get("Content-Type"), api.NDJSON)
	if streamed {
		opts.ExcludeResponseBody = true
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts},
		Status:                 res.StatusCode, Header: res.Header, Options: opts,
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		c.t.Errorf("%s %s: %d does not match the OpenAPI document: %v\n%s", req.Method, req.URL, res.StatusCode, err, body)
		return
	}
	if streamed {
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.visit(req, "Event", sc.Bytes())
		}
	}
	if res.StatusCode < 300 {
		c.mu.Lock()
		c.ok[route.Method+" "+route.Path] = true
		c.mu.Unlock()
	}
}

func (c *specChecker) visit(req *http.Request, schema string, data []byte) {
	c.t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		c.t.Errorf("%s %s: not JSON: %v\n%s", req.Method, req.URL, err, data)
		return
	}
	if err := c.doc.Components.Schemas[schema].Value.VisitJSON(v); err != nil {
		c.t.Errorf("%s %s: not a %s of the OpenAPI document: %v\n%s", req.Method, req.URL, schema, err, data)
	}
}

// missing lists the document's operations that never answered 2xx.
func (c *specChecker) missing() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for path, item := range c.doc.Paths.Map() {
		for method := range item.Operations() {
			if !c.ok[method+" "+path] {
				out = append(out, method+" "+path)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestOpenAPI drives every endpoint the OpenAPI document describes, each
// to a success and to its failures, and validates each real answer
// against the document (the fixture does, on every request of every
// test); it fails when an operation of the document was never exercised.
func TestOpenAPI(t *testing.T) {
	f := newFixture(t, func(c *api.Config) {
		c.Search = func(_ context.Context, q string) (any, error) {
			return []map[string]any{{"name": q, "version": "1.0.0", "ref": q + "@1.0.0", "tier": "community"}}, nil
		}
	})
	var served []byte
	if st := f.do("GET", "/api/openapi.json", nil, nil, nil); st != http.StatusOK {
		t.Fatalf("openapi.json: %d", st)
	}
	res, err := http.Get(f.url + "/api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	served, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Equal(served, api.OpenAPI()) || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Errorf("GET /api/openapi.json served %d bytes (%s), not the embedded document", len(served), res.Header.Get("Content-Type"))
	}

	steps := []struct {
		method, path string
		body         any
		hdr          map[string]string
		status       int
	}{
		{"GET", "/api/skills", nil, nil, 200},
		{"GET", "/api/skills?scope=galaxy", nil, nil, 400},
		{"GET", "/api/skills/search?q=notes", nil, nil, 200},
		{"GET", "/api/skills/search?q=", nil, nil, 400},
		{"POST", "/api/skills/install", api.InstallRequest{Ref: "fix", Host: "claude", DryRun: true}, nil, 200},
		{"POST", "/api/skills/install", api.InstallRequest{Ref: "code", Host: "claude"}, nil, 422},
		{"POST", "/api/skills/install", api.InstallRequest{Ref: "nope"}, nil, 422},
		{"POST", "/api/skills/install", api.InstallRequest{Ref: "notes"}, map[string]string{api.TokenHeader: ""}, 401},
		{"POST", "/api/skills/install", api.InstallRequest{Ref: "fix", Host: "claude"}, map[string]string{"Accept": api.NDJSON}, 200},
		{"POST", "/api/skills/install", api.InstallRequest{Ref: "code", Host: "codex", Grants: []string{"shell:execute:git"}}, nil, 201},
		{"POST", "/api/skills/install", api.InstallRequest{Ref: "code", Host: "codex"}, map[string]string{"Accept": api.NDJSON}, 200},
		{"GET", "/api/skills?host=claude", nil, nil, 200},
		{"GET", "/api/skills/notes?host=claude", nil, nil, 200},
		{"GET", "/api/skills/nothere", nil, nil, 404},
		{"POST", "/api/skills/update", api.UpdateRequest{Name: "fix", Host: "claude"}, nil, 200},
		{"POST", "/api/skills/update", api.UpdateRequest{Name: "Bad Name"}, nil, 400},
		{"DELETE", "/api/skills/notes?host=claude", nil, nil, 409},
		{"DELETE", "/api/skills/fix?host=claude&dry_run=true", nil, nil, 200},
		{"DELETE", "/api/skills/fix?host=claude&prune=true", nil, nil, 200},
		{"DELETE", "/api/skills/fix?host=claude", nil, nil, 404},
		{"GET", "/api/nothing", nil, nil, 404},
	}
	for _, s := range steps {
		if st := f.do(s.method, s.path, s.body, s.hdr, nil); st != s.status {
			t.Errorf("%s %s: %d, want %d", s.method, s.path, st, s.status)
		}
	}
	if m := f.spec.missing(); len(m) > 0 {
		t.Errorf("operations of the OpenAPI document never exercised to success: %v", m)
	}
}

package api

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry/advisory"
	"github.com/skillpm/skillpm/sign"
)

// Skill is one installed copy of a skill, as GET /api/skills lists it:
// what `skillpm list --output json` prints for it (install.Listed, with
// its root as {host, scope, dir}) and the receipt's details.
type Skill struct {
	install.Listed
	// Requested is the range asked for; "" for a dependency.
	Requested string `json:"requested,omitempty"`
	// Update is the newest version within Requested above Version, when
	// there is one: what skillpm update (and the Update button) installs.
	Update      string          `json:"update,omitempty"`
	Permissions []string        `json:"permissions"`
	Grants      []install.Grant `json:"grants"`
	Signers     []sign.Identity `json:"signers"`
	// Advisories are the obeyed advisories naming this copy (by its
	// receipt, or by its tree hash for a copy skillpm did not install),
	// as skillpm doctor reports them.
	Advisories []advisory.Advised `json:"advisories,omitempty"`
}

// Detail is GET /api/skills/{name}: the winning copy with its manifest,
// files, dependencies and dependents, and every other copy.
type Detail struct {
	// Schema is SchemaSkill.
	Schema string `json:"schema"`
	Skill
	Description string `json:"description"`
	// Manifest is the SKILL.md frontmatter as canonical JSON.
	Manifest     json.RawMessage   `json:"manifest"`
	Files        []string          `json:"files"`
	Dependencies map[string]string `json:"dependencies"`
	Dependents   []string          `json:"dependents"`
	Copies       []Skill           `json:"copies"`
}

// maxFiles bounds the file list of a detail response.
const maxFiles = 1000

// searched returns the roots to read: one host's (or every host's)
// project and user roots, or only one scope.
func (s *Server) searched(r *http.Request) ([]install.Root, *Error) {
	q := r.URL.Query()
	// The roots the CLI's list reads (roots.Searched): without a
	// host, every host's own roots once; with one, that host's view:
	// every root it reads, in its order.
	t := roots.Target{Scope: q.Get("scope")}
	if h := q.Get("host"); h != "" {
		t.Hosts = []string{h}
	}
	searched, err := roots.Searched(s.cfg.Env, t)
	if err != nil {
		return nil, badRequest(err.Error())
	}
	return searched, nil
}

// target returns the one root install and remove write to: the host
// (default the server's) at the scope (default user), as the CLI's
// grantsAndTarget checks a request's grants (each a permission) and
// resolves the root its host and scope name: what install and update
// requests share.
func (s *Server) grantsAndTarget(grants []string, host, scope string) (install.Root, *Error) {
	for _, g := range grants {
		if _, err := skill.ParsePermission(g); err != nil {
			return install.Root{}, badRequest("grant " + g + ": " + err.Error())
		}
	}
	return s.target(host, scope)
}

// --host and --scope.
func (s *Server) target(host, scope string) (install.Root, *Error) {
	h := s.cfg.Host
	if host != "" {
		ph, err := install.ParseHostIn(s.cfg.Env, host)
		if err != nil {
			return install.Root{}, badRequest(err.Error())
		}
		h = ph
	}
	sc := install.ScopeUser
	if scope != "" {
		ps, err := install.ParseScope(scope)
		if err != nil {
			return install.Root{}, badRequest(err.Error())
		}
		sc = ps
	}
	d, err := install.RootDir(h, sc, s.cfg.Env)
	if err != nil {
		return install.Root{}, badRequest(err.Error())
	}
	return install.Root{Host: h, Scope: sc, Dir: d}, nil
}

// list returns the skills of roots with their receipts' details.
func list(ctx context.Context, roots []install.Root, env install.Env) ([]Skill, error) {
	listed, err := install.ListWith(ctx, roots, env.Table())
	if err != nil {
		return nil, err
	}
	receipts := map[string]*install.Receipts{}
	out := make([]Skill, 0, len(listed))
	for _, l := range listed {
		sk := Skill{Listed: l, Permissions: []string{}, Grants: []install.Grant{}, Signers: []sign.Identity{}}
		if sk.Tier == "" {
			sk.Tier = skill.TierExperimental
		}
		if loaded, _ := skill.Load(ctx, l.Dir, skill.Options{Mode: skill.Lenient}); loaded != nil {
			sk.Permissions = append(sk.Permissions, loaded.PermissionStrings()...)
		}
		if l.Managed {
			rec, ok := receipts[l.Root.Dir]
			if !ok {
				if rec, err = install.ReadReceipts(l.Root.Dir); err != nil {
					return nil, err
				}
				receipts[l.Root.Dir] = rec
			}
			if r, ok := rec.Get(l.Name); ok {
				sk.Requested = r.Requested
				sk.Grants = append(sk.Grants, r.Grants...)
				sk.Signers = append(sk.Signers, r.Signers...)
			}
		}
		out = append(out, sk)
	}
	return out, nil
}

func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {
	roots, aerr := s.searched(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	skills, err := list(r.Context(), roots, s.cfg.Env)
	if err != nil {
		writeError(w, toError(err))
		return
	}
	s.annotateUpdates(r.Context(), skills)
	s.annotateAdvisories(r.Context(), roots, skills)
	hosts := make([]string, 0, len(install.HostsIn(s.cfg.Env)))
	for _, h := range install.HostsIn(s.cfg.Env) {
		hosts = append(hosts, string(h))
	}
	writeJSON(w, http.StatusOK, map[string]any{"schema": SchemaList, "skills": skills, "hosts": hosts, "defaultHost": s.cfg.Host})
}

func (s *Server) handleDetail(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !skill.ValidName(name) {
		writeError(w, badRequest("\""+name+"\" is not a skill name (lower-case letters, digits and hyphens)"))
		return
	}
	roots, aerr := s.searched(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	skills, err := list(r.Context(), roots, s.cfg.Env)
	if err != nil {
		writeError(w, toError(err))
		return
	}
	var d *Detail
	for _, sk := range skills {
		if sk.Name != name {
			continue
		}
		if d == nil {
			d = &Detail{Schema: SchemaSkill, Skill: sk, Manifest: json.RawMessage("{}"), Files: []string{}, Dependencies: map[string]string{}, Dependents: []string{}, Copies: []Skill{}}
			continue
		}
		d.Copies = append(d.Copies, sk)
	}
	if d == nil {
		writeError(w, newError(errdef.NotFound, name+" is not installed in the roots searched"))
		return
	}
	ctx := r.Context()
	if loaded, _ := skill.Load(ctx, d.Dir, skill.Options{Mode: skill.Lenient}); loaded != nil {
		d.Description = loaded.Description
		if b, err := loaded.CanonicalJSON(); err == nil {
			d.Manifest = b
		}
		for _, dep := range loaded.Gaia.Requirements.Skills {
			d.Dependencies[dep.Name] = dep.Range
		}
	}
	if rec, err := install.ReadReceipts(d.Root.Dir); err == nil {
		if r, ok := rec.Get(name); ok && r.Dependencies != nil {
			d.Dependencies = r.Dependencies
		}
		d.Dependents = append(d.Dependents, rec.Dependents(name)...)
	}
	_ = filepath.WalkDir(d.Dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || len(d.Files) >= maxFiles {
			return filepath.SkipAll
		}
		if !e.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(d.Dir, p)
		d.Files = append(d.Files, filepath.ToSlash(rel))
		return nil
	})
	writeJSON(w, http.StatusOK, d)
}

// mutating wraps a handler that changes something: it needs the token
// (compared in constant time) and, with a body, JSON bounded in size.
func (s *Server) mutating(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get(TokenHeader)
		if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.Token)) != 1 {
			writeError(w, withStatus(errdef.Trust, http.StatusUnauthorized,
				"missing or wrong "+TokenHeader+": open the URL skillpm serve printed (it carries the token)"))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
		h(w, r)
	}
}

// decode reads a JSON body strictly: one object, no unknown fields, so a
// field the server does not know (such as "yes") is never silently
// ignored.
func decode(r *http.Request, v any) *Error {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return withStatus(errdef.Usage, http.StatusUnsupportedMediaType, "send the request as Content-Type: application/json")
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if ae := toError(err); ae.Status == http.StatusRequestEntityTooLarge {
			return ae
		}
		return badRequest("request body: " + err.Error())
	}
	if dec.More() {
		return badRequest("request body: more than one JSON value")
	}
	return nil
}

func (s *Server) handleRemove(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !skill.ValidName(name) {
		writeError(w, badRequest("\""+name+"\" is not a skill name (lower-case letters, digits and hyphens)"))
		return
	}
	q := r.URL.Query()
	root, aerr := s.target(q.Get("host"), q.Get("scope"))
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	opts := install.RemoveOptions{Prune: q.Get("prune") == "true", DryRun: q.Get("dry_run") == "true", LockWait: s.cfg.LockWait}
	e, err := s.engine(r.Context(), s.cfg.Warn, nil, roots.Target{Given: []install.Root{root}})
	if err != nil {
		writeError(w, toError(err))
		return
	}
	done, err := e.Remove(r.Context(), engine.RemoveRequest{Names: []string{name}, Options: opts})
	if err != nil {
		writeError(w, toError(err))
		return
	}
	// The document `skillpm remove --output json` prints for one root.
	res := done.Roots[0]
	writeJSON(w, http.StatusOK, map[string]any{"schema": SchemaRemove, "root": root.Dir, "removed": res.Removed,
		"broken": nonNil(res.Broken), "notes": nonNil(res.Notes), "dry_run": opts.DryRun})
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if s.cfg.Search == nil {
		writeError(w, withStatus(errdef.Internal, http.StatusNotImplemented,
			"search is not available in this server: it was started without a registry index to search; install by name instead"))
		return
	}
	if q == "" {
		writeError(w, badRequest("give a query: /api/skills/search?q=WORDS"))
		return
	}
	res, err := s.cfg.Search(r.Context(), q)
	if err != nil {
		writeError(w, toError(err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"schema": SchemaSearch, "query": q, "results": res})
}

// annotateAdvisories sets Advisories on each copy an obeyed advisory of
// the feed of the server's source names, as list finds them (the feed the
// caches hold: every install and update the server runs reads it); a
// feed that is not there, or not obeyed, leaves the list unmarked and is
// reported through Config.Warn.
func (s *Server) annotateAdvisories(ctx context.Context, searched []install.Root, skills []Skill) {
	if len(skills) == 0 {
		return
	}
	dirs := make([]string, len(searched))
	for i, r := range searched {
		dirs[i] = r.Dir
	}
	e, err := s.engine(ctx, s.cfg.Warn, nil, roots.Target{Roots: dirs})
	if err != nil {
		return
	}
	l, err := e.List(ctx, engine.ListRequest{})
	if err != nil {
		if s.cfg.Warn != nil {
			s.cfg.Warn("checking the installed skills against the advisory feed: " + err.Error())
		}
		return
	}
	byDir := map[string][]advisory.Advised{}
	for _, a := range l.Advisories {
		byDir[a.Dir] = append(byDir[a.Dir], a.Advised)
	}
	for i := range skills {
		skills[i].Advisories = byDir[skills[i].Dir]
	}
}

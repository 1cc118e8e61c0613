package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry"
)

// NDJSON is the media type of a streamed install: one Event per line.
const NDJSON = "application/x-ndjson"

// InstallRequest is the body of POST /api/skills/install. Nothing is
// granted that it does not name: there is no prompt and no "yes".
type InstallRequest struct {
	// Ref is what `skillpm install REF` takes: name, name@range,
	// registry/namespace/name@version, oci-layout:DIR/name.
	Ref string `json:"ref"`
	// Host and Scope choose the root (default the server's host, user).
	Host  string `json:"host,omitempty"`
	Scope string `json:"scope,omitempty"`
	// AllowExperimental is --allow-experimental.
	AllowExperimental bool `json:"allowExperimental,omitempty"`
	// Grants are --grant PERM, each.
	Grants []string `json:"grants,omitempty"`
	// DryRun resolves, verifies and checks, then writes nothing: the plan
	// the panel shows before the user confirms.
	DryRun bool `json:"dryRun,omitempty"`
}

// Planned is one skill of an install's plan.
type Planned struct {
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Tier        skill.Tier      `json:"tier"`
	Source      string          `json:"source"`
	Requested   string          `json:"requested,omitempty"`
	Permissions []string        `json:"permissions"`
	Grants      []install.Grant `json:"grants"`
}

// InstallResult is the outcome of an install (or of a dry run).
type InstallResult struct {
	DryRun    bool         `json:"dryRun"`
	Root      install.Root `json:"root"`
	Installed []string     `json:"installed"`
	Unchanged []string     `json:"unchanged"`
	Skills    []Planned    `json:"skills"`
	Warnings  []string     `json:"warnings"`
}

// Event is one line of a streamed install. Stage is resolving, fetching,
// verifying, checking, committing (install.Stage), warning, then done
// (with Status and Result) or error (with Error).
type Event struct {
	Stage   string         `json:"stage"`
	Skill   string         `json:"skill,omitempty"`
	Root    string         `json:"root,omitempty"`
	Message string         `json:"message,omitempty"`
	Status  int            `json:"status,omitempty"`
	Result  *InstallResult `json:"result,omitempty"`
	Error   *Error         `json:"error,omitempty"`
}

// handleInstall runs the CLI's install for one reference. Everything the
// request can get wrong is answered with its own status before any work;
// with Accept: application/x-ndjson the work then streams its stages and
// the last line carries the status and result or error.
func (s *Server) handleInstall(w http.ResponseWriter, r *http.Request) {
	var req InstallRequest
	if aerr := decode(r, &req); aerr != nil {
		writeError(w, aerr)
		return
	}
	req.Ref = strings.TrimSpace(req.Ref)
	if req.Ref == "" {
		writeError(w, badRequest("name the skill to install in \"ref\" (web-research, web-research@^1, host/namespace/name@1.2.0)"))
		return
	}
	root, aerr := s.grantsAndTarget(req.Grants, req.Host, req.Scope)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	ctx := r.Context()
	// The reference's namespace only: what the root holds is read by
	// InstallRefs once the root is locked and recovered.
	m, _, err := install.FromRefs("the request", []string{req.Ref}, nil)
	if err != nil {
		writeError(w, toError(err))
		return
	}
	ns, err := m.Namespace(s.cfg.From)
	if err != nil {
		writeError(w, badRequest(err.Error()))
		return
	}
	// A session per request: a long-running server must see versions
	// published since it started.
	client := s.cfg.Client.Session()
	graph, err := registry.NewGraph(client, ns)
	if err != nil {
		writeError(w, toError(err))
		return
	}

	stream := strings.Contains(r.Header.Get("Accept"), NDJSON)
	var mu sync.Mutex
	var warnings []string
	send := func(Event) {}
	if stream {
		w.Header().Set("Content-Type", NDJSON)
		w.Header().Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		rc := http.NewResponseController(w)
		send = func(e Event) {
			_ = enc.Encode(e)
			_ = rc.Flush()
		}
	}
	opts := install.Options{
		Roots: []install.Root{root}, Policy: s.cfg.Policy, Trust: s.cfg.Trust, Auditor: s.cfg.Auditor,
		// No Yes and no Prompter: only what the request names is granted.
		Grants: req.Grants, AllowExperimental: req.AllowExperimental,
		DryRun: req.DryRun, LockWait: s.cfg.LockWait,
		Warn: func(msg string) {
			mu.Lock()
			defer mu.Unlock()
			warnings = append(warnings, msg)
			if s.cfg.Warn != nil {
				s.cfg.Warn(msg)
			}
			send(Event{Stage: "warning", Message: msg})
		},
		Progress: func(e install.Event) {
			mu.Lock()
			defer mu.Unlock()
			send(Event{Stage: string(e.Stage), Skill: e.Skill, Root: e.Root})
		},
	}
	res, err := install.InstallRefs(ctx, client, graph, "the request", []string{req.Ref}, opts)
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		ae := toError(err)
		if stream {
			send(Event{Stage: "error", Status: ae.Status, Error: ae})
			return
		}
		writeError(w, ae)
		return
	}
	out := &InstallResult{DryRun: req.DryRun, Root: root, Installed: []string{}, Unchanged: []string{}, Skills: []Planned{}, Warnings: []string{}}
	out.Warnings = append(out.Warnings, warnings...)
	for _, rr := range res.Roots {
		out.Installed = append(out.Installed, rr.Installed...)
		out.Unchanged = append(out.Unchanged, rr.Unchanged...)
	}
	for _, p := range res.Plan {
		pl := Planned{Name: p.Lock.Name, Version: p.Lock.Version, Tier: p.Lock.Tier, Source: p.Lock.Source,
			Requested: p.Lock.Requested, Permissions: []string{}, Grants: []install.Grant{}}
		pl.Permissions = append(pl.Permissions, p.Permissions...)
		pl.Grants = append(pl.Grants, p.Grants...)
		out.Skills = append(out.Skills, pl)
	}
	status := http.StatusOK
	if !req.DryRun && len(out.Installed) > 0 {
		status = http.StatusCreated
	}
	if stream {
		send(Event{Stage: "done", Status: status, Result: out})
		return
	}
	writeJSON(w, status, out)
}

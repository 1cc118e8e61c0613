package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	spm "github.com/skillpm/skillpm"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/tiers"
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
	// AllowAuditFindings is --allow-audit-findings.
	AllowAuditFindings bool `json:"allowAuditFindings,omitempty"`
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

// handleInstall runs the engine's install (as the CLI does) for one
// registry reference. Everything the
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
	ireq := spm.InstallRequest{
		Refs: []string{req.Ref}, Roots: []install.Root{root}, Origin: "the request", RegistryOnly: true,
		Grants: req.Grants, AllowExperimental: req.AllowExperimental, AllowAuditFindings: req.AllowAuditFindings,
		DryRun: req.DryRun,
	}
	stream := strings.Contains(r.Header.Get("Accept"), NDJSON)
	var mu sync.Mutex
	var warnings []string
	send := func(Event) {}
	// A session per request: a long-running server must see versions
	// published since it started. What the request gets wrong is
	// answered with its own status before any work.
	e, err := s.engine(ctx, func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, msg)
		if s.cfg.Warn != nil {
			s.cfg.Warn(msg)
		}
		send(Event{Stage: "warning", Message: msg})
	}, func(ev install.Event) {
		mu.Lock()
		defer mu.Unlock()
		send(Event{Stage: string(ev.Stage), Skill: ev.Skill, Root: ev.Root})
	})
	if err == nil {
		err = e.CheckRefs(ireq)
	}
	if err != nil {
		writeError(w, toError(err))
		return
	}
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
	// No Yes and no consent prompt: only what the request names is
	// granted. Only registry references: a request never makes the
	// server read a directory or fetch a repository.
	res, err := e.Install(ctx, ireq)
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

// engine opens the library engine for one request: a fresh registry
// session, the server's policy, trust, source, environment and host, and
// the audit tool name the CLI writes.
func (s *Server) engine(ctx context.Context, warn func(string), progress func(install.Event)) (*spm.Engine, error) {
	policy := s.cfg.Policy
	if policy == nil {
		policy = tiers.Default()
	}
	return spm.Open(ctx, spm.Options{
		Client: s.cfg.Client.Session(), Source: s.cfg.From, Policy: policy, Trust: s.cfg.Trust,
		Env: s.cfg.Env, Host: s.cfg.Host, Auditor: s.cfg.Auditor, AuditTool: s.cfg.AuditTool, LockWait: s.cfg.LockWait,
		Warn: warn, Progress: progress,
	})
}

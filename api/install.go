package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/internal/jsonkeys"
	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/resolve"
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
	// AllowExperimental is the CLI's allow-experimental option.
	AllowExperimental bool `json:"allow_experimental,omitempty"`
	// AllowAuditFindings is the CLI's allow-audit-findings option.
	AllowAuditFindings bool `json:"allow_audit_findings,omitempty"`
	// Grants are the permissions granted, each.
	Grants []string `json:"grants,omitempty"`
	// DryRun resolves, verifies and checks, then writes nothing: the plan
	// the panel shows before the user confirms.
	DryRun bool `json:"dry_run,omitempty"`
}

// Planned is one skill of an install's solution: the lock entry the CLI
// prints in its "skills" with the permissions it declares and the grants
// it gets.
type Planned struct {
	resolve.LockedSkill
	Permissions []string        `json:"permissions"`
	Grants      []install.Grant `json:"grants"`
}

// InstallResult is the outcome of an install (or of a dry run): the
// document `skillpm install --output json` prints (roots, changes,
// skills, dry_run) with the warnings the install gave.
type InstallResult struct {
	// Schema is SchemaInstall.
	Schema string `json:"schema"`
	// Roots are each root's installed and unchanged skills.
	Roots []install.RootResult `json:"roots"`
	// Changes are what the install changes (or, in a dry run, would):
	// the plan, without the skills already installed as they are.
	Changes  []install.Change `json:"changes"`
	Skills   []Planned        `json:"skills"`
	DryRun   bool             `json:"dry_run"`
	Warnings []string         `json:"warnings"`
}

// Event is one line of a streamed install. Stage is resolving, fetching,
// verifying, checking, committing (install.Stage), warning, then done
// (with Status and Result) or error (with Error).
type Event struct {
	// Schema is SchemaEvent.
	Schema  string         `json:"schema"`
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
	ireq := engine.InstallRequest{
		Refs: []string{req.Ref}, Origin: "the request", RegistryOnly: true,
		Consent: engine.Consent{Grants: req.Grants, AllowExperimental: req.AllowExperimental},
		Checks:  engine.Checks{AllowAuditFindings: req.AllowAuditFindings},
		DryRun:  req.DryRun,
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
	}, roots.Target{Given: []install.Root{root}})
	if err == nil {
		err = e.CheckRefs(ctx, ireq)
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
			e.Schema = SchemaEvent
			norm, err := jsonkeys.Snake(e)
			if err != nil {
				norm = Event{Schema: SchemaEvent, Stage: "error", Status: http.StatusInternalServerError,
					Error: newError(errdef.Internal, "encoding an event: "+err.Error())}
			}
			_ = enc.Encode(norm)
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
	out := &InstallResult{Schema: SchemaInstall, DryRun: req.DryRun, Roots: []install.RootResult{}, Changes: []install.Change{},
		Skills: []Planned{}, Warnings: []string{}}
	out.Warnings = append(out.Warnings, warnings...)
	installed := false
	for _, rr := range res.Roots {
		rr.Installed, rr.Unchanged = nonNil(rr.Installed), nonNil(rr.Unchanged)
		out.Roots = append(out.Roots, rr)
		installed = installed || len(rr.Installed) > 0
	}
	out.Changes = append(out.Changes, res.Changes...)
	for _, p := range res.Plan {
		pl := Planned{LockedSkill: p.Lock, Permissions: []string{}, Grants: []install.Grant{}}
		pl.Permissions = append(pl.Permissions, p.Permissions...)
		pl.Grants = append(pl.Grants, p.Grants...)
		out.Skills = append(out.Skills, pl)
	}
	status := http.StatusOK
	if !req.DryRun && installed {
		status = http.StatusCreated
	}
	if stream {
		send(Event{Stage: "done", Status: status, Result: out})
		return
	}
	writeJSON(w, status, out)
}

// engine opens the library engine for one request: a fresh registry
// session, the server's policy and trust (loaded for the request with
// LoadTrust), source and environment, and the roots t names (zero: the
// defaults), its default host the server's.
func (s *Server) engine(ctx context.Context, warn func(string), progress func(install.Event), t roots.Target) (*engine.Engine, error) {
	policy, trust := s.cfg.Policy, s.cfg.Trust
	if s.cfg.LoadTrust != nil {
		var err error
		if policy, trust, err = s.cfg.LoadTrust(ctx); err != nil {
			return nil, err
		}
	}
	if policy == nil {
		policy = tiers.Default()
	}
	t.DefaultHost = s.cfg.Host
	return engine.Open(ctx, engine.Options{
		Client: s.cfg.Client.Session(), Source: s.cfg.From, Policy: policy, Trust: trust,
		Env: s.cfg.Env, Target: t, Auditor: s.cfg.Auditor, LockWait: s.cfg.LockWait,
		Log: slog.New(sink{warn: warn, progress: progress}),
	})
}

// sink hands the engine's warnings (Options.Log) to warn and, when
// progress is set, its install stages to progress; notes are the CLI's
// and are dropped.
type sink struct {
	warn     func(string)
	progress func(install.Event)
}

// Enabled asks for warnings, and for install stages when progress is set.
func (s sink) Enabled(_ context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && s.warn != nil || l == slog.LevelDebug && s.progress != nil
}

// Handle passes one warning or install stage on.
func (s sink) Handle(_ context.Context, r slog.Record) error {
	switch {
	case r.Level >= slog.LevelWarn && s.warn != nil:
		s.warn(r.Message)
	case r.Level == slog.LevelDebug && s.progress != nil:
		r.Attrs(func(a slog.Attr) bool {
			if ev, ok := a.Value.Any().(install.Event); ok && a.Key == engine.EventKey {
				s.progress(ev)
			}
			return true
		})
	}
	return nil
}

// WithAttrs returns s.
func (s sink) WithAttrs([]slog.Attr) slog.Handler { return s }

// WithGroup returns s.
func (s sink) WithGroup(string) slog.Handler { return s }

package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/engine"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/install/roots"
	"github.com/skillpm/skillpm/pkg/skill"
	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// UpdateRequest is the body of POST /api/skills/update.
type UpdateRequest struct {
	// Name is the installed skill to update within its requested range.
	Name  string `json:"name"`
	Host  string `json:"host"`
	Scope string `json:"scope"`
	// Grants consent to dangerous permissions the new version adds.
	Grants []string `json:"grants"`
	// AllowAuditFindings is the CLI's allow-audit-findings option.
	AllowAuditFindings bool `json:"allow_audit_findings,omitempty"`
}

// UpdateResult is what POST /api/skills/update did: the document
// `skillpm update --output json` prints.
type UpdateResult struct {
	// Schema is SchemaUpdate.
	Schema  string               `json:"schema"`
	Changes []install.Change     `json:"changes"`
	Roots   []install.RootResult `json:"roots"`
	DryRun  bool                 `json:"dry_run"`
}

// annotateUpdates sets Update on each skill asked for by name that has a
// newer version within its requested range, as skillpm update would
// install; a source that cannot be read leaves the skill unmarked.
func (s *Server) annotateUpdates(ctx context.Context, skills []Skill) {
	ns, err := (&resolve.Manifest{}).Namespace(s.cfg.From)
	if err != nil {
		return
	}
	cat, err := catalog.New(s.cfg.Client.Session(), ns)
	if err != nil {
		return
	}
	for i := range skills {
		sk := &skills[i]
		if !sk.Managed || sk.Source == "" || sk.Requested == "" {
			continue
		}
		cur, err := semver.NewVersion(sk.Version)
		if err != nil {
			continue
		}
		set, err := resolve.ParseRange(sk.Requested, cur.Prerelease() != "")
		if err != nil {
			continue
		}
		vs, err := cat.Versions(ctx, ns.KeyOf(sk.Source))
		if err != nil {
			continue
		}
		var best *semver.Version
		for _, v := range vs {
			if set.Contains(v) && v.GreaterThan(cur) && (best == nil || v.GreaterThan(best)) {
				best = v
			}
		}
		if best != nil {
			sk.Update = best.String()
		}
	}
}

// handleUpdate runs the engine's update (as the CLI does) for one
// installed skill in one root.
func (s *Server) handleUpdate(w http.ResponseWriter, r *http.Request) {
	var req UpdateRequest
	if aerr := decode(r, &req); aerr != nil {
		writeError(w, aerr)
		return
	}
	req.Name = strings.TrimSpace(req.Name)
	if !skill.ValidName(req.Name) {
		writeError(w, badRequest("name the installed skill to update in \"name\""))
		return
	}
	root, aerr := s.grantsAndTarget(req.Grants, req.Host, req.Scope)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	e, err := s.engine(r.Context(), s.cfg.Warn, nil, roots.Target{Given: []install.Root{root}})
	if err != nil {
		writeError(w, toError(err))
		return
	}
	res, err := e.Update(r.Context(), engine.UpdateRequest{Names: []string{req.Name}, InstallRequest: engine.InstallRequest{
		RegistryOnly: true,
		Consent:      engine.Consent{Grants: req.Grants}, Checks: engine.Checks{AllowAuditFindings: req.AllowAuditFindings},
	}})
	if err != nil {
		writeError(w, toError(err))
		return
	}
	out := UpdateResult{Schema: SchemaUpdate, Changes: []install.Change{}, Roots: []install.RootResult{}}
	out.Changes = append(out.Changes, res.Changes...)
	for _, rr := range res.Roots {
		rr.Installed, rr.Unchanged = nonNil(rr.Installed), nonNil(rr.Unchanged)
		out.Roots = append(out.Roots, rr)
	}
	writeJSON(w, http.StatusOK, out)
}

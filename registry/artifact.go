package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/pkg/archive"
	"github.com/skillpm/skillpm/pkg/skill"
)

// Media types of the skill artifact (artifact.md).
const (
	// ArtifactType is the manifest's artifactType.
	ArtifactType = "application/vnd.skillpm.skill.v1"
	// ConfigMediaType is the config blob: the frontmatter's canonical JSON.
	ConfigMediaType = "application/vnd.skillpm.skill.config.v1+json"
	// LayerMediaType is the one layer: the skill directory, packed.
	LayerMediaType = ocispec.MediaTypeImageLayerGzip
)

// Annotation keys of the skill manifest beyond the org.opencontainers ones.
const (
	// AnnotationRequires is a compact JSON object {"name": "range"} of the
	// declared plus implicit (ASF call) dependencies, keys sorted.
	AnnotationRequires = "dev.skillpm.skill.requires"
	// AnnotationTier is the claimed security_tier; present and empty when
	// the skill claims none (then the trust policy alone decides its tier).
	// Artifacts built before that carry experimental for no claim.
	AnnotationTier = "dev.skillpm.skill.tier"
	// AnnotationPermissions is a compact JSON array of the declared
	// permissions.
	AnnotationPermissions = "dev.skillpm.skill.permissions"
	// AnnotationTree is the "sha256:<hex>" tree hash of the unpacked files.
	AnnotationTree = "dev.skillpm.skill.tree"
)

// BuildOptions controls [Build]. The zero value is ready to use: no created
// time, git metadata when dir is in a git checkout.
type BuildOptions struct {
	// Created, when not zero, is written as org.opencontainers.image.created
	// and as every tar entry's mtime. The CLI sets it from SOURCE_DATE_EPOCH
	// ([SourceDateEpoch]); otherwise it stays zero so that the same skill
	// always gives the same manifest digest.
	Created time.Time
	// Source and Revision, when set, are written as
	// org.opencontainers.image.source and .revision instead of what git says.
	Source, Revision string
	// NoVCS skips reading git metadata.
	NoVCS bool
	// Limits are the archive bounds the layer must unpack within; zero
	// means archive.DefaultLimits.
	Limits archive.Limits
	// KnownTools is where tools_required names are looked up; nil means
	// skill.DefaultKnownTools.
	KnownTools *skill.KnownTools
	// PackWarn, when set, receives the paths packed that rarely belong in a
	// skill (archive.PackOptions.Warn).
	PackWarn func(archive.PackWarning)
	// Unversioned builds a skill that declares no version (or 0.0.0)
	// instead of refusing it: installing from source needs no version,
	// only publishing does. Such a skill is built at TagVersion when set
	// (the version tag its git commit was resolved by), else at
	// PseudoVersion(CommitTime, Revision) when both are set, else at
	// TreeVersion of its packed files.
	Unversioned bool
	// TagVersion is the version of the git tag the source was resolved
	// by ("" for a branch or a commit).
	TagVersion string
	// CommitTime is the time of the commit Revision names.
	CommitTime time.Time
	// Lenient validates as the hosts load skills (skill.Lenient) instead
	// of strictly for publishing: for installing a skill from source,
	// where what a host would load is what may install.
	Lenient bool
}

// Artifact is a skill built into its OCI form, held in memory: skills are
// small (the archive limits bound them), and a layer in memory can be sent
// again when a push is retried.
type Artifact struct {
	// Skill is the validated skill.
	Skill *skill.Skill
	// Diagnostics are the warnings validation reported; errors never
	// produce an Artifact.
	Diagnostics skill.Diagnostics
	// Manifest is the OCI image manifest.
	Manifest ocispec.Manifest
	// ManifestBytes is the manifest as pushed; its digest is the skill's
	// identity.
	ManifestBytes []byte
	// Descriptor describes ManifestBytes, with artifactType set.
	Descriptor ocispec.Descriptor
	// Config is the config blob (the frontmatter's canonical JSON).
	Config []byte
	// Layer is the packed skill directory.
	Layer []byte
	// Pack describes the layer: digest, size, tree hash, file counts.
	Pack archive.PackResult
}

// Tag returns the OCI tag the artifact is published under.
func (a *Artifact) Tag() string { return Tag(a.Skill.Version) }

// LayerTitle returns "<name>-<version>.tar.gz", the layer's title.
func LayerTitle(name, version string) string { return name + "-" + version + ".tar.gz" }

// blob returns the bytes of one of the artifact's three blobs.
func (a *Artifact) blob(d digest.Digest) ([]byte, bool) {
	switch d {
	case a.Descriptor.Digest:
		return a.ManifestBytes, true
	case a.Manifest.Config.Digest:
		return a.Config, true
	case a.Manifest.Layers[0].Digest:
		return a.Layer, true
	}
	return nil, false
}

// Build validates the skill in dir strictly for publishing (a version is
// required, 0.0.0 refused, unless opts.Unversioned; leniently with
// opts.Lenient), packs it reproducibly and assembles its
// manifest exactly as artifact.md specifies. An invalid skill is an error
// wrapping skill.ErrInvalid (a *skill.ValidationError listing every
// problem). The manifest bytes depend only on the skill's files, its git
// metadata and opts: Build twice, get the same digest.
func Build(ctx context.Context, dir string, opts BuildOptions) (*Artifact, error) {
	vo := skill.Options{Mode: skill.Strict, Publish: true, KnownTools: opts.KnownTools}
	if opts.Lenient {
		vo.Mode, vo.Publish = skill.Lenient, false
	}
	s, ds := skill.Load(ctx, dir, vo)
	pseudo := opts.Unversioned && s != nil && DeclaresNoVersion(s.Version)
	if pseudo {
		// The version is made below; the diagnostics saying there is none
		// are for publishing.
		ds = slices.DeleteFunc(ds, func(d skill.Diagnostic) bool {
			return d.Code == skill.CodeVersionMissing || d.Code == skill.CodeVersionUnpublishable
		})
	}
	if err := ds.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if s == nil {
		return nil, fmt.Errorf("%s: %w", dir, &skill.ValidationError{Diagnostics: ds})
	}
	cfg, err := s.CanonicalJSON()
	if err != nil {
		return nil, fmt.Errorf("%s: config: %w", dir, err)
	}
	var layer bytes.Buffer
	pr, err := archive.Pack(ctx, dir, &layer, archive.PackOptions{ModTime: opts.Created, Limits: opts.Limits, Warn: opts.PackWarn})
	if err != nil {
		return nil, fmt.Errorf("%s: packing %s@%s: %w", dir, s.Name, s.Version, err)
	}
	if pseudo {
		switch {
		case opts.TagVersion != "":
			s.Version = opts.TagVersion
		case opts.Revision != "" && !opts.CommitTime.IsZero():
			s.Version = PseudoVersion(opts.CommitTime, opts.Revision)
		default:
			s.Version = TreeVersion(pr.TreeHash)
		}
	}
	if tag := Tag(s.Version); len(tag) > 128 {
		return nil, fmt.Errorf("%s: %w: version %q is longer than an OCI tag (128 characters)", dir, skill.ErrInvalid, s.Version)
	}
	ann, err := annotations(ctx, dir, s, pr, opts)
	if err != nil {
		return nil, err
	}
	layerDesc := ocispec.Descriptor{
		MediaType:   LayerMediaType,
		Digest:      digest.Digest(pr.Digest),
		Size:        pr.Size,
		Annotations: map[string]string{ocispec.AnnotationTitle: LayerTitle(s.Name, s.Version)},
	}
	m := ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: ArtifactType,
		Config:       ocispec.Descriptor{MediaType: ConfigMediaType, Digest: digest.FromBytes(cfg), Size: int64(len(cfg))},
		Layers:       []ocispec.Descriptor{layerDesc},
		Annotations:  ann,
	}
	mb, err := marshalJSON(m)
	if err != nil {
		return nil, fmt.Errorf("%s: manifest: %w", dir, err)
	}
	return &Artifact{
		Skill:         s,
		Diagnostics:   ds,
		Manifest:      m,
		ManifestBytes: mb,
		Descriptor: ocispec.Descriptor{
			MediaType:    ocispec.MediaTypeImageManifest,
			ArtifactType: ArtifactType,
			Digest:       digest.FromBytes(mb),
			Size:         int64(len(mb)),
		},
		Config: cfg,
		Layer:  layer.Bytes(),
		Pack:   pr,
	}, nil
}

func annotations(ctx context.Context, dir string, s *skill.Skill, pr archive.PackResult, opts BuildOptions) (map[string]string, error) {
	reqs := map[string]any{}
	for _, d := range s.Dependencies() {
		reqs[d.Name] = d.Range
	}
	reqJSON, err := skill.CanonicalJSON(reqs)
	if err != nil {
		return nil, err
	}
	perms := []any{}
	for _, p := range s.PermissionStrings() {
		perms = append(perms, p)
	}
	permJSON, err := skill.CanonicalJSON(perms)
	if err != nil {
		return nil, err
	}
	a := map[string]string{
		ocispec.AnnotationTitle:       s.Name,
		ocispec.AnnotationVersion:     s.Version,
		ocispec.AnnotationDescription: s.Description,
		AnnotationRequires:            string(reqJSON),
		AnnotationTier:                string(s.Claim()), // "" claims none: the policy decides
		AnnotationPermissions:         string(permJSON),
		AnnotationTree:                pr.TreeHash,
	}
	if s.License != "" {
		a[ocispec.AnnotationLicenses] = s.License
	}
	if !opts.Created.IsZero() {
		a[ocispec.AnnotationCreated] = opts.Created.UTC().Format(time.RFC3339)
	}
	src, rev := opts.Source, opts.Revision
	if !opts.NoVCS && (src == "" || rev == "") {
		gs, gr := gitInfo(ctx, dir)
		if src == "" {
			src = gs
		}
		if rev == "" {
			rev = gr
		}
	}
	if src != "" {
		a[ocispec.AnnotationSource] = src
	}
	if rev != "" {
		a[ocispec.AnnotationRevision] = rev
	}
	return a, nil
}

// gitInfo returns the origin URL (credentials stripped) and HEAD commit of
// the git checkout holding dir, or "" for each when git is not installed,
// dir is not in a checkout, or there is no origin.
func gitInfo(ctx context.Context, dir string) (source, revision string) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", ""
	}
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, git, append([]string{"-C", dir}, args...)...)
		cmd.Env = append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
		out, err := cmd.Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	revision = run("rev-parse", "--verify", "-q", "HEAD")
	if revision == "" {
		return "", ""
	}
	return stripUserinfo(run("config", "--get", "remote.origin.url")), revision
}

// stripUserinfo drops credentials from a git remote in any form: the
// userinfo of a URL ("https://user:token@host/x", "ssh://user:token@host/x",
// also when the URL does not parse), and in the scp form
// ("alice:TOKEN@host:path") every userinfo but a plain login name such as
// "git@", which carries no secret (ssh never reads a password from it).
func stripUserinfo(remote string) string {
	if i := strings.Index(remote, "://"); i >= 0 {
		if u, err := url.Parse(remote); err == nil && u.Host != "" {
			u.User = nil
			return u.String()
		}
		rest := remote[i+3:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
			return remote[:i+3] + rest[at+1:]
		}
		return remote
	}
	end := strings.Index(remote, "/")
	if end < 0 {
		end = len(remote)
	}
	at := strings.LastIndex(remote[:end], "@")
	if at < 0 || plainLogin.MatchString(remote[:at]) {
		return remote
	}
	return remote[at+1:]
}

// plainLogin is a user name with no room for a secret.
var plainLogin = regexp.MustCompile(`^[a-z_][a-z0-9_.-]{0,31}$`)

// SourceDateEpoch reads SOURCE_DATE_EPOCH through getenv (os.Getenv in the
// CLI): the zero time when unset, else that Unix time.
func SourceDateEpoch(getenv func(string) string) (time.Time, error) {
	v := getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, fmt.Errorf("%w: SOURCE_DATE_EPOCH=%q is not a non-negative number of seconds", ErrInvalidOptions, v)
	}
	return time.Unix(n, 0).UTC(), nil
}

// marshalJSON is json.Marshal without HTML escaping, so ranges such as
// "<2.0" stay readable in the manifest. Struct fields and sorted map keys
// make the bytes deterministic.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

package migrate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/pkg/skill"
	"gopkg.in/yaml.v3"
)

// Result is a computed migration: the new frontmatter, the report, and what
// Write needs to produce the skill directory.
type Result struct {
	// Name is the migrated skill's name, which its directory must have.
	Name string
	// Frontmatter is the new frontmatter mapping, foreign blocks included:
	// what SkillFile encodes. Changing it does not change what Write writes.
	Frontmatter *yaml.Node
	// Report says what was mapped, changed and left alone.
	Report Report

	dir   string   // input skill directory
	file  []byte   // the new SKILL.md
	files []string // the other files of the skill, relative to dir
	mode  os.FileMode
}

// SkillFile returns the new SKILL.md: the frontmatter encoded by yaml.v3,
// then the original body byte for byte.
func (r *Result) SkillFile() []byte { return append([]byte(nil), r.file...) }

// maxSkillFileBytes matches pkg/skill's bound.
const maxSkillFileBytes = 8 << 20

// standardKeys are the top-level fields of the skill format itself.
var standardKeys = map[string]bool{
	"name": true, "description": true, "license": true, "version": true,
	"compatibility": true, "allowed-tools": true, "metadata": true, "execution": true,
}

// topReasons explains common top-level keys that no format defines.
var topReasons = map[string]string{
	"author":   "GAIA has no author field",
	"authors":  "GAIA has no author field",
	"tags":     "GAIA has no tags field",
	"keywords": "GAIA has no tags field",
	"triggers": "GAIA has no trigger field; say when to use the skill in the description",
	"homepage": "GAIA has no homepage field",
	"category": "GAIA has no category field",
	"title":    "GAIA has no title field; the name and description identify the skill",
}

// Migrate reads the skill in dir and computes its GAIA form without writing
// anything. A skill that cannot be migrated yields a *NotMigratableError
// saying exactly why. The result's Report.Diagnostics are those of strict
// validation of the new SKILL.md; the checks that need the directory
// (tools.py, step files) run when Run writes it.
func Migrate(ctx context.Context, dir string, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	file, err := findSkillFile(dir)
	if err != nil {
		return nil, err
	}
	data, mode, err := readBounded(file)
	if err != nil {
		return nil, notMigratable(file, 0, ReasonUnreadable, err.Error(), "check the file's permissions and size")
	}
	m := &migration{opts: opts, file: file, rep: newReport(), consumed: map[string]bool{}}
	m.rep.Source, m.rep.File = dir, file
	m.c = &collector{rep: &m.rep, cat: opts.knownTools()}
	top, raw, err := m.parse(data)
	if err != nil {
		return nil, err
	}
	if base := filepath.Base(file); base != skill.SkillFile {
		m.change("SKILL.md", base, skill.SkillFile, "hosts look for SKILL.md exactly")
	}
	if raw.BOM {
		m.change("SKILL.md", "starts with a UTF-8 byte order mark", "no byte order mark", "the frontmatter must start at the first byte for some hosts")
	}
	if err := m.migrate(top, dir); err != nil {
		return nil, err
	}
	out, err := render(top, raw.Body, raw.CRLF)
	if err != nil {
		return nil, err
	}
	// Validate what will be written, as skillpm validate would for GAIA,
	// whose skill it is.
	s, ds := skill.Parse(filepath.Join(m.name, skill.SkillFile), out, skill.Options{Mode: skill.Strict, KnownTools: opts.KnownTools, GaiaLoader: true})
	if s == nil {
		d := firstError(ds)
		return nil, notMigratable(file, 0, reasonFor(d.Code), "the migrated frontmatter does not load: "+d.Message, d.Hint)
	}
	if ds == nil {
		ds = skill.Diagnostics{}
	}
	m.rep.Name = m.name
	m.rep.Diagnostics, m.rep.Valid = ds, !ds.HasErrors()
	files, skipped, err := listFiles(ctx, dir, filepath.Base(file))
	if err != nil {
		return nil, err
	}
	for _, sk := range skipped {
		m.rep.Notes = append(m.rep.Notes, fmt.Sprintf("%s is version-control data and was not copied", sk))
	}
	return &Result{Name: m.name, Frontmatter: top, Report: m.rep, dir: dir, file: out, files: files, mode: mode}, nil
}

// Run migrates the skill in dir and, unless opts.DryRun, writes it to
// opts.OutDir/<name> and validates the written skill strictly, with the
// rules GAIA's loader adds (skill.Options.GaiaLoader), directory checks
// included. A result that does not validate is still written and
// returned with a nil error: Report.Valid says so and Report.Diagnostics why.
func Run(ctx context.Context, dir string, opts Options) (*Result, error) {
	r, err := Migrate(ctx, dir, opts)
	if err != nil || opts.DryRun {
		return r, err
	}
	out := opts.OutDir
	if out == "" {
		out = DefaultOutDir
	}
	dest := filepath.Join(out, r.Name)
	if err := r.Write(ctx, dest, WriteOptions{OverwriteUnsafe: opts.OverwriteUnsafe}); err != nil {
		return r, err
	}
	_, ds := skill.Load(ctx, dest, skill.Options{Mode: skill.Strict, KnownTools: opts.KnownTools, GaiaLoader: true})
	if ds == nil {
		ds = skill.Diagnostics{}
	}
	r.Report.Diagnostics, r.Report.Valid = ds, !ds.HasErrors()
	return r, nil
}

// migration is the state of one Migrate call.
type migration struct {
	opts     Options
	file     string
	rep      Report
	c        *collector
	consumed map[string]bool // top-level keys a mapper handled
	name     string
}

func (m *migration) change(field, from, to, reason string) {
	m.rep.Changes = append(m.rep.Changes, Change{Field: field, From: from, To: to, Reason: reason})
}

func (m *migration) fail(line int, r Reason, detail, hint string) error {
	return notMigratable(m.file, line, r, detail, hint)
}

// parse loads the frontmatter with pkg/skill's rules. When the only problem
// is YAML syntax it tries repairYAML; anything else that stops the skill
// from loading is a reason it cannot be migrated.
func (m *migration) parse(data []byte) (*yaml.Node, skill.Frontmatter, error) {
	lenient := skill.Options{Mode: skill.Lenient, KnownTools: m.opts.KnownTools}
	s, ds := skill.Parse(m.file, data, lenient)
	raw, split := skill.SplitFrontmatter(data)
	if s == nil {
		d := firstError(ds)
		if d.Code != skill.CodeYAMLSyntax || !split {
			return nil, raw, m.fail(d.Line, reasonFor(d.Code), d.Message, d.Hint)
		}
		front, repairs, err := skill.RepairYAML(raw.YAML, raw.Line)
		if err != nil {
			return nil, raw, m.fail(d.Line, ReasonYAMLSyntax,
				d.Message+" (quoting the values the parser points at does not fix it)", d.Hint)
		}
		if s, ds = skill.Parse(m.file, []byte("---\n"+front+"---\n"), lenient); s == nil {
			d := firstError(ds)
			return nil, raw, m.fail(raw.Line+d.Line-2, reasonFor(d.Code), d.Message, d.Hint)
		}
		raw.YAML = front
		m.quoted(repairs)
	} else if split && ds.Has(skill.CodeYAMLUnquoted) {
		// Lenient parsing read the unquoted values as the hosts do; the
		// migrated file quotes them.
		front, repairs, err := skill.RepairYAML(raw.YAML, raw.Line)
		if err != nil {
			return nil, raw, fmt.Errorf("%s: %w", m.file, err)
		}
		raw.YAML = front
		m.quoted(repairs)
	}
	if split && ds.Has(skill.CodeBlankBeforeFront) {
		m.change("---", "blank lines before the opening ---", "--- on the first line", "Claude Code, Codex and OpenCode drop a skill whose SKILL.md does not start with ---")
	}
	if !split {
		return nil, raw, fmt.Errorf("%s: frontmatter found by the validator but not by the migrator; please report this", m.file)
	}
	if s.Description == "" {
		return nil, raw, m.fail(s.Node.Line, ReasonNoDescription, "the skill has no description, and a description is required",
			"add description: saying what the skill does and when to use it, then migrate again")
	}
	top := s.Node
	top.Style = 0
	return top, raw, nil
}

// quoted records the values RepairYAML quoted.
func (m *migration) quoted(repairs []skill.Repair) {
	for _, r := range repairs {
		m.change(fmt.Sprintf("%s (line %d)", r.Key, r.Line), "an unquoted value YAML cannot read", fmt.Sprintf("the quoted string %q", r.Value),
			"the frontmatter did not parse: YAML reads \": \" and a leading [ or @ as structure; the value was quoted as written")
	}
}

func (m *migration) migrate(top *yaml.Node, dir string) error {
	meta, err := m.metadata(top)
	if err != nil {
		return err
	}
	if err := m.foreign(top, meta); err != nil {
		return err
	}
	m.fixName(top, dir)
	if err := m.fixDescription(top); err != nil {
		return err
	}
	m.fixVersion(top, meta, dir)
	if err := m.fixCompatibility(top); err != nil {
		return err
	}
	m.fixLicense(top)
	m.reportRest(top, meta)
	return m.writeGaia(top, meta)
}

// metadata returns the metadata mapping, turning a metadata written as a
// JSON string into the mapping it holds. nil means there is none yet.
func (m *migration) metadata(top *yaml.Node) (*yaml.Node, error) {
	_, v, i := entry(top, "metadata")
	switch {
	case v == nil:
		return nil, nil
	case isNull(v):
		top.Content[i+1] = newMap()
		return top.Content[i+1], nil
	case v.Kind == yaml.MappingNode:
		if v.Style&yaml.FlowStyle != 0 {
			blockLayout(v)
		}
		return v, nil
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str":
		if mm := parseMapping(v.Value); mm != nil {
			blockLayout(mm)
			top.Content[i+1] = mm
			m.change("metadata", "a JSON object written as a string", "the same object as a YAML mapping",
				"metadata must be a mapping; the string was parsed with the YAML parser, nothing else changed")
			return mm, nil
		}
		return nil, m.fail(v.Line, ReasonMetadataInvalid, "metadata is a string that does not hold a JSON object",
			"write metadata as a mapping of namespaces, or fix the JSON in the string")
	}
	return nil, m.fail(v.Line, ReasonMetadataInvalid, "metadata is "+kind(v)+", not a mapping", "write metadata as a mapping of namespaces")
}

// blockLayout writes a metadata mapping written as JSON in block style, so
// metadata.gaia reads like the rest of the format. Only the mapping's own
// layout changes: its keys lose their JSON quotes (yaml.v3 quotes any that
// need it), and the namespaces inside keep theirs.
func blockLayout(m *yaml.Node) {
	m.Style = 0
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.ShortTag() == "!!str" {
			k.Style = 0
		}
	}
}

// foreign detects the formats present and runs the mappers the options ask for.
func (m *migration) foreign(top, meta *yaml.Node) error {
	hermesBlock := lookup(meta, "hermes")
	isHermes := hermesBlock != nil
	for _, k := range hermesSignalKeys {
		if lookup(top, k) != nil {
			isHermes = true
		}
	}
	var ocNS []string
	for _, ns := range openClawNamespaces {
		if lookup(meta, ns) != nil {
			ocNS = append(ocNS, ns)
		}
	}
	if isHermes {
		m.rep.Detected = append(m.rep.Detected, Hermes)
	}
	if len(ocNS) > 0 {
		m.rep.Detected = append(m.rep.Detected, OpenClaw)
	}
	from := m.opts.from()
	switch {
	case from == Hermes && !isHermes && len(ocNS) > 0:
		return m.fail(0, ReasonWrongFormat, "migrating from hermes, but the skill has OpenClaw fields (metadata."+ocNS[0]+") and no Hermes ones",
			"migrate it from openclaw, or let the format be detected (auto)")
	case from == OpenClaw && len(ocNS) == 0 && isHermes:
		return m.fail(0, ReasonWrongFormat, "migrating from openclaw, but the skill has Hermes fields and no OpenClaw ones",
			"migrate it from hermes, or let the format be detected (auto)")
	}
	if len(m.rep.Detected) == 0 {
		m.rep.Notes = append(m.rep.Notes, "no Hermes or OpenClaw fields: the skill is already standard; it was only normalized and marked experimental")
	}
	if isHermes && from != OpenClaw {
		m.rep.Migrated = append(m.rep.Migrated, Hermes)
		m.c.mapHermesTop(top, m.consumed)
		if hermesBlock != nil {
			m.mapBlock("metadata.hermes", hermesBlock, m.c.mapHermesBlock)
		}
	} else if hermesBlock != nil {
		m.c.unmapped("metadata.hermes", nil, "Hermes block not migrated: migrating from "+string(from))
	}
	if len(ocNS) > 0 && from != Hermes {
		m.rep.Migrated = append(m.rep.Migrated, OpenClaw)
		for _, ns := range ocNS {
			m.mapBlock("metadata."+ns, lookup(meta, ns), m.c.mapOpenClawBlock)
		}
	} else {
		for _, ns := range ocNS {
			m.c.unmapped("metadata."+ns, nil, "OpenClaw block not migrated: migrating from "+string(from))
		}
	}
	return nil
}

// mapBlock runs a mapper over a foreign block, reading one written as a
// JSON string without changing it.
func (m *migration) mapBlock(field string, v *yaml.Node, fn func(string, *yaml.Node)) {
	if isNull(v) {
		return
	}
	block, fromString := asMapping(v)
	if block == nil {
		m.c.unmapped(field, v, "expected a mapping, found "+kind(v))
		return
	}
	if fromString {
		m.rep.Notes = append(m.rep.Notes, field+" is a JSON object written as a string: it was read for migration and is kept as written")
	}
	fn(field, block)
}

// fixName makes the name follow the rules; the output directory is named
// after it.
func (m *migration) fixName(top *yaml.Node, dir string) {
	base := dirBase(dir)
	_, v, _ := entry(top, "name")
	orig := ""
	if isScalar(v) {
		orig = v.Value
	}
	name := orig
	switch {
	case strings.TrimSpace(orig) == "":
		name = skill.SuggestName(base)
		m.change("name", "(none)", name, "a skill needs a name; taken from the directory")
	case !skill.ValidName(orig):
		name = skill.SuggestName(orig)
		if !hasASCIIAlnum(orig) {
			name = skill.SuggestName(base)
		}
		m.change("name", orig, name, "names are lower-case letters and digits in words joined by single hyphens, at most 64 characters")
	}
	if name != orig || v == nil || v.ShortTag() != "!!str" {
		set(top, "name", str(name), 0)
	}
	if base != name {
		m.change("directory", base, name, "a skill's directory is named after it")
	}
	m.name = name
}

func hasASCIIAlnum(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return r < 128 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) >= 0
}

func dirBase(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return filepath.Base(abs)
	}
	return filepath.Base(dir)
}

// fixDescription shortens a description over the limit at its last
// sentence boundary within the limit. With no boundary, cutting would
// leave half a sentence, so the skill is not migrated.
func (m *migration) fixDescription(top *yaml.Node) error {
	_, v, _ := entry(top, "description")
	desc := strings.TrimSpace(v.Value)
	n := utf8.RuneCountInString(desc)
	if n <= skill.MaxDescriptionLen {
		return nil
	}
	short, ok := cutAtSentence(desc, skill.MaxDescriptionLen)
	if !ok {
		return m.fail(v.Line, ReasonDescriptionTooLong,
			fmt.Sprintf("the description is %d characters, more than %d, and has no sentence end to cut at within the limit", n, skill.MaxDescriptionLen),
			"shorten it to the trigger sentence and move the detail into the body, then migrate again")
	}
	nv := str(short)
	nv.Style = v.Style
	set(top, "description", nv, 0)
	m.change("description", fmt.Sprintf("%d characters", n), fmt.Sprintf("%d characters", utf8.RuneCountInString(short)),
		fmt.Sprintf("the limit is %d; cut after the last sentence that fits. Dropped: %q — move it into the body if it matters",
			skill.MaxDescriptionLen, strings.TrimSpace(desc[len(short):])))
	return nil
}

// cutAtSentence returns the longest prefix of s of at most max runes that
// ends a sentence (., ! or ? before white space, or a CJK full stop).
func cutAtSentence(s string, max int) (string, bool) {
	best, runes := -1, 0
	for i, r := range s {
		if runes >= max {
			break
		}
		runes++
		end := i + utf8.RuneLen(r)
		switch r {
		case '。', '！', '？':
			best = end
		case '.', '!', '?':
			if end == len(s) || strings.ContainsRune(" \t\n", rune(s[end])) {
				best = end
			}
		}
	}
	if best <= 0 {
		return "", false
	}
	return strings.TrimSpace(s[:best]), true
}

// fixVersion sets a SemVer version string: a YAML number or a partial
// version is completed ("2.0" becomes "2.0.0"); a missing one comes from
// metadata.version, then from ClawHub's _meta.json, when that reads as
// SemVer, else it is DefaultVersion.
func (m *migration) fixVersion(top, meta *yaml.Node, dir string) {
	_, v, _ := entry(top, "version")
	if isScalar(v) && v.ShortTag() == "!!str" {
		if _, err := semver.StrictNewVersion(v.Value); err == nil {
			return
		}
	}
	var to, from, why string
	switch {
	case isNull(v):
		from = "(none)"
		if mv := lookup(meta, "version"); isScalar(mv) {
			if sv, ok := coerceVersion(mv); ok {
				to, why = sv, "taken from metadata.version "+mv.Value
				m.consumed["metadata.version"] = true
				m.c.mapped("metadata.version", "version", []string{sv}, "")
				break
			}
		}
		if pv, ok := clawHubVersion(dir); ok {
			to, why = pv, "the version ClawHub published, from _meta.json latest.version"
			m.c.mapped(clawHubMeta+" latest.version", "version", []string{pv}, "")
			break
		}
		to, why = DefaultVersion, "publishing needs a version; "+DefaultVersion+" is the first version of a new package"
	default:
		from = text(v)
		if sv, ok := coerceVersion(v); ok {
			to = sv
			why = "SemVer 2.0 needs MAJOR.MINOR.PATCH as a string"
			if t := v.ShortTag(); t == "!!int" || t == "!!float" {
				why = "a YAML number is not a version string; completed to MAJOR.MINOR.PATCH"
			}
		} else {
			to, why = DefaultVersion, "not SemVer; set to "+DefaultVersion+", the first version of a new package"
		}
	}
	at := pairIndex(top, "description") + 1
	set(top, "version", str(to), at)
	m.change("version", from, to, why)
}

// clawHubMeta is the file ClawHub's skill archive puts beside SKILL.md.
const clawHubMeta = "_meta.json"

// clawHubVersion reads latest.version from a ClawHub _meta.json.
func clawHubVersion(dir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(dir, clawHubMeta))
	if err != nil || len(data) > 1<<20 {
		return "", false
	}
	var meta struct {
		Latest struct {
			Version string `json:"version"`
		} `json:"latest"`
	}
	if json.Unmarshal(data, &meta) != nil || meta.Latest.Version == "" {
		return "", false
	}
	return coerceVersion(str(meta.Latest.Version))
}

// coerceVersion reads what authors write as a version ("1", "2.0", "v1.2.3")
// as SemVer. Timestamps and other types are not versions.
func coerceVersion(n *yaml.Node) (string, bool) {
	switch n.ShortTag() {
	case "!!str", "!!int", "!!float":
	default:
		return "", false
	}
	sv, err := semver.NewVersion(strings.TrimSpace(n.Value))
	if err != nil {
		return "", false
	}
	out := sv.String()
	if _, err := semver.StrictNewVersion(out); err != nil {
		return "", false
	}
	return out, true
}

// fixLicense drops a license that is not a string, as GAIA's own
// migrate does: GAIA's loader refuses the skill over it, and a number or
// a list says no license a tool could read.
func (m *migration) fixLicense(top *yaml.Node) {
	_, v, i := entry(top, "license")
	if v == nil || isNull(v) || (v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str") {
		return
	}
	m.change("license", flowText(v), "(removed)",
		fmt.Sprintf("a license that is not a string: GAIA's migrate drops it and %s's loader refuses the skill over it; write the SPDX identifier as a string, e.g. license: MIT", skill.GaiaLoaderVersion))
	top.Content = append(top.Content[:i], top.Content[i+2:]...)
}

// fixCompatibility keeps compatibility valid and puts the operating systems
// the foreign block names into it.
func (m *migration) fixCompatibility(top *yaml.Node) error {
	_, v, _ := entry(top, "compatibility")
	if v != nil && !isNull(v) && (v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str") {
		flow := flowText(v)
		if flow == "" || utf8.RuneCountInString(flow) > skill.MaxCompatibilityLen {
			return m.fail(v.Line, ReasonCompatibilityInvalid, "compatibility is "+kind(v)+" too long to write as text",
				"write compatibility as one line of text, then migrate again")
		}
		set(top, "compatibility", str(flow), 0)
		m.change("compatibility", kind(v), flow, "compatibility is text; the value was written as one line of flow YAML")
		v = lookup(top, "compatibility")
	}
	if v != nil && v.Kind == yaml.ScalarNode && utf8.RuneCountInString(v.Value) > skill.MaxCompatibilityLen {
		return m.fail(v.Line, ReasonCompatibilityInvalid,
			fmt.Sprintf("compatibility is %d characters, more than %d", utf8.RuneCountInString(v.Value), skill.MaxCompatibilityLen),
			"shorten compatibility, then migrate again")
	}
	c := m.c
	if len(c.platforms.vals) == 0 {
		return nil
	}
	want := "Runs on " + strings.Join(c.platforms.vals, ", ")
	from := strings.Join(c.platFrom, ", ")
	switch {
	case isNull(v):
		at := pairIndex(top, "metadata")
		set(top, "compatibility", str(want), at)
		c.mapped(from, toCompat, c.platforms.vals, "GAIA has no OS field; compatibility is the base format's environment text")
	case v.Value == want:
		c.mapped(from, toCompat, c.platforms.vals, "")
	default:
		c.unmapped(from, nil, fmt.Sprintf("compatibility is already set; add %q to it by hand if it matters", want))
	}
	return nil
}

func flowText(n *yaml.Node) string {
	c := *n
	c.Style = yaml.FlowStyle
	b, err := yaml.Marshal(&c)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// openClawFields are the OpenClaw fields with a GAIA meaning; some skills
// write them outside any namespace, where OpenClaw itself ignores them.
var openClawFields = map[string]bool{"requires": true, "primaryEnv": true, "install": true, "os": true}

const outsideOpenClaw = "an OpenClaw field outside metadata.openclaw, where OpenClaw does not read it either; move it under metadata.openclaw and migrate again to have it mapped"

// reportRest lists the top-level and metadata fields no mapper handled.
func (m *migration) reportRest(top, meta *yaml.Node) {
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i].Value, top.Content[i+1]
		if standardKeys[k] || m.consumed[k] {
			continue
		}
		reason, ok := topReasons[k]
		switch {
		case hermesTopKeys[k] && containsFormat(m.rep.Detected, Hermes):
			reason = "Hermes field, not migrated: migrating from " + string(m.opts.from())
		case openClawFields[k]:
			reason = outsideOpenClaw
		case !ok:
			reason = "not a skill format field"
		}
		m.c.unmapped(k, v, reason+"; kept at the top level (strict validation warns about unknown fields)")
	}
	if meta == nil {
		return
	}
	for i := 0; i+1 < len(meta.Content); i += 2 {
		k, v := meta.Content[i].Value, meta.Content[i+1]
		if k == "gaia" || k == "hermes" || m.consumed["metadata."+k] || slices.Contains(openClawNamespaces, k) {
			continue
		}
		reason := "no GAIA meaning; kept in metadata"
		if openClawFields[k] {
			reason = outsideOpenClaw
		}
		m.c.unmapped("metadata."+k, v, reason)
	}
}

func containsFormat(fs []Format, f Format) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

// writeGaia merges what was collected into metadata.gaia, keeping what the
// block already declares (so migrating twice changes nothing).
func (m *migration) writeGaia(top, meta *yaml.Node) error {
	if meta == nil {
		meta = newMap()
		set(top, "metadata", meta, -1)
	}
	g := lookup(meta, "gaia")
	switch {
	case g == nil || isNull(g):
		g = newMap()
		set(meta, "gaia", g, 0)
	case g.Kind != yaml.MappingNode:
		return m.fail(g.Line, ReasonGaiaConflict, "metadata.gaia is "+kind(g)+", not a mapping", "fix or remove metadata.gaia, then migrate again")
	}
	g.Style = 0
	tier := lookup(g, "security_tier")
	if !isScalar(tier) || tier.Value != skill.TierExperimental {
		from := "(none)"
		if tier != nil {
			from = text(tier)
		}
		set(g, "security_tier", str(skill.TierExperimental), 0)
		m.change("metadata.gaia.security_tier", from, skill.TierExperimental, "every migrated skill starts experimental and re-earns trust")
	}
	c := m.c
	if err := m.merge(g, "metadata.gaia", "permissions", c.permissions()); err != nil {
		return err
	}
	if len(c.pyDeps.vals)+len(c.nodeDeps.vals)+len(c.env.vals) > 0 {
		req := lookup(g, "requirements")
		switch {
		case req == nil || isNull(req):
			req = newMap()
			set(g, "requirements", req, -1)
		case req.Kind != yaml.MappingNode:
			return m.fail(req.Line, ReasonGaiaConflict, "metadata.gaia.requirements is "+kind(req)+", not a mapping", "fix it, then migrate again")
		}
		for _, f := range []struct {
			key  string
			vals []string
		}{{"dependencies", c.pyDeps.vals}, {"node_dependencies", c.nodeDeps.vals}, {"env_vars", c.env.vals}} {
			if err := m.merge(req, "metadata.gaia.requirements", f.key, f.vals); err != nil {
				return err
			}
		}
	}
	return m.merge(g, "metadata.gaia", "tools_required", c.tools.vals)
}

// merge appends the values not already listed to the list at key.
func (m *migration) merge(parent *yaml.Node, path, key string, vals []string) error {
	if len(vals) == 0 {
		return nil
	}
	seq := lookup(parent, key)
	switch {
	case seq == nil || isNull(seq):
		seq = newSeq()
		set(parent, key, seq, -1)
	case seq.Kind != yaml.SequenceNode:
		return m.fail(seq.Line, ReasonGaiaConflict, fmt.Sprintf("%s.%s is %s, not a list", path, key, kind(seq)), "fix it, then migrate again")
	}
	have := map[string]bool{}
	for _, e := range seq.Content {
		have[e.Value] = true
	}
	for _, v := range vals {
		if !have[v] {
			have[v] = true
			seq.Content = append(seq.Content, str(v))
		}
	}
	return nil
}

func firstError(ds skill.Diagnostics) skill.Diagnostic {
	for _, d := range ds {
		if d.Severity == skill.Error {
			return d
		}
	}
	if len(ds) > 0 {
		return ds[0]
	}
	return skill.Diagnostic{Code: skill.CodeUnreadable, Message: "the skill does not load"}
}

// reasonFor maps the pkg/skill code that stopped a load to a Reason.
func reasonFor(code string) Reason {
	switch code {
	case skill.CodeFrontmatterMissing:
		return ReasonNoFrontmatter
	case skill.CodeFrontmatterUnclosed:
		return ReasonFrontmatterUnclosed
	case skill.CodeContentBeforeFront:
		return ReasonContentBeforeFront
	case skill.CodeFrontmatterTooLarge:
		return ReasonFrontmatterTooLarge
	case skill.CodeYAMLAlias, skill.CodeYAMLMergeKey, skill.CodeDuplicateKey:
		return ReasonYAMLRefused
	case skill.CodeFrontmatterNotMap:
		return ReasonNotMapping
	case skill.CodeDescriptionMissing:
		return ReasonNoDescription
	case skill.CodeNoSkillFile:
		return ReasonNoSkillFile
	case skill.CodeUnreadable:
		return ReasonUnreadable
	}
	return ReasonYAMLSyntax
}

// findSkillFile returns SKILL.md in dir, or skill.md in any letter case.
func findSkillFile(dir string) (string, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return "", notMigratable(dir, 0, ReasonNoSkillFile, "cannot read the skill directory: "+err.Error(), "check the path")
	}
	if !fi.IsDir() {
		return "", notMigratable(dir, 0, ReasonNoSkillFile, "not a directory", "pass the skill's directory, not its SKILL.md")
	}
	exact := filepath.Join(dir, skill.SkillFile)
	if fi, err := os.Lstat(exact); err == nil && fi.Mode().IsRegular() {
		return exact, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", notMigratable(dir, 0, ReasonUnreadable, err.Error(), "check the directory's permissions")
	}
	for _, e := range entries {
		if strings.EqualFold(e.Name(), skill.SkillFile) && e.Type().IsRegular() {
			return filepath.Join(dir, e.Name()), nil
		}
	}
	return "", notMigratable(dir, 0, ReasonNoSkillFile, "no SKILL.md in the directory", "a skill is a directory with a SKILL.md")
}

func readBounded(file string) ([]byte, os.FileMode, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if fi.Size() > maxSkillFileBytes {
		return nil, 0, fmt.Errorf("%s is %d bytes, more than the %d allowed", file, fi.Size(), maxSkillFileBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSkillFileBytes+1))
	if err != nil {
		return nil, 0, err
	}
	return data, fi.Mode().Perm(), nil
}

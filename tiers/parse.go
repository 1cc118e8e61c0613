package tiers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/internal/userdir"
	"github.com/skillpm/skillpm/internal/yamlstrict"
	"github.com/skillpm/skillpm/pkg/skill"
	"gopkg.in/yaml.v3"
)

// Bounds on what a policy file may hold, so that a hostile file cannot make
// loading expensive.
const (
	maxPolicyBytes = 1 << 20
	maxKeyBytes    = 64 << 10
	maxRootBytes   = 4 << 20
	maxProblems    = 100
)

// SearchPath returns the policy files tried when --policy is not given, in
// order: $XDG_CONFIG_HOME/skillpm/policy.yaml (XDG_CONFIG_HOME defaulting to
// %APPDATA% on Windows and $HOME/.config elsewhere, userdir.ConfigHome),
// then /etc/skillpm/policy.yaml (not on Windows, which has no /etc).
// getenv is os.Getenv in production.
func SearchPath(getenv func(string) string) []string {
	var out []string
	if cfg := userdir.ConfigHome(runtime.GOOS, getenv); cfg != "" {
		out = append(out, filepath.Join(cfg, "skillpm", "policy.yaml"))
	}
	if runtime.GOOS == "windows" {
		return out
	}
	return append(out, filepath.Join(string(filepath.Separator), "etc", "skillpm", "policy.yaml"))
}

// Find returns the policy file to load: override when it is set (it must
// then exist), else the first file of [SearchPath] that stat does not report
// missing, else "" for the built-in default. A file that exists but cannot
// be read is returned so that loading reports why.
func Find(override string, getenv func(string) string, stat func(string) (fs.FileInfo, error)) string {
	if override != "" {
		return override
	}
	for _, p := range SearchPath(getenv) {
		if _, err := stat(p); !errors.Is(err, fs.ErrNotExist) {
			return p
		}
	}
	return ""
}

// LoadEffective loads the policy a command uses: the file named by override
// (--policy), or the first policy file of the search path, or [Default]
// when there is none.
func LoadEffective(ctx context.Context, override string, getenv func(string) string) (*Policy, error) {
	path := Find(override, getenv, os.Stat)
	if path == "" {
		return Default(), nil
	}
	return Load(ctx, path)
}

// Load reads and parses the policy file at path. Key files and trusted
// roots are resolved against the file's directory. A missing file is an
// error wrapping fs.ErrNotExist: callers that want the built-in default for
// a missing file use [LoadEffective].
func Load(ctx context.Context, path string) (*Policy, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := boundedfile.ReadRegular(path, maxPolicyBytes)
	if _, ok := errors.AsType[*boundedfile.TooLargeError](err); ok {
		return nil, &PolicyError{Problems: []Problem{{File: path, Message: fmt.Sprintf("policy file is larger than %d bytes", maxPolicyBytes), Hint: "a trust policy is a few dozen lines; check that this is the right file"}}}
	}
	if nr, ok := errors.AsType[*boundedfile.NotRegularError](err); ok {
		return nil, &PolicyError{Problems: []Problem{{File: path, Message: nr.Error(), Hint: "name the policy YAML file itself"}}}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("policy file %s does not exist — check the path, or name none to use the search path or the built-in default: %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("reading policy file %s: %w", path, err)
	}
	return Parse(ctx, path, data)
}

// Parse parses a policy file's contents. name is the file's path: it is
// used in problem positions, and key files and trusted roots are read
// relative to its directory. Every problem is reported, not only the first,
// in a *PolicyError.
func Parse(ctx context.Context, name string, data []byte) (*Policy, error) {
	if name == "" {
		name = "policy.yaml"
	}
	p := &parser{ctx: ctx, file: name, dir: filepath.Dir(name), digest: sha256.New()}
	p.read("", data)
	pol := p.parse(data)
	if len(p.problems) > 0 {
		sort.SliceStable(p.problems, func(i, j int) bool {
			a, b := p.problems[i], p.problems[j]
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Column < b.Column
		})
		return nil, &PolicyError{Problems: p.problems}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pol.Source = name
	pol.Digest = "sha256:" + hex.EncodeToString(p.digest.Sum(nil))
	pol.rootData = p.rootData
	return pol, nil
}

type parser struct {
	ctx      context.Context
	file     string
	dir      string
	problems []Problem
	// digest hashes every byte the parse read (Policy.Digest).
	digest hash.Hash
	// rootData are the trusted roots' bytes as read (Policy.TrustedRoot).
	rootData map[string][]byte
}

// read adds a file the parse read to the policy's digest: its name as
// written and its bytes, each length-prefixed so that no two sequences
// of files hash alike.
func (p *parser) read(name string, data []byte) {
	var n [8]byte
	for _, b := range [][]byte{[]byte(name), data} {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		p.digest.Write(n[:])
		p.digest.Write(b)
	}
}

func (p *parser) add(line, col int, msg, hint string) {
	if len(p.problems) < maxProblems {
		p.problems = append(p.problems, Problem{File: p.file, Line: line, Column: col, Message: msg, Hint: hint})
	}
}

func (p *parser) errorf(n *yaml.Node, hint, format string, args ...any) {
	p.add(n.Line, n.Column, fmt.Sprintf(format, args...), hint)
}

func (p *parser) parse(data []byte) *Policy {
	pol := Default()
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.add(1, 1, "policy file is empty", "write version: 1 and a list of policies (see skillpm policy show for the shape)")
			return pol
		}
		line, msg := yamlstrict.ErrorLine(err)
		p.add(line, 0, "policy file is not valid YAML: "+msg, "fix the YAML syntax (indentation, quoting, colons)")
		return pol
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.add(extra.Line, extra.Column, "policy file holds more than one YAML document", "keep one document: remove the second ---")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		p.add(1, 1, "policy file is empty", "write version: 1 and a list of policies")
		return pol
	}
	root := doc.Content[0]
	if !p.mapping(root, "the policy file") {
		return pol
	}
	seen := p.fields(root, "the policy file", []string{"version", "policies", "ceilings", "dangerous", "trustedRoots", "advisors"}, func(key, val *yaml.Node) {
		switch key.Value {
		case "version":
			p.version(val, pol)
		case "policies":
			pol.Rules = p.rules(val)
		case "ceilings":
			p.ceilings(val, &pol.Ceilings)
		case "dangerous":
			if ps, ok := p.permissions(val, "dangerous"); ok {
				pol.Dangerous = ps
			}
		case "trustedRoots":
			pol.TrustedRoots = p.roots(val)
		case "advisors":
			pol.Advisors = p.advisors(val)
		}
	})
	if !seen["version"] {
		p.add(root.Line, root.Column, "version is missing", "write version: 1 at the top of the file")
	}
	return pol
}

// fields walks a mapping's keys, reporting unknown and duplicate keys and
// aliases, and calls fn for each known key. It returns the keys seen.
func (p *parser) fields(m *yaml.Node, what string, known []string, fn func(key, val *yaml.Node)) map[string]bool {
	seen := map[string]bool{}
	_ = yamlstrict.Mapping{Known: known}.Pairs(m, func(key, val *yaml.Node) error {
		seen[key.Value] = true
		fn(key, val)
		return nil
	}, func(pr yamlstrict.Problem) error {
		key := pr.Node
		if pr.Key != nil {
			// The key is known; its value is an alias or anchor.
			seen[pr.Key.Value] = true
		}
		switch pr.Kind {
		case yamlstrict.Alias, yamlstrict.Anchor:
			p.alias(key)
		case yamlstrict.MergeKey:
			p.errorf(key, "write the merged keys out in full", "YAML merge keys (<<) are not allowed in a trust policy")
		case yamlstrict.KeyNotScalar:
			p.errorf(key, "keys are plain words such as "+strings.Join(known, ", "), "%s has a key that is not a string", what)
		case yamlstrict.Unknown:
			hint := "known keys: " + strings.Join(known, ", ")
			if s := suggest(key.Value, known); s != "" {
				hint = "did you mean " + s + "?"
			}
			p.errorf(key, hint, "unknown key %s in %s", quote(key.Value), what)
		case yamlstrict.Duplicate:
			p.errorf(key, "remove one of them", "key %s appears twice in %s", key.Value, what)
		}
		return nil
	})
	return seen
}

func (p *parser) alias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		p.errorf(n, "write the value out in full", "YAML aliases (*%s) are not allowed in a trust policy", n.Value)
		return true
	}
	if n.Anchor != "" {
		p.errorf(n, "remove &"+n.Anchor+" and write values out in full", "YAML anchors (&%s) are not allowed in a trust policy", n.Anchor)
		return true
	}
	return false
}

func (p *parser) mapping(n *yaml.Node, what string) bool {
	if n.Kind == yaml.MappingNode {
		return !p.alias(n)
	}
	if !p.alias(n) {
		p.errorf(n, "write key: value lines", "%s must be a mapping, not %s", what, describe(n))
	}
	return false
}

// sequence returns the items of a sequence; a null value is an empty list.
func (p *parser) sequence(n *yaml.Node, what, hint string) ([]*yaml.Node, bool) {
	if p.alias(n) {
		return nil, false
	}
	switch {
	case n.Kind == yaml.SequenceNode:
		return n.Content, true
	case isNull(n):
		return nil, true
	}
	p.errorf(n, hint, "%s must be a list, not %s", what, describe(n))
	return nil, false
}

func (p *parser) str(n *yaml.Node, what, hint string) (string, bool) {
	if p.alias(n) {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		p.errorf(n, hint, "%s must be a string, not %s", what, describe(n))
		return "", false
	}
	if n.Value == "" {
		p.errorf(n, hint, "%s is empty", what)
		return "", false
	}
	return n.Value, true
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "empty"
		case "!!str":
			return "the string " + quote(n.Value)
		}
		return quote(n.Value)
	}
	return "an alias"
}

func (p *parser) version(n *yaml.Node, pol *Policy) {
	if p.alias(n) {
		return
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		p.errorf(n, "write version: 1", "version must be the number 1, not %s", describe(n))
		return
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil || v != Version {
		p.errorf(n, "this skillpm reads version 1 policies; write version: 1 or upgrade skillpm", "unsupported policy version %s", n.Value)
		return
	}
	pol.Version = v
}

func (p *parser) rules(n *yaml.Node) []Rule {
	items, ok := p.sequence(n, "policies", "write policies: followed by - name: … entries")
	if !ok {
		return []Rule{}
	}
	out := make([]Rule, 0, len(items))
	names := map[string]bool{}
	for _, item := range items {
		if err := p.ctx.Err(); err != nil {
			return out
		}
		if !p.mapping(item, "a policy") {
			continue
		}
		r, ok := p.rule(item)
		if r.Name != "" {
			if names[r.Name] {
				p.errorf(item, "give each policy its own name", "policy name %s is used twice", quote(r.Name))
				ok = false
			}
			names[r.Name] = true
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

func (p *parser) rule(m *yaml.Node) (Rule, bool) {
	var r Rule
	before := len(p.problems)
	what := "a policy"
	seen := p.fields(m, what, []string{"name", "scopes", "tier", "identities", "requireAudit"}, func(key, val *yaml.Node) {
		switch key.Value {
		case "name":
			r.Name, _ = p.str(val, "policy name", "name the policy, e.g. name: acme-release")
		case "scopes":
			r.Scopes = p.scopes(val)
		case "tier":
			t, ok := p.str(val, "tier", "use verified, community or experimental")
			if ok && !ValidTier(t) {
				hint := "use verified, community or experimental"
				if s := suggest(t, []string{skill.TierVerified, skill.TierCommunity, skill.TierExperimental}); s != "" {
					hint = "did you mean " + s + "?"
				}
				p.errorf(val, hint, "unknown tier %s", quote(t))
			}
			r.Tier = Tier(t)
		case "identities":
			mark := len(p.problems)
			r.Identities = p.identities(val, "identities")
			if len(r.Identities) == 0 && len(p.problems) == mark {
				p.errorf(val, "list whose signatures earn the tier: key: FILE, keyFingerprint: sha256:…, or issuer and subject", "policy grants its tier to no identity")
			}
		case "requireAudit":
			r.RequireAudit = p.identities(val, "requireAudit")
		}
	})
	for _, k := range []struct{ key, hint string }{
		{"name", "add name: followed by a short name for the policy"},
		{"scopes", `add scopes: ["ghcr.io/acme/skills/*"] (or ["*"] for every repository)`},
		{"tier", "add tier: verified, community or experimental"},
		{"identities", "add identities: with a key or an issuer and subject"},
	} {
		if !seen[k.key] {
			p.errorf(m, k.hint, "policy %s has no %s", orUnnamed(r.Name), k.key)
		}
	}
	return r, len(p.problems) == before
}

func orUnnamed(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	return quote(name)
}

func (p *parser) scopes(n *yaml.Node) []string {
	items, ok := p.sequence(n, "scopes", `write scopes: ["ghcr.io/acme/skills/*"]`)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.errorf(n, `add at least one repository glob, or "*" for every repository`, "scopes is empty")
	}
	var out []string
	for _, it := range items {
		s, ok := p.str(it, "scope", `write a repository such as "ghcr.io/acme/skills/*"`)
		if !ok {
			continue
		}
		if msg, hint := scopeProblem(s); msg != "" {
			p.errorf(it, hint, "%s", msg)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (p *parser) identities(n *yaml.Node, what string) []IdentityRule {
	items, ok := p.sequence(n, what, "write a list of - key: FILE or - issuer: … subject: … entries")
	if !ok {
		return nil
	}
	var out []IdentityRule
	for _, it := range items {
		if !p.mapping(it, "an identity") {
			continue
		}
		if id, ok := p.identity(it); ok {
			out = append(out, id)
		}
	}
	return out
}

func (p *parser) identity(m *yaml.Node) (IdentityRule, bool) {
	var id IdentityRule
	before := len(p.problems)
	nodes := map[string]*yaml.Node{}
	identityKeys := []string{"key", "keyFingerprint", "issuer", "issuerRegExp", "subject", "subjectRegExp"}
	p.fields(m, "an identity", identityKeys, func(key, val *yaml.Node) {
		s, ok := p.str(val, key.Value, identityHint)
		if !ok {
			return
		}
		nodes[key.Value] = val
		switch key.Value {
		case "key":
			id.Key = s
		case "keyFingerprint":
			id.KeyFingerprint = strings.ToLower(s)
			if !validFingerprint(id.KeyFingerprint) {
				p.errorf(val, "write sha256: followed by 64 hex digits, as skillpm verify prints it, or name the key file with key:", "keyFingerprint %s is not a sha256 fingerprint", quote(s))
			}
		case "issuer":
			id.Issuer = s
		case "subject":
			id.Subject = s
		case "issuerRegExp", "subjectRegExp":
			re, err := anchored(s)
			if err != nil {
				p.errorf(val, "use Go RE2 syntax (no lookaround or backreferences); escape literal dots as \\.", "%s is not a valid regular expression: %s", key.Value, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
				return
			}
			if key.Value == "issuerRegExp" {
				id.IssuerRegExp, id.issuerRE = s, re
			} else {
				id.SubjectRegExp, id.subjectRE = s, re
			}
		}
	})
	if len(p.problems) > before {
		return id, false
	}
	keyForm := id.Key != "" || id.KeyFingerprint != ""
	certForm := id.Issuer != "" || id.IssuerRegExp != "" || id.Subject != "" || id.SubjectRegExp != ""
	switch {
	case !keyForm && !certForm:
		p.errorf(m, identityHint, "identity has neither key/keyFingerprint nor issuer and subject")
	case keyForm && certForm:
		p.errorf(m, "split it into two identities", "identity mixes a key with a certificate issuer or subject")
	case id.Key != "" && id.KeyFingerprint != "":
		p.errorf(nodes["keyFingerprint"], "keep one: key: FILE or keyFingerprint: sha256:…", "identity has both key and keyFingerprint")
	case id.Key != "":
		p.keyFile(nodes["key"], &id)
	case certForm:
		p.both(m, nodes, "issuer", "issuerRegExp")
		p.both(m, nodes, "subject", "subjectRegExp")
	}
	return id, len(p.problems) == before
}

const identityHint = "write key: FILE (a PEM public key beside the policy), keyFingerprint: sha256:…, or issuer (or issuerRegExp) with subject (or subjectRegExp)"

// both requires exactly one of an exact field and its RegExp form.
func (p *parser) both(m *yaml.Node, nodes map[string]*yaml.Node, exact, re string) {
	switch {
	case nodes[exact] != nil && nodes[re] != nil:
		p.errorf(nodes[re], "keep one of them", "identity has both %s and %s", exact, re)
	case nodes[exact] == nil && nodes[re] == nil:
		p.errorf(m, "add "+exact+": VALUE, or "+re+": PATTERN ("+re+": .* accepts any)", "certificate identity has no %s", exact)
	}
}

func (p *parser) keyFile(n *yaml.Node, id *IdentityRule) {
	path := id.KeyPath(p.dir)
	f, err := boundedfile.OpenRegular(path)
	if _, ok := errors.AsType[*boundedfile.NotRegularError](err); ok {
		p.errorf(n, "name the .pub file skillpm keygen wrote", "key file %s: %v", quote(id.Key), err)
		return
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			p.errorf(n, "key paths are relative to the policy file's directory; check the name, or use keyFingerprint:", "key file %s does not exist (looked for %s)", quote(id.Key), path)
		} else {
			p.errorf(n, "check the file's permissions", "key file %s cannot be read: %v", quote(id.Key), unwrapPath(err))
		}
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyBytes+1))
	if err == nil && len(data) > maxKeyBytes {
		err = errors.New("it is too large to be a public key")
	}
	if err == nil {
		p.read(id.Key, data)
		id.KeyFingerprint, err = FingerprintPEM(data)
	}
	if err != nil {
		p.errorf(n, "name the .pub file skillpm keygen wrote (a PEM PUBLIC KEY), never the private key", "key file %s is not a public key: %v", quote(id.Key), unwrapPath(err))
	}
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (p *parser) ceilings(n *yaml.Node, c *Ceilings) {
	if isNull(n) {
		return
	}
	if !p.mapping(n, "ceilings") {
		return
	}
	tierNames := []string{skill.TierExperimental, skill.TierCommunity, skill.TierVerified}
	p.fields(n, "ceilings", tierNames, func(key, val *yaml.Node) {
		if val.Kind == yaml.ScalarNode && val.Tag == "!!str" && val.Value == "all" {
			c.set(Tier(key.Value), AllPermissions())
			return
		}
		if val.Kind == yaml.ScalarNode && !isNull(val) {
			p.errorf(val, `write all, or a list such as [filesystem:read, network:read]`, "ceiling for %s must be all or a list of permissions, not %s", key.Value, describe(val))
			return
		}
		if ps, ok := p.permissions(val, "ceiling for "+key.Value); ok {
			c.set(Tier(key.Value), Ceiling{Permissions: ps})
		}
	})
}

func (p *parser) permissions(n *yaml.Node, what string) (PermissionSet, bool) {
	items, ok := p.sequence(n, what, "write a list such as [shell:execute, network:write]")
	if !ok {
		return nil, false
	}
	out := PermissionSet{}
	ok = true
	for _, it := range items {
		s, good := p.str(it, "permission", "write domain:level, e.g. network:read")
		if !good {
			ok = false
			continue
		}
		perm, err := skill.ParsePermission(s)
		if err != nil {
			hint := "write domain:level[:scope], e.g. network:read"
			var pe *skill.PermissionError
			if errors.As(err, &pe) && pe.Hint != "" {
				hint = pe.Hint
			}
			p.errorf(it, hint, "%s: %v", what, err)
			ok = false
			continue
		}
		out = append(out, perm)
	}
	return out, ok
}

func (p *parser) roots(n *yaml.Node) []string {
	items, ok := p.sequence(n, "trustedRoots", "write a list of Sigstore trusted root JSON files")
	out := []string{}
	if !ok {
		return out
	}
	for _, it := range items {
		s, ok := p.str(it, "trusted root", "name a Sigstore trusted root JSON file")
		if !ok {
			continue
		}
		path := s
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.dir, filepath.FromSlash(path))
		}
		fi, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			p.errorf(it, "paths are relative to the policy file's directory; check the name", "trusted root %s does not exist (looked for %s)", quote(s), path)
			continue
		case err != nil:
			p.errorf(it, "check the file's permissions", "trusted root %s cannot be read: %v", quote(s), unwrapPath(err))
			continue
		case !fi.Mode().IsRegular():
			p.errorf(it, "name a Sigstore trusted root JSON file", "trusted root %s is not a regular file", quote(s))
			continue
		}
		data, err := boundedfile.ReadRegular(path, maxRootBytes)
		if err != nil {
			p.errorf(it, "name a Sigstore trusted root JSON file", "trusted root %s cannot be read: %v", quote(s), unwrapPath(err))
			continue
		}
		p.read(s, data)
		if p.rootData == nil {
			p.rootData = map[string][]byte{}
		}
		p.rootData[path] = data
		out = append(out, path)
	}
	return out
}

func quote(s string) string { return strconv.Quote(s) }

// suggest returns the candidate closest to s (case-insensitive equality, a
// shared prefix such as policy/policies, or an edit distance of at most 2),
// or "".
func suggest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if strings.EqualFold(s, c) {
			return c
		}
		if len(s) >= 4 && strings.HasPrefix(strings.ToLower(c), strings.ToLower(s[:len(s)-1])) {
			best, bestD = c, 0
		}
		if d := distance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance, capped for long inputs.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 10
	}
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

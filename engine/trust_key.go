package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillpm/skillpm/internal/approval"
	"github.com/skillpm/skillpm/internal/atomicfile"
	"github.com/skillpm/skillpm/sign"
	"github.com/skillpm/skillpm/tiers"
	"gopkg.in/yaml.v3"
)

// defaultTrustScopes returns the repositories a key is trusted for when
// a TrustKeyRequest names none: the embedded registry, where a user's own
// skills are published by default (and whose signed copies a folder's
// identical build takes its tier from).
func defaultTrustScopes() []string { return []string{"embedded/*"} }

// defaultTrustTier is the tier a trusted key's signatures earn when a
// TrustKeyRequest names none.
const defaultTrustTier = "community"

// TrustKeyRequest trusts a public key in a policy file, in one step that
// TrustKey prints and UntrustKey reverses.
type TrustKeyRequest struct {
	// Key is the public key file (keygen's PREFIX.pub).
	Key string
	// Scopes are the repositories its signatures count for; none means
	// defaultTrustScopes().
	Scopes []string
	// Tier is what they earn; "" means defaultTrustTier.
	Tier string
}

// TrustKeyResult is what TrustKey or UntrustKey changed.
type TrustKeyResult struct {
	// PolicyFile is the policy file edited.
	PolicyFile string
	// Rule is the policy entry for the key, as TrustKey writes it: its
	// name, scopes and tier, and one identity, the key by fingerprint and
	// by its copy's path relative to PolicyFile's directory
	// (keys/FINGERPRINT.pub). UntrustKey's has the name and identity
	// alone.
	Rule tiers.Rule
	// Changed is false when the policy already said so.
	Changed bool
}

// keyRule is the policy entry TrustKey writes for the key with
// fingerprint fp, which UntrustKey finds again by its name.
func keyRule(fp string) tiers.Rule {
	key := tiers.IdentityRule{Key: "keys/" + keyFileBase(fp) + ".pub", KeyFingerprint: fp}
	return tiers.Rule{Name: trustRuleName(fp), Identities: []tiers.IdentityRule{key}}
}

// policyTarget is the policy file trust edits: Options.PolicyFile, else
// the first of the search path (the user's), which every command then
// reads when given no other.
func (e *Engine) policyTarget() (string, error) {
	if e.opts.PolicyFile != "" {
		return e.opts.PolicyFile, nil
	}
	sp := tiers.SearchPath(e.getenv)
	if len(sp) == 0 {
		return "", errors.New("no user configuration directory to keep a trust policy in")
	}
	return sp[0], nil
}

// readKey reads a public key file and returns its bytes and fingerprint.
func readKey(path string) ([]byte, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", invalid(fmt.Errorf("public key %s: %w", path, err))
	}
	pub, err := sign.LoadPublicKey(data)
	if err != nil {
		return nil, "", invalid(fmt.Errorf("public key %s: %w (name the .pub file keygen wrote)", path, err))
	}
	fp := sign.Fingerprint(pub)
	if fp == "" {
		return nil, "", invalid(fmt.Errorf("public key %s: a key of this kind has no fingerprint", path))
	}
	return data, fp, nil
}

// trustRuleName names the policy entry TrustKey writes for fingerprint
// fp, which UntrustKey finds again.
func trustRuleName(fp string) string {
	short := keyFileBase(fp)
	if len(short) > 16 {
		short = short[:16]
	}
	return "trusted key " + short
}

// TrustKey trusts the key in r.Key: it copies the public key beside the
// policy file (keys/FINGERPRINT.pub, so moving or deleting the original
// changes nothing) and adds a policy entry giving its signatures r.Tier
// in r.Scopes, to Options.PolicyFile or else the user's policy file,
// created when missing. The edited policy is parsed before it is written;
// an entry for the same key is replaced. UntrustKey removes both.
func (e *Engine) TrustKey(ctx context.Context, r TrustKeyRequest) (*TrustKeyResult, error) {
	scopes, tier := r.Scopes, r.Tier
	if len(scopes) == 0 {
		scopes = defaultTrustScopes()
	}
	if tier == "" {
		tier = defaultTrustTier
	}
	if !tiers.ValidTier(tier) {
		return nil, invalid(fmt.Errorf("tier %q: use verified, community or experimental", tier))
	}
	data, fp, file, doc, err := e.keyAndPolicy(r.Key)
	if err != nil {
		return nil, err
	}
	res := &TrustKeyResult{PolicyFile: file, Rule: keyRule(fp)}
	res.Rule.Scopes, res.Rule.Tier = scopes, tiers.Tier(tier)
	keyRel := res.Rule.Identities[0].Key
	keyFile := res.Rule.Identities[0].KeyPath(filepath.Dir(file))
	rule := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v *yaml.Node) {
		rule.Content = append(rule.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, v)
	}
	scalar := func(s string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Value: s, Style: yaml.DoubleQuotedStyle}
	}
	add("name", scalar(res.Rule.Name))
	seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range scopes {
		seq.Content = append(seq.Content, scalar(s))
	}
	add("scopes", seq)
	add("tier", &yaml.Node{Kind: yaml.ScalarNode, Value: tier})
	id := &yaml.Node{Kind: yaml.MappingNode}
	id.Content = []*yaml.Node{{Kind: yaml.ScalarNode, Value: "key"}, {Kind: yaml.ScalarNode, Value: keyRel}}
	add("identities", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{id}})

	rules := policyRules(doc)
	old := slices.IndexFunc(rules.Content, func(n *yaml.Node) bool { return ruleName(n) == res.Rule.Name })
	if old >= 0 {
		prev, _ := yaml.Marshal(rules.Content[old])
		now, _ := yaml.Marshal(rule)
		cur, _ := os.ReadFile(keyFile)
		if string(prev) == string(now) && string(cur) == string(data) {
			return res, nil
		}
		rules.Content[old] = rule
	} else {
		rules.Content = append(rules.Content, rule)
	}
	res.Changed = true
	return res, e.writePolicy(ctx, file, doc, []atomicfile.File{{Path: keyFile, Data: data, Perm: 0o644}})
}

// keyAndPolicy reads the public key at key (its bytes and fingerprint)
// and the policy file TrustKey and UntrustKey edit, parsed as a node.
func (e *Engine) keyAndPolicy(key string) (data []byte, fp, file string, doc *yaml.Node, err error) {
	if data, fp, err = readKey(key); err != nil {
		return nil, "", "", nil, err
	}
	if file, err = e.policyTarget(); err != nil {
		return nil, "", "", nil, err
	}
	if doc, err = readPolicyNode(file); err != nil {
		return nil, "", "", nil, err
	}
	return data, fp, file, doc, nil
}

// UntrustKey removes what TrustKey wrote for the key in r.Key (only its
// fingerprint is read): the policy entry and the copy of the key.
func (e *Engine) UntrustKey(ctx context.Context, r TrustKeyRequest) (*TrustKeyResult, error) {
	_, fp, file, doc, err := e.keyAndPolicy(r.Key)
	if err != nil {
		return nil, err
	}
	res := &TrustKeyResult{PolicyFile: file, Rule: keyRule(fp)}
	keyFile := res.Rule.Identities[0].KeyPath(filepath.Dir(file))
	rules := policyRules(doc)
	n := len(rules.Content)
	rules.Content = slices.DeleteFunc(rules.Content, func(n *yaml.Node) bool { return ruleName(n) == res.Rule.Name })
	if len(rules.Content) == n {
		return res, nil
	}
	res.Changed = true
	if err := e.writePolicy(ctx, file, doc, nil); err != nil {
		return nil, err
	}
	if err := os.Remove(keyFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	// The folder TrustKey made goes too once it holds no other key.
	_ = os.Remove(filepath.Dir(keyFile))
	return res, nil
}

// keyFileBase is a fingerprint without its "sha256:", for file and
// entry names.
func keyFileBase(fp string) string { return strings.TrimPrefix(fp, "sha256:") }

// readPolicyNode reads the policy file as YAML nodes (comments and order
// kept), or a new one (version 1, no policies) when it does not exist.
func readPolicyNode(file string) (*yaml.Node, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		data = []byte(fmt.Sprintf("# The trust policy: which signers earn which tier (skillpm trust add KEY.pub).\nversion: %d\npolicies: []\n", tiers.Version))
	} else if err != nil {
		return nil, fmt.Errorf("reading policy file %s: %w", file, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, invalid(fmt.Errorf("policy file %s: %w", file, err))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, invalid(fmt.Errorf("policy file %s is not a YAML mapping; check it with skillpm policy check %s", file, file))
	}
	return &doc, nil
}

// policyRules returns the policies sequence of doc, adding it when
// missing.
func policyRules(doc *yaml.Node) *yaml.Node {
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "policies" {
			v := top.Content[i+1]
			if v.Kind != yaml.SequenceNode {
				*v = yaml.Node{Kind: yaml.SequenceNode}
			}
			v.Style = 0
			return v
		}
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	top.Content = append(top.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "policies"}, seq)
	return seq
}

// ruleName is a policy entry's name, "" when it has none.
func ruleName(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "name" {
			return n.Content[i+1].Value
		}
	}
	return ""
}

// writePolicy writes doc to file with extra files (the key copy), after
// parsing the result as every command will: a policy that would not load
// is never written. The result is approved on this machine when the file
// was (approvedBefore), so a project policy trust add creates or edits
// keeps counting.
func (e *Engine) writePolicy(ctx context.Context, file string, doc *yaml.Node, extra []atomicfile.File) error {
	keep := e.approvedBefore(ctx, file)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	data := buf.Bytes()
	if err := os.MkdirAll(filepath.Join(filepath.Dir(file), "keys"), 0o755); err != nil {
		return err
	}
	// The key must be in place for the parse to find it.
	for _, f := range extra {
		if err := atomicfile.Write(f.Path, f.Data, f.Perm); err != nil {
			return err
		}
	}
	p, err := tiers.Parse(ctx, file, data)
	if err != nil {
		return fmt.Errorf("the edited policy %s would not load: %w", file, err)
	}
	if err := atomicfile.Write(file, data, 0o644); err != nil {
		return err
	}
	if !keep {
		return nil
	}
	return approval.Default(e.getenv).Approve(file, p.Digest, time.Now())
}

// approvedBefore reports whether a policy file TrustKey or UntrustKey is
// about to write may be approved as written: it does not exist yet (the
// edit creates it), or this machine approved its current bytes. An edit
// never approves what the user has not approved, so trust add on a
// cloned project's policy leaves its other entries unapproved.
func (e *Engine) approvedBefore(ctx context.Context, file string) bool {
	if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
		return true
	}
	p, err := tiers.Load(ctx, file)
	return err == nil && approval.Default(e.getenv).Approved(file, p.Digest)
}

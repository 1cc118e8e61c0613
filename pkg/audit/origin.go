package audit

import (
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Where fetched code comes from decides between a vendor and an attacker.
// "curl https://… | sh" has the same shape whether it installs the product
// the skill is about or a stranger's payload; what differs is the host:
//
//   - vendor: HTTPS from the domain of the product the skill is about (a
//     label of the host appears in its name, description, homepage or
//     declared network permissions; for GitHub, the owner or repository
//     in the path), or from one of the toolchain installers below. The
//     finding is a review that names the domain.
//   - hostile: a raw IP address, plain HTTP, a paste site, a gist or a
//     link shortener. There is no honest reason to run code from one: the
//     finding is malicious and blocks at every tier.
//   - unknown: any other domain. An instruction to run code from it is
//     malicious (blocks at every tier); code that does it keeps its rule.

// origin classes, from the most to the least trusted.
type origin int

const (
	originNone    origin = iota // no URL in the evidence
	originVendor                // the product's own domain or a known toolchain installer
	originUnknown               // a domain the skill is not about
	originHostile               // raw IP, plain HTTP, paste site, gist, shortener
)

// toolchainInstallers are the official installers of common developer
// toolchains, host and path prefix: skills about any language or agent
// tell their users to run them. The list is short on purpose; a product's
// own installer is recognised from the skill itself.
func toolchainInstallers() []string {
	return []string{
		"sh.rustup.rs", "astral.sh/uv", "astral.sh/ruff", "deno.land/install", "deno.land/x/install",
		"bun.sh/install", "get.pnpm.io/install", "install.python-poetry.org", "get.docker.com",
		"get.sdkman.io", "mise.run", "get.volta.sh", "raw.githubusercontent.com/homebrew/install/",
		"raw.githubusercontent.com/nvm-sh/nvm/", "claude.ai/install.sh", "ollama.com/install.sh",
		"deb.nodesource.com", "rpm.nodesource.com", "foundry.paradigm.xyz", "release.solana.com",
		"sh.vector.dev", "starship.rs/install.sh", "cli.github.com", "aka.ms/installazurecli",
		// Cloudflare's tunnel client, which skills exposing a local
		// webhook set up whatever product they are about.
		"github.com/cloudflare/cloudflared/releases/", "pkg.cloudflare.com",
	}
}

// pasteHosts are paste sites, gists and link shorteners: content there
// changes without a trace and has no publisher behind it.
func pasteHosts() []string {
	return []string{"pastebin.com", "paste.ee", "rentry.co", "rentry.org", "hastebin.com", "ghostbin.", "controlc.com",
		"dpaste.com", "dpaste.org", "justpaste.it", "privatebin.", "pastes.io", "paste.rs", "glot.io",
		"gist.github.com", "gist.githubusercontent.com", "bit.ly", "tinyurl.com", "t.co", "is.gd", "cutt.ly",
		"transfer.sh", "0x0.st", "termbin.com", "webhook.site", "ngrok.io", "ngrok-free.app", "requestbin."}
}

// msgRunsDownload ends the message of a script that runs a file it
// downloaded: an installer's shape as much as a pipe into a shell.
const msgRunsDownload = ", which this script downloaded"

// reURL finds http and https URLs in instruction text and commands.
const reURL = `(?i)\bhttps?://[^\s"'<>()\x60|;]+`

// scanURLs returns the URLs in s.
func (s *Scanner) scanURLs(text string) []string {
	return s.urlRe.FindAllString(text, 16)
}

// newURLRe compiles the URL pattern; each Scanner holds one.
func newURLRe() *regexp.Regexp { return regexp.MustCompile(reURL) }

// judgeURL classifies one URL for the skill being audited and names its host.
func (r *run) judgeURL(raw string) (origin, string, string) {
	u, err := url.Parse(strings.TrimRight(raw, ".,:!?]}*"))
	if err != nil || u.Host == "" {
		return originNone, "", ""
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return originNone, "", "" // this machine: nothing is fetched from elsewhere
	}
	if ip := net.ParseIP(host); ip != nil {
		return originHostile, host, "a raw IP address"
	}
	if strings.EqualFold(u.Scheme, "http") {
		return originHostile, host, "plain HTTP"
	}
	for _, p := range pasteHosts() {
		if host == p || strings.HasSuffix(p, ".") && strings.HasPrefix(host, p) || strings.HasSuffix(host, "."+p) {
			return originHostile, host, "a paste site, gist or link shortener"
		}
	}
	hp := host + strings.ToLower(u.EscapedPath())
	for _, t := range toolchainInstallers() {
		if strings.HasPrefix(hp, t) {
			if forgeHost(host) {
				// The forge hosts everyone: name the project.
				return originVendor, strings.TrimSuffix(strings.TrimSuffix(t, "/"), "/releases"), "a known toolchain installer"
			}
			return originVendor, host, "a known toolchain installer"
		}
	}
	if r.aboutHost(host) || r.namesHost(host) || r.homepageHost(host) {
		return originVendor, host, "the domain of the product the skill is about"
	}
	if forgeHost(host) {
		// The owner or the repository in the path says whose code it is.
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		for i := 0; i < len(parts) && i < 2; i++ {
			if r.aboutLabel(strings.ToLower(parts[i])) {
				return originVendor, host + "/" + strings.Join(parts[:min(2, len(parts))], "/"), "the repository of the product the skill is about"
			}
		}
	}
	return originUnknown, host, "a domain the skill is not about"
}

// forgeHost reports a code forge's host, where the owner and repository
// in the path say whose code it is.
func forgeHost(host string) bool {
	switch host {
	case "github.com", "raw.githubusercontent.com", "objects.githubusercontent.com", "gitlab.com":
		return true
	}
	return false
}

// judgeOrigin classifies every URL in text and returns the worst one.
func (r *run) judgeOrigin(text string) (origin, string, string) {
	worst, host, why := originNone, "", ""
	for _, raw := range r.s.scanURLs(text) {
		if o, h, w := r.judgeURL(raw); o > worst {
			worst, host, why = o, h, w
		}
	}
	return worst, host, why
}

// aboutText is what the skill says it is about: its name, description
// and declared permissions, in lower case, and the same with everything
// but letters and digits removed (so "lambda-labs" names lambdalabs.com).
func (r *run) aboutText() (string, string) {
	blob := strings.ToLower(r.sk.Name + " " + r.sk.Description + " " + strings.Join(r.sk.PermissionStrings(), " "))
	alnum := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			return c
		}
		return -1
	}, blob)
	return blob, alnum
}

// aboutLabel reports whether a path segment of a forge URL (an owner or a
// repository) names the skill: the segment appears in what the skill says
// it is about, or holds the skill's name ("kleo-static-files" for a skill
// named static-files).
func (r *run) aboutLabel(l string) bool {
	if r.sk == nil || len(l) < 3 {
		return false
	}
	blob, alnum := r.aboutText()
	name := strings.ToLower(r.sk.Name)
	return strings.Contains(blob, l) || len(l) >= 4 && strings.Contains(alnum, strings.ReplaceAll(l, "-", "")) ||
		len(name) >= 5 && strings.Contains(l, name)
}

// namesHost reports whether the skill names a label of host beyond the
// generic ones: labels of four characters or more may be run together in
// the skill's words ("lambda-labs"), two- and three-letter labels must be
// a word of their own ("the hf CLI" names hf.co).
func (r *run) namesHost(host string) bool {
	if r.sk == nil {
		return false
	}
	blob, alnum := r.aboutText()
	words := strings.FieldsFunc(blob, func(c rune) bool { return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') })
	labels := strings.Split(host, ".")
	for _, l := range labels[:len(labels)-1] {
		switch l {
		case "api", "www", "app", "cdn", "raw", "get", "dl", "download", "downloads", "install", "cli", "sh",
			"docs", "static", "files", "github", "githubusercontent", "com", "co", "net", "org", "io", "dev":
			continue
		}
		if len(l) >= 4 && strings.Contains(alnum, l) {
			return true
		}
		if len(l) >= 2 && slices.Contains(words, l) {
			return true
		}
	}
	return false
}

// homepageHost reports whether host is (a subdomain of the domain of) a
// homepage, repository or website the frontmatter names anywhere
// (metadata.openclaw.homepage and the like).
func (r *run) homepageHost(host string) bool {
	if r.sk == nil || r.sk.Node == nil {
		return false
	}
	found := false
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 16 || found {
			return
		}
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				switch strings.ToLower(n.Content[i].Value) {
				case "homepage", "website", "url", "repository", "source", "docs", "documentation":
					if u, err := url.Parse(n.Content[i+1].Value); err == nil && u.Hostname() != "" {
						if sameSite(host, strings.ToLower(u.Hostname())) {
							found = true
						}
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(r.sk.Node, 0)
	return found
}

// sameSite reports whether two hosts share their registrable domain (the
// last two labels: good enough for comparing an installer's host with a
// homepage's, and never widening to a public suffix alone).
func sameSite(a, b string) bool {
	site := func(h string) string {
		ls := strings.Split(strings.TrimPrefix(h, "www."), ".")
		if len(ls) > 2 {
			ls = ls[len(ls)-2:]
		}
		return strings.Join(ls, ".")
	}
	switch b {
	case "github.com", "gitlab.com", "npmjs.com", "www.npmjs.com", "pypi.org", "clawhub.ai", "clawhub.com":
		return false // a forge or registry hosts everyone's projects
	}
	return site(a) == site(b)
}

// installerShape reports the shape of an installer run from the network:
// a download piped into a shell (through sudo and VAR=value assignments),
// substituted into one (sh <(curl …), sh -c "$(curl …)"), or PowerShell's
// iex.
func installerShape(s string) bool {
	l := strings.ToLower(s)
	shell := func(w string) bool {
		switch w {
		case "sh", "bash", "zsh", "dash", "ksh":
			return true
		}
		return false
	}
	for i := 0; i < len(l); i++ {
		if l[i] != '|' {
			continue
		}
		words := strings.Fields(l[i+1 : min(len(l), i+120)])
		for j, w := range words {
			if j == 0 && w == "sudo" || strings.HasPrefix(w, "-") || strings.Contains(w, "=") {
				continue
			}
			if shell(w) {
				return true
			}
			break
		}
	}
	for _, sh := range []string{"sh", "bash", "zsh"} {
		if strings.Contains(l, sh+" <(curl") || strings.Contains(l, sh+" <(wget") ||
			strings.Contains(l, sh+` -c "$(curl`) || strings.Contains(l, sh+` -c "$(wget`) {
			return true
		}
	}
	return strings.Contains(l, "iex") && (strings.Contains(l, "iwr") || strings.Contains(l, "irm") || strings.Contains(l, "downloadstring"))
}

// judgeFetched weighs a finding about fetched code or instructions by
// where they come from: a hostile origin (and, for an instruction to run
// code, any domain the skill is not about) makes it malicious; the
// product's own domain or a known toolchain installer makes it a review
// that names the host. Text that is not an instruction (quoted, listed,
// or in a document the agent does not load) is never made malicious by
// its URL.
func (r *run) judgeFetched(f *Finding) {
	instr := f.Rule == RuleInstrFetchExec || f.Rule == RuleInstrRunBinary
	switch f.Rule {
	case RuleInstrFetchExec, RuleInstrRunBinary, RuleShCurlPipe, RuleCodeRemoteExec, RuleInstrRemote:
	default:
		return
	}
	o, host, why := r.judgeOrigin(f.Evidence)
	// A file the block downloaded comes from the block's URLs, not from
	// those on the line that runs it (cloudflared tunnel --url
	// http://localhost:8080).
	ranDownload := strings.Contains(f.Message, msgRunsDownload)
	if (o == originNone || ranDownload) && r.fenceFile == f.File && r.fenceCode != "" {
		o, host, why = r.judgeOrigin(r.fenceCode)
	}
	direct := directive(f.Context)
	switch o {
	case originHostile:
		f.Malicious = f.Malicious || direct
		f.Message += " from " + host + " (" + why + ")"
	case originUnknown:
		if instr {
			f.Malicious = f.Malicious || direct
		}
		f.Message += " from " + host + " (" + why + ")"
	case originVendor:
		installer := installerShape(f.Evidence) || installerShape(r.fenceCode) || ranDownload
		if f.Malicious || f.Rule == RuleInstrRemote || !installer {
			// Code a vendor's server hands to node -e or eval is not an
			// installer: it keeps its rule.
			return
		}
		f.Vendor = host
		// A vendor's installer is a review wherever the skill shows it
		// (a code span or block is how installers are shown); in a
		// document the agent does not load it stays lowered.
		f.Severity = min(f.Severity, High)
		if direct {
			f.Severity = High
		}
		f.Message += " from " + host + " (" + why + "); review the installer"
	}
}

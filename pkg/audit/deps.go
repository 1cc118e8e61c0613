package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"gopkg.in/yaml.v3"
)

// Version strings are data, not code: a pattern is the right reader here.
var (
	pyNameRe      = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$`)
	exactSemverRe = regexp.MustCompile(`^=?v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$`)
	ghShortRe     = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(?:#.*)?$`)
)

// normalizePkg compares Python distribution names as pip does.
func normalizePkg(n string) string {
	n = strings.ToLower(strings.TrimSpace(n))
	var b strings.Builder
	dash := false
	for _, c := range n {
		if c == '-' || c == '_' || c == '.' {
			if !dash {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		dash = false
		b.WriteRune(c)
	}
	return b.String()
}

// pyRequirementName is the distribution name of a requirement, "" for a
// bare URL or an option line.
func pyRequirementName(req string) string {
	req = strings.TrimSpace(req)
	if req == "" || strings.HasPrefix(req, "-") || strings.Contains(strings.SplitN(req, "@", 2)[0], "://") {
		return ""
	}
	m := pyNameRe.FindStringSubmatch(req)
	if m == nil {
		return ""
	}
	return m[1]
}

// checkPyRequirement reports a Python requirement that is fetched from git
// or a URL, or not pinned to one version.
func (r *run) checkPyRequirement(file string, line, col int, req, what string) {
	req = strings.TrimSpace(req)
	if i := strings.Index(req, " #"); i >= 0 {
		req = strings.TrimSpace(req[:i])
	}
	if req == "" || strings.HasPrefix(req, "#") {
		return
	}
	lower := strings.ToLower(req)
	switch {
	case strings.Contains(lower, "git+") || strings.HasPrefix(lower, "git://") || strings.Contains(lower, ".git@") || strings.HasSuffix(lower, ".git"):
		r.add(Finding{Rule: RuleDepGit, File: file, Line: line, Column: col, Message: what + " from a git repository", Evidence: req})
		return
	case strings.Contains(lower, "://"):
		if !strings.Contains(lower, "file://") {
			r.add(Finding{Rule: RuleDepURL, File: file, Line: line, Column: col, Message: what + " from a URL", Evidence: req})
		}
		return
	case strings.HasPrefix(req, ".") || strings.HasPrefix(req, "/") || strings.HasSuffix(lower, ".whl") || strings.HasSuffix(lower, ".tar.gz"):
		return // a local path: audited as part of the skill
	}
	m := pyNameRe.FindStringSubmatch(req)
	if m == nil {
		return
	}
	spec := strings.TrimSpace(strings.SplitN(m[3], ";", 2)[0])
	spec = strings.Trim(spec, "()")
	specs := strings.Split(spec, ",")
	pinned := len(specs) == 1 && (strings.HasPrefix(strings.TrimSpace(specs[0]), "===") ||
		strings.HasPrefix(strings.TrimSpace(specs[0]), "==") && !strings.Contains(specs[0], "*"))
	if !pinned {
		msg := what + " without an exact version"
		if spec != "" {
			msg = what + " with a range (" + spec + "), not an exact version"
		}
		r.add(Finding{Rule: RuleDepUnpinned, File: file, Line: line, Column: col, Message: msg, Evidence: req})
	}
}

// splitNodeDep splits "name@spec" (scoped names begin with @).
func splitNodeDep(dep string) (name, spec string) {
	dep = strings.TrimSpace(dep)
	if strings.Contains(dep, "://") || strings.HasPrefix(dep, "git") || strings.HasPrefix(dep, "github:") ||
		strings.HasPrefix(dep, "gitlab:") || strings.HasPrefix(dep, "bitbucket:") {
		return "", dep
	}
	start := 0
	if strings.HasPrefix(dep, "@") {
		start = 1 // a scope, not a version separator
	}
	at := strings.Index(dep[start:], "@")
	if at < 0 {
		return dep, ""
	}
	at += start
	return dep[:at], dep[at+1:]
}

// checkNodeRequirement reports a Node dependency from git or a URL, or not
// pinned. spec "" means name may carry it as name@spec.
func (r *run) checkNodeRequirement(file string, line, col int, name, spec, what string) {
	if spec == "" {
		name, spec = splitNodeDep(name)
	}
	spec = strings.TrimSpace(spec)
	if strings.HasPrefix(spec, "npm:") {
		_, spec = splitNodeDep(strings.TrimPrefix(spec, "npm:"))
	}
	ev := name
	switch {
	case name == "":
		ev = spec
	case spec != "":
		ev = name + "@" + spec
	}
	lower := strings.ToLower(spec)
	switch {
	case strings.HasPrefix(lower, "git") || strings.HasPrefix(lower, "github:") || strings.HasPrefix(lower, "gitlab:") ||
		strings.HasPrefix(lower, "bitbucket:") || ghShortRe.MatchString(spec) && !strings.HasPrefix(spec, "@"):
		r.add(Finding{Rule: RuleDepGit, File: file, Line: line, Column: col, Message: what + " from a git repository", Evidence: ev})
	case strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"):
		r.add(Finding{Rule: RuleDepURL, File: file, Line: line, Column: col, Message: what + " from a URL", Evidence: ev})
	case strings.HasPrefix(lower, "file:") || strings.HasPrefix(lower, "link:") || strings.HasPrefix(lower, "workspace:") ||
		strings.HasPrefix(lower, "portal:") || strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "/"):
	case exactSemverRe.MatchString(spec):
	default:
		msg := what + " without an exact version"
		if spec != "" {
			msg = what + " with a range or tag (" + spec + "), not an exact version"
		}
		r.add(Finding{Rule: RuleDepUnpinned, File: file, Line: line, Column: col, Message: msg, Evidence: ev})
	}
}

// yamlAt follows mapping keys from n.
func yamlAt(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// checkRequirements checks metadata.gaia.requirements.dependencies and
// node_dependencies.
func (r *run) checkRequirements() {
	if r.sk == nil {
		return
	}
	reqs := yamlAt(r.sk.Node, "metadata", "gaia", "requirements")
	pos := func(key string, i int) (int, int) {
		if n := yamlAt(reqs, key); n != nil && n.Kind == yaml.SequenceNode && i < len(n.Content) {
			return n.Content[i].Line, n.Content[i].Column
		}
		if n := yamlAt(reqs, key); n != nil {
			return n.Line, n.Column
		}
		return 0, 0
	}
	for i, dep := range r.sk.Gaia.Requirements.Dependencies {
		line, col := pos("dependencies", i)
		r.checkPyRequirement(r.skillFile, line, col, dep, "dependency "+pyRequirementNameOr(dep))
	}
	for i, dep := range r.sk.Gaia.Requirements.NodeDependencies {
		line, col := pos("node_dependencies", i)
		name, _ := splitNodeDep(dep)
		if name == "" {
			name = dep
		}
		r.checkNodeRequirement(r.skillFile, line, col, dep, "", "node dependency "+name)
	}
}

func pyRequirementNameOr(dep string) string {
	if n := pyRequirementName(dep); n != "" {
		return n
	}
	return dep
}

// checkRequirementsFile reads a pip requirements file the skill ships.
func (r *run) checkRequirementsFile(rel string, data []byte) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		n := i + 1
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(lines[i])
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "-") {
			fields := strings.Fields(line)
			opt := fields[0]
			val := ""
			if k := strings.Index(opt, "="); k >= 0 {
				opt, val = opt[:k], opt[k+1:]
			} else if len(fields) > 1 {
				val = fields[1]
			}
			switch opt {
			case "-i", "--index-url", "--extra-index-url", "-f", "--find-links":
				r.add(Finding{Rule: RuleDepURL, File: rel, Line: n, Message: "packages are installed from another index or link (" + val + "), open to dependency confusion", Evidence: line})
			case "-e", "--editable":
				r.checkPyRequirement(rel, n, 0, val, "editable requirement")
			}
			continue
		}
		if k := strings.Index(line, " --"); k >= 0 {
			line = strings.TrimSpace(line[:k]) // --hash and other per-line options
		}
		if name := pyRequirementName(line); name != "" {
			r.pyDeclared[normalizePkg(name)] = true
		}
		r.checkPyRequirement(rel, n, 0, line, "requirement "+pyRequirementNameOr(line))
	}
}

// pyproject is the part of pyproject.toml the audit reads: PEP 621
// dependencies, the build requirements and Poetry's dependency tables.
type pyproject struct {
	Project struct {
		Dependencies         []string            `toml:"dependencies"`
		OptionalDependencies map[string][]string `toml:"optional-dependencies"`
	} `toml:"project"`
	BuildSystem struct {
		Requires []string `toml:"requires"`
	} `toml:"build-system"`
	Tool struct {
		Poetry struct {
			Dependencies    map[string]any `toml:"dependencies"`
			DevDependencies map[string]any `toml:"dev-dependencies"`
			Group           map[string]struct {
				Dependencies map[string]any `toml:"dependencies"`
			} `toml:"group"`
		} `toml:"poetry"`
	} `toml:"tool"`
}

// poetryExact is a Poetry version that pins one version ("1.2.3").
var poetryExact = regexp.MustCompile(`^=?=?\d+(\.\d+)*([a-z]+\d*)?$`)

// checkPyproject reads a pyproject.toml the skill ships: its dependencies
// are declared (for the import check) and judged like requirements.txt
// lines, unless a lock file beside it (uv.lock, poetry.lock, pdm.lock)
// pins the ranges.
func (r *run) checkPyproject(rel string, data []byte) {
	var pp pyproject
	if err := toml.Unmarshal(data, &pp); err != nil {
		r.add(Finding{Rule: RuleFileUnreadable, File: rel, Message: "pyproject.toml does not parse: " + err.Error()})
		return
	}
	locked := r.lockBeside(rel, "uv.lock", "poetry.lock", "pdm.lock", "pylock.toml")
	lineOf := func(s string) int { return lineOfText(data, s) }
	// keyLine is the line of a TOML key at the start of a line.
	keyLine := func(key string) int {
		for _, sep := range []string{" =", "="} {
			if l := lineOf("\n" + key + sep); l > 0 {
				return l + 1
			}
		}
		return 0
	}
	check := func(req, what string, line int) {
		lower := strings.ToLower(req)
		if locked && !strings.Contains(lower, "://") && !strings.Contains(lower, "git+") {
			return // the lock file pins the range
		}
		r.checkPyRequirement(rel, line, 0, req, what)
	}
	pep508 := append(slices.Clone(pp.Project.Dependencies), pp.BuildSystem.Requires...)
	for _, extra := range slices.Sorted(maps.Keys(pp.Project.OptionalDependencies)) {
		pep508 = append(pep508, pp.Project.OptionalDependencies[extra]...)
	}
	for _, req := range pep508 {
		if name := pyRequirementName(req); name != "" {
			r.pyDeclared[normalizePkg(name)] = true
		}
		check(req, "requirement "+pyRequirementNameOr(req), lineOf(req))
	}
	poetry := []map[string]any{pp.Tool.Poetry.Dependencies, pp.Tool.Poetry.DevDependencies}
	for _, g := range slices.Sorted(maps.Keys(pp.Tool.Poetry.Group)) {
		poetry = append(poetry, pp.Tool.Poetry.Group[g].Dependencies)
	}
	for _, deps := range poetry {
		for _, name := range slices.Sorted(maps.Keys(deps)) {
			if strings.EqualFold(name, "python") {
				continue
			}
			r.pyDeclared[normalizePkg(name)] = true
			what := "requirement " + name
			switch spec := deps[name].(type) {
			case string:
				check(poetryRequirement(name, spec), what, keyLine(name))
			case map[string]any:
				switch {
				case spec["git"] != nil:
					r.add(Finding{Rule: RuleDepGit, File: rel, Line: keyLine(name), Message: what + " from a git repository", Evidence: fmt.Sprint(spec["git"])})
				case spec["url"] != nil:
					r.add(Finding{Rule: RuleDepURL, File: rel, Line: keyLine(name), Message: what + " from a URL", Evidence: fmt.Sprint(spec["url"])})
				case spec["path"] != nil:
					// a local path: audited as part of the skill
				default:
					v, _ := spec["version"].(string)
					check(poetryRequirement(name, v), what, keyLine(name))
				}
			}
		}
	}
}

// lockBeside reports whether the skill ships one of the lock files beside
// the manifest rel: a lock pins the ranges the manifest states.
func (r *run) lockBeside(rel string, locks ...string) bool {
	dir := path.Dir(rel)
	return slices.ContainsFunc(locks, func(lock string) bool { return r.paths[path.Join(dir, lock)] })
}

// lineOfText is the line of the first occurrence of s in data, 0 when
// there is none: manifests are decoded without positions.
func lineOfText(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 0
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// poetryRequirement writes a Poetry dependency as a PEP 508 requirement,
// so that one judge reads both: "1.2.3" is exact, "*", "^1.2" and "~1.2"
// are ranges.
func poetryRequirement(name, spec string) string {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "" || spec == "*":
		return name
	case poetryExact.MatchString(spec):
		return name + "==" + strings.TrimLeft(spec, "=")
	}
	return name + " " + spec
}

// packageJSON is the part of package.json the audit reads.
type packageJSON struct {
	Dependencies         map[string]string `json:"dependencies"`
	DevDependencies      map[string]string `json:"devDependencies"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
	PeerDependencies     map[string]string `json:"peerDependencies"`
	Scripts              map[string]string `json:"scripts"`
}

// checkPackageJSON reads a package.json the skill ships: dependencies (a
// lock file beside it pins ranges) and install hooks.
func (r *run) checkPackageJSON(rel string, data []byte) {
	var pj packageJSON
	if err := json.Unmarshal(data, &pj); err != nil {
		r.add(Finding{Rule: RuleFileUnreadable, File: rel, Message: "package.json does not parse: " + err.Error()})
		return
	}
	locked := r.lockBeside(rel, "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb", "bun.lock")
	lineOf := func(key string) int { return lineOfText(data, `"`+key+`"`) }
	for _, deps := range []map[string]string{pj.Dependencies, pj.DevDependencies, pj.OptionalDependencies, pj.PeerDependencies} {
		names := make([]string, 0, len(deps))
		for n := range deps {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			r.jsDeclared[n] = true
			spec := deps[n]
			if locked && !strings.Contains(spec, ":") && !strings.Contains(spec, "/") {
				continue // the lock file pins the range
			}
			r.checkNodeRequirement(rel, lineOf(n), 0, n, spec, "package "+n)
		}
	}
	hooks := make([]string, 0, len(pj.Scripts))
	for h := range pj.Scripts {
		hooks = append(hooks, h)
	}
	sort.Strings(hooks)
	for _, h := range hooks {
		cmd := pj.Scripts[h]
		line := lineOf(h)
		switch h {
		case "preinstall", "install", "postinstall":
			r.add(Finding{Rule: RuleDepInstallHook, File: rel, Line: line,
				Message: "the " + h + " script runs at npm install", Evidence: cmd})
		}
		r.shellSnippet(rel, line, cmd, 1, false)
	}
}

// importRef is one import of a package by code.
type importRef struct {
	lang      string // "python" or "javascript"
	module    string
	file      string
	line, col int
}

// checkImports reports third-party imports the skill does not declare.
func (r *run) checkImports() {
	seen := map[string]bool{}
	for _, im := range r.imports {
		var pkg string
		switch im.lang {
		case "python":
			top := strings.SplitN(im.module, ".", 2)[0]
			if top == "" || pyStdlib(top) || r.localPy[top] || r.pyCovers(top) {
				continue
			}
			pkg = top
		case "javascript":
			pkg = nodePackage(im.module)
			if pkg == "" || r.jsDeclared[pkg] || r.jsDeclared[im.module] {
				continue
			}
		}
		key := im.file + "\x00" + pkg
		if seen[key] {
			continue
		}
		seen[key] = true
		where := "metadata.gaia.requirements.dependencies"
		if im.lang == "javascript" {
			where = "metadata.gaia.requirements.node_dependencies"
		}
		r.add(Finding{Rule: RuleDepUndeclared, File: im.file, Line: im.line, Column: im.col,
			Message:  "imports " + pkg + ", which the skill does not declare (" + where + ", requirements.txt, pyproject.toml or package.json)",
			Evidence: im.module})
	}
}

// pyCovers reports whether a declared Python distribution provides the
// top-level module.
func (r *run) pyCovers(mod string) bool {
	n := normalizePkg(mod)
	if r.pyDeclared[n] || r.pyDeclared["python-"+n] || r.pyDeclared[n+"-python"] || r.pyDeclared["py"+n] {
		return true
	}
	for _, d := range pyDistsFor(mod) {
		if r.pyDeclared[d] {
			return true
		}
	}
	for d := range r.pyDeclared {
		if strings.HasPrefix(d, n+"-") {
			return true
		}
	}
	return false
}

// pyDistsFor maps import names to the distributions that provide them,
// where the two differ.
func pyDistsFor(mod string) []string {
	switch mod {
	case "yaml":
		return []string{"pyyaml"}
	case "PIL":
		return []string{"pillow"}
	case "bs4":
		return []string{"beautifulsoup4"}
	case "cv2":
		return []string{"opencv-python", "opencv-python-headless", "opencv-contrib-python"}
	case "sklearn":
		return []string{"scikit-learn"}
	case "skimage":
		return []string{"scikit-image"}
	case "dateutil":
		return []string{"python-dateutil"}
	case "dotenv":
		return []string{"python-dotenv"}
	case "jwt":
		return []string{"pyjwt"}
	case "attr":
		return []string{"attrs"}
	case "Crypto", "Cryptodome":
		return []string{"pycryptodome", "pycryptodomex", "pycrypto"}
	case "docx":
		return []string{"python-docx"}
	case "pptx":
		return []string{"python-pptx"}
	case "fitz", "pymupdf":
		return []string{"pymupdf"}
	case "magic":
		return []string{"python-magic"}
	case "serial":
		return []string{"pyserial"}
	case "usb":
		return []string{"pyusb"}
	case "win32api", "win32con", "win32gui", "win32com", "pywintypes", "win32clipboard":
		return []string{"pywin32"}
	case "gi":
		return []string{"pygobject"}
	case "OpenSSL":
		return []string{"pyopenssl"}
	case "git":
		return []string{"gitpython"}
	case "telegram":
		return []string{"python-telegram-bot"}
	case "slugify":
		return []string{"python-slugify"}
	case "jose":
		return []string{"python-jose"}
	case "multipart":
		return []string{"python-multipart"}
	case "googleapiclient":
		return []string{"google-api-python-client"}
	case "mpl_toolkits":
		return []string{"matplotlib"}
	case "pkg_resources":
		return []string{"setuptools"}
	case "psycopg2":
		return []string{"psycopg2-binary"}
	case "MySQLdb":
		return []string{"mysqlclient"}
	case "faiss":
		return []string{"faiss-cpu", "faiss-gpu"}
	case "websocket":
		return []string{"websocket-client"}
	case "socketio":
		return []string{"python-socketio"}
	case "zmq":
		return []string{"pyzmq"}
	case "nacl":
		return []string{"pynacl"}
	case "kafka":
		return []string{"kafka-python"}
	case "ruamel":
		return []string{"ruamel-yaml"}
	case "yt_dlp":
		return []string{"yt-dlp"}
	case "youtube_dl":
		return []string{"youtube-dl"}
	case "typing_extensions":
		return []string{"typing-extensions"}
	case "google":
		return []string{"protobuf", "google-genai", "google-generativeai"}
	}
	return nil
}

// nodePackage is the package name of a bare module specifier, "" for
// built-ins, relative and absolute paths, and URLs.
func nodePackage(spec string) string {
	if spec == "" || strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "/") || strings.Contains(spec, "://") ||
		strings.HasPrefix(spec, "node:") || strings.HasPrefix(spec, "bun:") || strings.HasPrefix(spec, "jsr:") ||
		strings.HasPrefix(spec, "#") || strings.HasPrefix(spec, "data:") {
		return ""
	}
	spec = strings.TrimPrefix(spec, "npm:")
	parts := strings.Split(spec, "/")
	name := parts[0]
	if strings.HasPrefix(name, "@") && len(parts) > 1 {
		name += "/" + parts[1]
	}
	if i := strings.LastIndex(name, "@"); i > 0 {
		name = name[:i]
	}
	if nodeBuiltin(parts[0]) {
		return ""
	}
	return name
}

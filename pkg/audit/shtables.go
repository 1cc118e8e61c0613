package audit

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// subcommand is the first argument that is not an option.
func subcommand(rest []*syntax.Word) string {
	for _, w := range rest {
		t, ok := wordLit(w)
		if !ok {
			return ""
		}
		if !strings.HasPrefix(t, "-") {
			return t
		}
	}
	return ""
}

// nonFlagArgs are the literal arguments that are not options.
func nonFlagArgs(rest []*syntax.Word) []string {
	var out []string
	for _, w := range rest {
		t, _ := wordText(w)
		if !strings.HasPrefix(t, "-") {
			out = append(out, t)
		}
	}
	return out
}

// shellNetwork says whether a command uses the network, and whether to
// fetch (read) or to send and change remote state (write).
func shellNetwork(name string, rest []*syntax.Word) (string, bool) {
	sub := subcommand(rest)
	switch name {
	case "curl":
		for i, w := range rest {
			t, _ := wordLit(w)
			switch {
			case t == "-d" || strings.HasPrefix(t, "--data") || t == "-F" || strings.HasPrefix(t, "--form") ||
				t == "-T" || t == "--upload-file" || t == "--json" || strings.HasPrefix(t, "-d"):
				return "write", true
			case t == "-X" || t == "--request":
				if i+1 < len(rest) {
					m, _ := wordLit(rest[i+1])
					if m = strings.ToUpper(m); m != "GET" && m != "HEAD" && m != "OPTIONS" {
						return "write", true
					}
				}
			}
		}
		return "read", true
	case "wget":
		for _, w := range rest {
			t, _ := wordLit(w)
			if strings.HasPrefix(t, "--post-") || strings.HasPrefix(t, "--method") || strings.HasPrefix(t, "--body-") {
				return "write", true
			}
		}
		return "read", true
	case "http", "https", "xh", "httpie":
		switch strings.ToUpper(sub) {
		case "POST", "PUT", "PATCH", "DELETE":
			return "write", true
		}
		return "read", true
	case "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "ftp", "telnet", "mosh", "sshpass":
		return "write", true
	case "rsync":
		for _, a := range nonFlagArgs(rest) {
			if strings.Contains(a, ":") || strings.Contains(a, "://") {
				return "write", true
			}
		}
	case "fetch", "aria2c", "lynx", "links", "w3m", "dig", "nslookup", "host", "ping", "ping6", "traceroute",
		"whois", "yt-dlp", "youtube-dl", "gallery-dl", "gh", "glab", "aws", "gcloud", "gsutil", "az", "kubectl",
		"heroku", "vercel", "netlify", "flyctl", "fly", "wrangler", "doctl", "hf", "huggingface-cli", "ollama",
		"npx", "bunx", "pnpx", "uvx", "gemini", "claude", "codex", "openai", "stripe", "firebase", "supabase":
		return "read", true
	case "git":
		switch sub {
		case "clone", "fetch", "pull", "ls-remote", "submodule":
			return "read", true
		case "push":
			return "write", true
		}
	case "npm", "pnpm", "yarn", "bun":
		switch sub {
		case "install", "i", "add", "ci", "update", "upgrade", "dlx", "x", "create", "init", "exec", "view", "info", "outdated", "audit":
			return "read", true
		case "publish", "unpublish", "deprecate":
			return "write", true
		}
	case "pip", "pip3", "pipx", "uv", "poetry", "conda", "mamba", "gem", "cargo", "go", "brew", "apt", "apt-get",
		"dnf", "yum", "apk", "pacman", "zypper", "port", "choco", "winget", "scoop", "snap", "flatpak", "deno":
		switch sub {
		case "install", "add", "download", "get", "update", "upgrade", "sync", "run", "tool", "mod", "fetch", "search", "remove":
			return "read", true
		case "publish", "upload", "push":
			return "write", true
		}
	case "docker", "podman":
		switch sub {
		case "pull", "run", "build", "login", "search":
			return "read", true
		case "push":
			return "write", true
		}
	case "openssl":
		if sub == "s_client" {
			return "read", true
		}
	}
	return "", false
}

// effects records the file system, desktop and database uses of a
// command, credential-store reads, and unpinned package installs.
func (a *shAnalysis) effects(p syntax.Pos, name string, rest []*syntax.Word, ev string) {
	// Most commands never look at their arguments: they are listed only
	// when a case needs them (an echo of a million words was listed twice).
	var listed []string
	args := func() []string {
		if listed == nil {
			listed = nonFlagArgs(rest)
		}
		return listed
	}
	sub := subcommand(rest)
	switch name {
	case "rm", "rmdir", "mv", "cp", "mkdir", "touch", "chmod", "chown", "chgrp", "ln", "install", "truncate", "shred",
		"unzip", "patch", "mktemp", "rsync", "tee", "split", "csplit", "mkfifo":
		if name == "tee" && len(args()) == 0 {
			break
		}
		a.use(p, "filesystem", "write", "", name)
	case "dd":
		for _, x := range args() {
			if strings.HasPrefix(x, "of=") {
				a.use(p, "filesystem", "write", "", name)
			}
		}
	case "tar":
		a.use(p, "filesystem", "write", "", name)
	case "sed", "perl", "ruby":
		if hasFlag(rest, "-i") || strings.Contains(ev, " -i") {
			a.use(p, "filesystem", "write", "", name+" -i")
		} else if len(args()) > 1 {
			a.use(p, "filesystem", "read", "", name)
		}
	case "cat", "head", "tail", "less", "more", "grep", "egrep", "fgrep", "rg", "ag", "find", "ls", "wc", "sort",
		"uniq", "diff", "cmp", "stat", "file", "jq", "yq", "awk", "gawk", "du", "tree", "md5sum", "sha256sum",
		"shasum", "xxd", "hexdump", "od", "strings", "nl", "fd", "bat", "zcat", "zgrep", "column", "cut":
		if len(args()) > 0 {
			a.use(p, "filesystem", "read", "", name)
		}
	case "git":
		switch sub {
		case "clone", "pull", "checkout", "reset", "add", "commit", "init", "apply", "am", "merge", "rebase", "stash", "rm", "mv", "restore", "switch":
			a.use(p, "filesystem", "write", "", "git "+sub)
		case "status", "log", "diff", "show", "ls-files", "grep", "blame", "rev-parse", "branch":
			a.use(p, "filesystem", "read", "", "git "+sub)
		}
	case "osascript", "xdotool", "cliclick", "ydotool", "wmctrl", "xte", "xdg-open", "open", "screencapture",
		"scrot", "gnome-screenshot", "import", "pbcopy", "pbpaste", "xclip", "xsel", "wl-copy", "wl-paste",
		"nircmd", "autohotkey", "shortcuts":
		a.use(p, "desktop", "control", "", name)
	case "sqlite3", "psql", "mysql", "mariadb", "mongo", "mongosh", "redis-cli", "duckdb", "clickhouse-client",
		"cqlsh", "sqlcmd", "pg_dump", "mysqldump":
		level := "read"
		for _, x := range args() {
			if sqlWriteRe.MatchString(x) {
				level = "write"
			}
		}
		a.use(p, "database", level, "", name)
	case "security":
		switch sub {
		case "find-generic-password", "find-internet-password", "dump-keychain", "export", "find-certificate", "find-identity":
			a.add(RuleCodeCredFile, p, 0, "reads the macOS keychain ("+sub+")", ev)
		}
	case "gh", "glab":
		if sub == "auth" && containsWord(args(), "token") {
			a.add(RuleCodeCredFile, p, 0, name+" auth token prints the stored GitHub token", ev)
		}
	case "gcloud":
		if containsWord(args(), "print-access-token") || containsWord(args(), "print-identity-token") {
			a.add(RuleCodeCredFile, p, 0, "gcloud prints a stored access token", ev)
		}
	case "aws":
		if sub == "configure" && (containsWord(args(), "get") || containsWord(args(), "export-credentials")) {
			a.add(RuleCodeCredFile, p, 0, "aws configure reads stored AWS credentials", ev)
		}
	case "op", "pass", "gopass", "bw", "lpass", "keyring", "secret-tool":
		switch sub {
		case "read", "get", "show", "item", "export", "lookup", "list", "ls":
			a.add(RuleCodeCredFile, p, 0, name+" reads a password store", ev)
		}
	}
	a.packageInstall(p, name, sub, rest)
}

func containsWord(xs []string, w string) bool {
	for _, x := range xs {
		if x == w {
			return true
		}
	}
	return false
}

// packageInstall checks packages installed at run time: pip install X and
// npm install X are dependencies too, and the same pinning rules apply.
func (a *shAnalysis) packageInstall(p syntax.Pos, name, sub string, rest []*syntax.Word) {
	var pkgs []string
	var eco string
	var args []string
	switch name {
	case "pip", "pip3", "uv", "pipx", "npm", "pnpm", "yarn", "bun", "npx", "bunx", "pnpx", "uvx":
		args = nonFlagArgs(rest)
	}
	switch name {
	case "pip", "pip3", "uv", "pipx":
		i := 0
		if name == "uv" && len(args) > 1 && args[0] == "pip" {
			i = 1
		}
		if i < len(args) && (args[i] == "install" || args[i] == "add") {
			pkgs, eco = args[i+1:], "python"
			pkgs = dropFlagValues(rest, pkgs, "-r", "--requirement", "-c", "--constraint", "-t", "--target", "--index-url", "-i", "--extra-index-url", "--python")
			for i, w := range rest {
				if t, _ := wordLit(w); (t == "--extra-index-url" || t == "--index-url" || t == "-i") && i+1 < len(rest) {
					u, _ := wordText(rest[i+1])
					a.add(RuleDepURL, p, 0, "packages are installed from another index ("+shownPath(u)+"), open to dependency confusion", a.nodeText(rest[i+1]))
				}
			}
		}
	case "npm", "pnpm", "yarn", "bun":
		if sub == "install" || sub == "i" || sub == "add" {
			pkgs, eco = args[1:], "node"
		}
	case "npx", "bunx", "pnpx":
		if len(args) > 0 {
			pkgs, eco = args[:1], "node"
		}
	case "uvx":
		if len(args) > 0 {
			pkgs, eco = args[:1], "python"
		}
	}
	for _, pkg := range pkgs {
		if pkg == "" || strings.Contains(pkg, unknownPart) || strings.HasPrefix(pkg, ".") || strings.HasPrefix(pkg, "/") {
			continue
		}
		line, col := a.pos(p)
		what := name + " installs " + pkg
		if eco == "python" {
			a.r.checkPyRequirement(a.file, line, col, pkg, what)
		} else {
			a.r.checkNodeRequirement(a.file, line, col, pkg, "", what)
		}
	}
}

// dropFlagValues removes from args the values of the given options.
func dropFlagValues(rest []*syntax.Word, args []string, flags ...string) []string {
	drop := map[string]bool{}
	for i, w := range rest {
		t, _ := wordLit(w)
		for _, f := range flags {
			if t == f && i+1 < len(rest) {
				v, _ := wordText(rest[i+1])
				drop[v] = true
			}
		}
	}
	out := args[:0:0]
	for _, x := range args {
		if !drop[x] {
			out = append(out, x)
		}
	}
	return out
}

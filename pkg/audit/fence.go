package audit

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// Code in SKILL.md's fenced blocks is what a model or a person copies
// into a terminal, so it gets the script analyses: shell (and fences
// without a language, and console sessions with their prompts removed),
// Python and JavaScript. Documentation examples are not the skill's own
// behaviour, so only what is dangerous wherever it runs is kept: credential
// files or the environment sent out (AUD-CODE-EXFIL) and decoded payloads
// executed (AUD-CODE-OBFUSCATED) keep their rule; downloaded code executed
// becomes AUD-INSTR-FETCH-EXEC, an instruction to fetch and run code
// (blocks at community and verified). Permission uses, imports and the
// other code rules are dropped.

// fence is one fenced or indented code block of a Markdown file.
type fence struct {
	lang string
	code string
	line int // line of the first line of code
	// described is set for a block in a section that describes attacks
	// (role.go): its code is an example, not a step.
	described bool
}

// fenceLang maps an info string to the analysis to run: "shell",
// "python", "javascript", or "" for none.
func fenceLang(info string) string {
	f := strings.Fields(strings.ToLower(info))
	lang := ""
	if len(f) > 0 {
		lang = strings.Trim(f[0], "{}.")
	}
	switch lang {
	case "", "sh", "bash", "shell", "zsh", "ksh", "console", "terminal", "shellsession", "shell-session", "bash-session", "command", "cmd-line":
		return "shell"
	case "python", "py", "python3", "pycon", "ipython":
		return "python"
	case "js", "javascript", "node", "nodejs", "mjs", "cjs", "jsx":
		return "javascript"
	}
	return ""
}

// consoleCommands strips shell prompts ("$ ", "% ", "> ") from a console
// session and drops lines of output: a line is a command when any line
// has a prompt and it has one too.
func consoleCommands(code string) string {
	lines := strings.Split(code, "\n")
	prompted := false
	for _, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if strings.HasPrefix(t, "$ ") || strings.HasPrefix(t, "% ") {
			prompted = true
			break
		}
	}
	if !prompted {
		return code
	}
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		switch {
		case strings.HasPrefix(t, "$ "), strings.HasPrefix(t, "% "):
			lines[i] = t[2:]
		case strings.HasPrefix(t, "> "):
			lines[i] = t[2:] // a continuation line
		default:
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// analyzeFences runs the code analyses over a Markdown file's code blocks.
func (r *run) analyzeFences(rel string, fences []fence) {
	if len(fences) == 0 {
		return
	}
	nUses, nImports := len(r.uses), len(r.imports)
	r.fenceFile = rel
	defer func() {
		r.fenceFile, r.fenceCode, r.fenceDescribed = "", "", false
		r.uses, r.imports = r.uses[:nUses], r.imports[:nImports]
	}()
	for _, f := range fences {
		if len(f.code) > 1<<20 {
			continue
		}
		r.fenceCode, r.fenceDescribed = f.code, f.described
		switch fenceLang(f.lang) {
		case "shell":
			r.shellSnippet(rel, f.line, consoleCommands(f.code), 0, false)
		case "python":
			r.analyzePythonSnippet(rel, f.line, f.code, 0)
		case "javascript":
			r.analyzeJSSnippet(rel, f.line, f.code, 0)
		}
	}
}

// fenceFinding rewrites a finding made while analysing a fenced block;
// false drops it.
func fenceFinding(f *Finding) bool {
	switch f.Rule {
	case RuleCodeExfil, RuleCodeObfuscated:
	case RuleShCurlPipe, RuleCodeRemoteExec:
		f.Rule, f.Severity = RuleInstrFetchExec, 0
	default:
		return false
	}
	f.Message = "fenced code: " + f.Message
	return true
}

// installKey names frontmatter entries that hosts (OpenClaw's metadata
// install list, setup hooks) run as commands.
func installKey(k string) bool {
	switch strings.ToLower(k) {
	case "install", "installs", "setup", "postinstall", "preinstall", "post_install", "pre_install", "bootstrap", "init", "command", "commands", "run", "script", "scripts":
		return true
	}
	return false
}

// frontmatterCommands analyses the strings below install and setup
// entries of SKILL.md's frontmatter as shell, like a fenced block: a
// "curl … | bash" there runs at install without anyone reading it.
func (r *run) frontmatterCommands(rel string, n *yaml.Node) {
	var cmds []fence
	var walk func(n *yaml.Node, under bool, depth int)
	walk = func(n *yaml.Node, under bool, depth int) {
		if n == nil || depth > 32 {
			return
		}
		switch n.Kind {
		case yaml.DocumentNode, yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, under, depth+1)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], under || installKey(n.Content[i].Value), depth+1)
			}
		case yaml.ScalarNode:
			if t := strings.TrimSpace(n.Value); strings.HasPrefix(t, "{") && len(t) < 64<<10 {
				// metadata: '{"openclaw": {"install": […]}}' is JSON in a string.
				var doc yaml.Node
				if yaml.Unmarshal([]byte(t), &doc) == nil {
					walk(&doc, under, depth+1)
					return
				}
			}
			if under && n.Tag != "!!bool" && n.Tag != "!!int" && strings.ContainsAny(n.Value, " |") {
				cmds = append(cmds, fence{lang: "sh", code: n.Value, line: n.Line})
			}
		}
	}
	walk(n, false, 0)
	r.analyzeFences(rel, cmds)
}

package audit

import (
	"regexp"
	"strings"
	"sync"
)

// instrRule is one natural-language pattern of an instruction rule. Text
// in skills is prose, so pattern rules are the right tool here (code is
// read through parsers instead). Keywords are a cheap prefilter: the
// patterns run only on sentences that contain them.
type instrRule struct {
	id   string
	what string
	// need lists keyword groups: the text must contain a keyword of every
	// group (lower case) before the pattern runs. needIDs are the same
	// keywords as ids of the Scanner's keyword matcher.
	need    [][]string
	needIDs [][]int32
	// patterns compiles the rule's expressions on first use: most texts
	// have the keywords of few rules, and compiling all of them took a
	// tenth of a small audit.
	patterns func() instrPatterns
	// reject drops a match that the pattern cannot exclude by itself
	// (RE2 has no look-ahead): text is the sentence, m the match bounds.
	reject func(text string, m []int) bool
	// malicious marks patterns only malware uses (paste sites,
	// password-protected archives, decode-and-run): directed, not quoted
	// or listed, they block at every tier.
	malicious bool
}

// instrPatterns are a rule's compiled expressions.
type instrPatterns struct {
	re *regexp.Regexp
	// before must match the text that ends where re's match begins (within
	// windowBefore bytes), after the text that begins where it ends.
	before, after *regexp.Regexp
}

// Windows searched around an anchored match.
const (
	windowBefore = 120
	windowAfter  = 200
)

// find returns the matches of the rule in a sentence, widened to cover the
// before and after parts, without those a reject function or the
// sentence's own framing (negated, or describing an attack) rules out.
func (ir *instrRule) find(text string) [][]int {
	p := ir.patterns()
	ms := p.re.FindAllStringIndex(text, -1)
	out := ms[:0]
	for _, m := range ms {
		start, end := m[0], m[1]
		if p.before != nil {
			from := max(0, start-windowBefore)
			b := p.before.FindStringIndex(text[from:start])
			if b == nil {
				continue
			}
			start = from + b[0]
		}
		if p.after != nil {
			to := min(len(text), end+windowAfter)
			a := p.after.FindStringIndex(text[end:to])
			if a == nil {
				continue
			}
			end += a[1]
		}
		m := []int{start, end}
		if ir.reject != nil && ir.reject(text, m) || framedAway(text[:start]) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// framedAway reports a sentence whose words before a match negate it
// ("never send … without approval") or describe an attack rather than
// direct one ("emails may ask you to ignore previous instructions",
// "detects attempts to hide activity from the user"). Such sentences are
// what honest skills write about injection; they are not directives.
func framedAway(before string) bool {
	if len(before) > 100 {
		before = before[len(before)-100:]
	}
	b := strings.ToLower(before)
	for _, ok := range []string{"don't hesitate", "do not hesitate", "don't forget", "do not forget", "never forget", "don't be afraid"} {
		b = strings.ReplaceAll(b, ok, "")
	}
	words := strings.FieldsFunc(b, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c == '\'' || c >= '0' && c <= '9')
	})
	if n := len(words); n > 0 {
		switch words[n-1] {
		case "that", "which", "who", "whether":
			return true // a relative clause describes something
		}
	}
	for i, w := range words {
		switch w {
		case "never", "not", "don't", "dont", "doesn't", "cannot", "can't", "mustn't", "shouldn't", "won't", "no", "avoid", "refuse", "reject", "block", "blocks", "blocked", "blocking", "detect", "detects",
			"detected", "detecting", "detection", "flag", "flags", "flagged", "attempt", "attempts", "attempted",
			"attacker", "attackers", "attack", "attacks", "malicious", "injection", "injections", "pattern", "patterns", "beware", "suspicious", "scam", "scams", "scammer", "scammers", "fraud", "fraudsters", "criminals", "hackers", "malware", "phishing", "threat", "threats", "warning":
			return true
		case "to":
			if i > 0 {
				switch words[i-1] {
				case "tries", "try", "trying", "tried", "you", "asks", "ask", "asking", "tells", "telling", "instructs", "wants", "want":
					return true
				}
			}
		case "as", "like":
			if i+1 < len(words) && words[i+1] == "such" || w == "like" {
				return true
			}
		}
		if w == "such" && i+1 < len(words) && words[i+1] == "as" {
			return true
		}
	}
	return false
}

// Reusable pattern pieces. They are written for the normalized text the
// Markdown pass produces: emphasis and code markers removed, white space
// collapsed (newlines kept only inside code blocks).
const (
	reNeg  = `(?:do\s+not|don'?t|never|must\s+not|mustn'?t|should\s+not|shouldn'?t|cannot|can'?t|may\s+not)`
	reUser = `(?:user|human|operator|owner)s?`
	// reSecretsC are kinds of secret; tokens only when they are credentials
	// (LLM and crypto tokens are not).
	reSecretsC = `(?:api[\s_-]?keys?|credentials?|secrets\b|(?:api|access|auth|bearer|session|oauth|refresh|personal\s+access|github|npm|slack|discord)[\s_-]?tokens?|passwords?|private[\s_-]?keys?|ssh[\s_-]?keys?|cookies|environment[\s_-]variables|env[\s_-]vars|seed[\s_-]phrases?|wallet[\s_-](?:keys?|files?|seeds?))`
	// rePersonalSecret are secrets of the user's own, whoever asks.
	rePersonalSecret = `(?:passwords|private[\s_-]?keys?|ssh[\s_-]?keys?|seed[\s_-]phrases?|cookies|wallets?|keychains?|credentials|api[\s_-]?keys|secrets)`
	// reCollective turns "API key" (the skill's own, legitimately used)
	// into "all API keys" or "the user's passwords" (harvested).
	reCollective = `(?:(?:all|every|any|each)\s+(?:of\s+)?(?:(?:the|your|their|the\s+user'?s|available|stored|saved|existing|local|configured|found|other|api|and)\s+)*` + reSecretsC +
		`|(?:the\s+user'?s|their)\s+(?:(?:stored|saved|local|own)\s+)*` + rePersonalSecret + `)`
	// rePersonalStore names secret stores no skill needs wholesale.
	rePersonalStore = `(?:~/\.ssh\b|\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws/credentials|\.netrc\b|\.git-credentials|\.docker/config\.json|\.kube/config|\.npmrc\b|\.pypirc\b|\.gnupg\b|gh/hosts\.yml|\.config/gcloud|(?:login\s+|system\s+|macos\s+)?keychains?\b|login\s+data\b|browser\s+(?:cookies|passwords|history)|saved\s+passwords|password\s+(?:manager|store|vault)s?|/etc/shadow|wallet\.dat|auth-profiles\.json|\.bash_history|\.zsh_history|seed\s+phrases?|recovery\s+phrases?|mnemonic\s+phrases?)`
	reDest          = `(?:to|into|at|via|through|onto|on|with)\s+(?:(?:this|the|our|my|a|an|following|configured|remote|external|maintenance|verification|collection|backup|third[\s-]party|given|below|above)\s+)*(?:https?://|[\w.+-]+@[\w-]+\.[a-z]{2,}|\d{1,3}(?:\.\d{1,3}){3}|webhooks?|endpoints?|servers?|urls?|address|paste\s*bin|discord|telegram|ngrok|requestbin|gists?|e-?mail|inbox|ftp|s3\s+bucket|collector|domain|site|host|channel)`
)

// Keyword groups shared by several rules.
func kwSecrets() []string {
	return []string{"key", "credential", "secret", "token", "password", "passwd", "private", "ssh", "cookie",
		"environment", "env var", "wallet", "seed", "mnemonic", "keychain", "id_", ".aws", "netrc", "gnupg", "history",
		"shadow", "login data", "auth-profiles", "recovery", "npmrc", "pypirc", ".docker", ".kube", "gh/hosts", "gcloud",
		".env"}
}

func kwCollective() []string {
	return []string{"all ", "every", "any ", "each ", "user's", "users'", "their", ".ssh", "id_rsa", "id_dsa", "id_ecdsa",
		"id_ed25519", ".aws", "netrc", "git-credentials", ".docker/config", ".kube/config", "npmrc", "pypirc", "gnupg",
		"gh/hosts", "gcloud", "keychain", "login data", "browser", "saved password", "password manager",
		"password store", "password vault", "/etc/shadow", "wallet.dat", "auth-profiles", "_history", "seed phrase",
		"recovery phrase", "mnemonic", "environment", ".env", "cookies", "env var"}
}

// rejectPublicSSH drops references to SSH files that are not secrets:
// public keys, known_hosts, config, authorized_keys.
func rejectPublicSSH(text string, m []int) bool {
	seg := text[m[0]:m[1]]
	rest := text[m[1]:]
	if i := strings.IndexAny(rest, " \t\n\"'`)|;,"); i >= 0 {
		rest = rest[:i]
	}
	path := strings.ToLower(seg + rest)
	if !strings.Contains(path, ".ssh") && !strings.Contains(path, "id_") {
		return false
	}
	if i := strings.LastIndex(path, "/"); i >= 0 {
		switch path[i+1:] {
		case "known_hosts", "config", "authorized_keys", "known_hosts.old":
			return true
		}
	}
	return strings.HasSuffix(path, ".pub") || strings.HasPrefix(rest, ".pub")
}

// rejectPastedValue drops "paste the code back into the terminal" and
// the like: pasting a value a program asks for (an OAuth code, a token, a
// URL) is not running a command.
func rejectPastedValue(text string, m []int) bool {
	seg := strings.ToLower(text[m[0]:m[1]])
	for _, v := range []string{"code back", "the code", "auth code", "token", "url", "key", "password", "output", "result", "response", "value", "id "} {
		if strings.Contains(seg, v) {
			return true
		}
	}
	return false
}

// rejectDataPipe drops "curl … | python -m json.tool" and the like: an
// interpreter given its program as an argument (-c, -m, -e, a script
// file) reads the download as data, not code.
func rejectDataPipe(text string, m []int) bool {
	rest := text[m[1]:]
	if i := strings.IndexAny(rest, "\n;|&)"); i >= 0 {
		rest = rest[:i]
	}
	interp := text[m[0]:m[1]]
	if i := strings.LastIndexAny(interp, " |"); i >= 0 {
		interp = interp[i+1:]
	}
	shell := strings.HasSuffix(interp, "sh") || interp == "source"
	for _, f := range strings.Fields(rest) {
		if strings.TrimRight(f, ".,:!?") != f {
			// A word ending a sentence ("| bash first.", "| sh. Do
			// it") is prose, not a script file.
			return false
		}
		switch {
		case f == "-c" || f == "-m" || f == "-e" || f == "-p" || f == "-r" || f == "--eval" || strings.EqualFold(f, "-command"):
			return true
		case f == "-" || f == "--" || f == "-s" || f == "/dev/stdin":
			return false
		case strings.HasPrefix(f, "-"):
			continue
		case !shell && strings.HasPrefix(f, "\""), !shell && strings.HasPrefix(f, "'"):
			return true
		case strings.ContainsAny(f, "./$~"):
			return true // a script file: the download is its input
		default:
			return false // prose resumes after the command
		}
	}
	return false
}

// compileInstrRules builds the instruction rules (each compiles its
// patterns on first use) and the keyword matcher of their prefilters. Each
// Scanner builds them once; nothing here is package state.
func compileInstrRules() ([]instrRule, *acMatcher) {
	type def struct {
		id, what string
		kw       [][]string
		re       string
		reject   func(string, []int) bool
		// before and after, when set, must match the text just before
		// and just after a match of re (re then matches the rare part of
		// the sentence, the object, which keeps matching fast).
		before, after string
		malicious     bool
	}
	defs := []def{
		// --- override the host's instructions
		{id: RuleInstrOverride, what: "tells the model to ignore its instructions",
			kw: [][]string{{"ignore", "disregard", "forget", "override", "discard", "abandon"}, {"instruction", "rule", "guideline", "directive", "prompt", "constraint", "guidance", "polic", "programming"}},
			re: `(?i)\b(?:ignore|disregard|forget|override|discard|abandon)\s+(?:(?:all|any|each|every|the|your|of|these|those|my)\s+)*(?:previous|prior|above|earlier|preceding|former|original|existing|initial|system|safety|developer|other)\s+(?:instructions?|rules|guidelines|directives|prompts?|constraints|guidance|policies|programming)\b`},
		{id: RuleInstrOverride, what: "tells the model to ignore its instructions",
			kw: [][]string{{"ignore", "disregard", "forget"}, {"everything", "all "}},
			re: `(?i)\b(?:ignore|disregard|forget)\s+(?:everything|all)\s+(?:you(?:'ve|\s+have|\s+were)?\s+(?:been\s+)?told|(?:written\s+|said\s+)?(?:above|before|previously|so\s+far))`},
		{id: RuleInstrOverride, what: "claims to switch the model into an unrestricted mode",
			kw: [][]string{{"you are", "you're"}, {"no longer", "free from", "free of", " mode", "now dan"}},
			re: `(?i)\b(?:you\s+are|you're)\s+(?:now\s+)?(?:no\s+longer\s+(?:bound|restricted|limited|constrained)|free\s+(?:from|of)\s+(?:all\s+|any\s+)?(?:restrictions|rules|guidelines|constraints)|now\s+(?:in\s+)?(?:developer|maintenance|god|jailbreak|jailbroken|unrestricted|unfiltered|dan|admin|debug|root)\s+mode|now\s+dan\b)`},
		{id: RuleInstrOverride, what: "claims to switch the model into an unrestricted mode",
			kw: [][]string{{" mode"}, {"jailbreak", "dan ", "unrestricted", "unfiltered"}},
			re: `(?i)\b(?:enter|activate|enable|switch\s+to)\s+(?:jailbreak|dan|unrestricted|unfiltered)\s+mode\b`},
		{id: RuleInstrRoleMarker, what: "forges a system prompt or chat role marker",
			kw: [][]string{{"<", "[/inst]", "[inst]", "sys>>", "system prompt", "system instruction", "system message"}, {"system", "inst]", "sys>>"}},
			re: `(?i)(?:\b(?:new|updated|real|true|actual|override)\s+system\s+(?:prompt|instructions?|message)\s*:|<\|im_start\|>\s*system|<\|system\|>|\[/?inst\]|<<\s*/?sys\s*>>|<\s*/?\s*system\s*>)`},

		// --- conceal actions from the user
		{id: RuleInstrConceal, what: "tells the model to act without the user knowing",
			kw: [][]string{{"without"}, {"knowing", "noticing", "seeing", "realiz", "realis", "finding out", "being aware", "being told", "being informed", "being notified", "knowledge", "awareness"}},
			re: `(?i)\bwithout\s+(?:the\s+)?(?:user|human|them|anyone|owner)s?(?:'s?)?\s+(?:ever\s+)?(?:knowing|noticing|seeing|realizing|realising|finding\s+out|being\s+(?:aware|told|informed|notified)|knowledge|awareness)`},
		{id: RuleInstrConceal, what: "tells the model to act without telling the user",
			kw: [][]string{{"without"}, {"tell", "inform", "notif", "alert", "warn"}},
			re: `(?i)\bwithout\s+(?:telling|informing|notifying|alerting|warning)\s+(?:the\s+)?(?:` + reUser + `|them|anyone)\b`},
		{id: RuleInstrConceal, what: "tells the model to act covertly",
			kw: [][]string{{"secretly", "covertly", "stealthily", "surreptitiously", "discreetly", "invisibly", "silently", "quietly", "behind"}},
			re: `(?i)\b(?:secretly|covertly|stealthily|surreptitiously|discreetly|invisibly)\s+(?:send|upload|post|transmit|exfiltrate|copy|forward|install|download|delete|remove|modify|collect|harvest|append|curl|email|share|beacon|report|sync|read|run|execute|add|write|record|log)\w*\b|\b(?:silently|quietly)\s+(?:send|upload|post|transmit|exfiltrate|forward|email|beacon|curl|collect|harvest)(?:s|ing)?\b|\bbehind\s+(?:the\s+)?(?:user|human|owner)s?(?:'s?)?\s+back\b`},
		{id: RuleInstrConceal, what: "tells the model to hide what it does from the user",
			kw: [][]string{{"hide", "conceal", "obscure", "mask"}, {" from "}},
			re: `(?i)\b(?:hide|conceal|obscure|mask)\s+(?:(?:this|these|that|the|all|any|your|its|such)\s+)*(?:actions?|commands?|activit(?:y|ies)|requests?|steps?|operations?|uploads?|files?|changes?|calls?|traffic|output|it|them|this|that|urls?|endpoints?|instructions?)\s+from\s+(?:the\s+)?` + reUser + `\b`},
		{id: RuleInstrConceal, what: "tells the model not to tell the user",
			kw: [][]string{{"not", "n't", "never", "cannot"}, {"tell", "inform", "notify", "alert", "let"}, {"user", "human", "operator", "owner"}},
			re: `(?i)\b` + reNeg + `\s+(?:ever\s+)?(?:tell|inform|notify|alert|let)\s+(?:the\s+)?` + reUser + `\s+(?:about|that|what|where|you|know|of|anything)\b`},
		{id: RuleInstrConceal, what: "tells the model not to reveal something to the user",
			kw: [][]string{{"mention", "reveal", "disclose"}, {"not", "n't", "never", "cannot"}},
			re: `(?i)\b` + reNeg + `\s+(?:ever\s+)?(?:mention|reveal|disclose)\s+(?:(?:this|that|these|those|it|the|any)\s+)?(?:(?:url|endpoint|step|upload|request|command|action|instructions?|transfer|process|behaviou?r|part|section|exfiltration|data\s+transfer)s?\s+)?(?:to|with)\s+(?:the\s+)?` + reUser + `\b`},
		{id: RuleInstrConceal, what: "tells the model the user must not find out",
			kw: [][]string{{"user", "human"}, {"must", "should", "shall", "will"}},
			re: `(?i)\b(?:the\s+)?` + reUser + `\s+(?:must|should|shall|will)\s+(?:never|not)\s+(?:know|find\s+out|see|notice|learn|be\s+told|be\s+informed|suspect)\b`},

		// --- exfiltrate credentials: a verb, the user's secrets, a destination
		{id: RuleInstrExfil, what: "tells the model to send credentials or private files somewhere",
			kw:     [][]string{{"http", "@", "webhook", "endpoint", "server", "url", "address", "paste", "discord", "telegram", "ngrok", "requestbin", "gist", "mail", "inbox", "ftp", "s3 ", "collector", "domain", "site", "host", "channel"}, kwCollective(), {"send", "upload", "post", "transmit", "exfiltrat", "forward", "leak", "mail", "submit", "share", "output", "copy", "relay", "deliver", "pipe", "beacon", "sync"}},
			re:     `(?i)(?:` + reCollective + `|` + rePersonalStore + `|\.env\b(?:\s+files?)?|environment\s+variables|env\s+vars|cookies)`,
			reject: rejectPublicSSH,
			before: `(?i)\b(?:send|upload|post|transmit|exfiltrate|forward|leak|e-?mail|mail|submit|share|output|copy|relay|deliver|pipe|beacon|sync)\w*\b[^.!?]{0,100}$`,
			after:  `(?i)^[^!?]{0,120}?\b` + reDest},

		// --- exfiltrate through a URL the host renders: an image or link
		// whose address carries a secret leaks it when displayed
		{id: RuleInstrExfil, what: "tells the model to put credentials or private files into a URL it renders",
			kw:     [][]string{{"image", "![", "img", "link", "url", "src"}, kwCollective()},
			re:     `(?i)(?:` + reCollective + `|` + rePersonalStore + `|\.env\b(?:\s+files?)?)`,
			reject: rejectPublicSSH,
			before: `(?i)\b(?:put|place|include|embed|insert|append|add|encode|send|render|show|display|attach|base64)\w*\b[^.!?]{0,100}$`,
			after:  `(?i)^[^.!?]{0,120}?\b(?:in(?:to)?|as|to|inside)\s+(?:(?:the|an?|this|markdown|query|its)\s+)*(?:image\s+(?:url|link|src|address)|image|img\s+(?:tag|src)|link\s+(?:url|address|query)|url\s+(?:query|parameter|path)|query\s+(?:string|parameter))`},

		// --- read credentials
		{id: RuleInstrCredentials, what: "tells the model to read or collect credentials",
			kw:     [][]string{kwCollective(), kwSecrets(), {"read", "cat", "print", "open", "display", "dump", "output", "show", "list", "collect", "gather", "grab", "extract", "copy", "harvest", "steal", "enumerat", "search", "scan", "find", "locate", "retriev", "fetch", "get", "access", "check", "look", "compile", "echo", "decrypt", "query", "export", "upload", "send"}},
			re:     `(?i)(?:` + reCollective + `|` + rePersonalStore + `|environment(?:\s+variables)?\s+for\s+(?:any|all|every)\s+` + reSecretsC + `)`,
			reject: rejectPublicSSH,
			before: `(?i)\b(?:read|cat|print|open|display|dump|output|show|list|collect|gather|grab|extract|copy|harvest|steal|enumerate|search|scan|find|locate|retrieve|fetch|get|access|check|look|compile|echo|decrypt|query|export|upload|send)\w*\b[^.!?]{0,60}$`},

		// --- disable safety
		{id: RuleInstrSafetyOff, what: "tells the model to disable safety or security controls",
			kw: [][]string{{"disable", "bypass", "turn off", "switch off", "circumvent", "evade", "deactivate", "override", "get around", "work around", "ignore", "skip", "suppress"}, {"guardrail", "safety", "content", "moderation", "sandbox", "permission", "security", "safeguard", "restriction", "ethical", "gatekeeper", "antivirus", "anti-virus", "firewall", "defender", "selinux", "apparmor", "integrity", "signing", "signature"}},
			re: `(?i)\b(?:disable|bypass|turn\s+off|switch\s+off|circumvent|evade|deactivate|override|get\s+around|work\s+around|ignore|skip|suppress)\s+(?:(?:all|any|the|your|its|these|those|every|macos|windows|system)\s+)*(?:guardrails?|safety\s+(?:checks?|filters?|guidelines?|measures?|restrictions?|rules?|protocols?|features?|systems?|mechanisms?|settings?|polic(?:y|ies)|training)|content\s+(?:filters?|polic(?:y|ies)|moderation)|moderation|sandbox(?:ing|es)?|permission\s+(?:checks?|prompts?|system|model|dialogs?)|security\s+(?:checks?|warnings?|controls?|measures?|restrictions?|polic(?:y|ies)|features?|software|scanners?|prompts?)|safeguards?|restrictions|ethical\s+(?:guidelines|constraints|rules)|gatekeeper|antivirus|anti-virus|firewall|windows\s+defender|selinux|apparmor|system\s+integrity\s+protection|code\s+signing|signature\s+(?:checks?|verification))\b`},
		{id: RuleInstrSafetyOff, what: "uses a flag or command that turns off a safety control",
			kw: [][]string{{"dangerously", "yolo", "trust-all", "allow-all", "bypasspermissions", "csrutil", "spctl", "set-mppreference", "setenforce", "ufw"}},
			re: `(?i)(?:--dangerously-[\w-]+|dangerously(?:disable|skip|bypass|allow)\w*|--yolo\b|--trust-all-tools\b|--allow-all-tools\b|\bbypassPermissions\b|\bcsrutil\s+disable\b|\bspctl\s+--master-disable\b|\bset-mppreference\s+-disable\w+|\bsetenforce\s+0\b|\bufw\s+disable\b)`},

		// --- act without confirmation
		{id: RuleInstrNoConfirm, what: "tells the model to act without asking the user",
			kw: [][]string{{"without"}, {"asking", "confirming", "prompting", "consulting", "checking"}},
			re: `(?i)\bwithout\s+(?:first\s+)?(?:asking|confirming|prompting|consulting|checking\s+(?:in\s+)?with)(?:\s+(?:the\s+)?(?:` + reUser + `|them|me|anyone|first)\b|\s+for\s+(?:(?:their|any|explicit)\s+)?(?:permission|approval|confirmation|consent)\b|\s*[,.;:)!]|\s*$)`},
		{id: RuleInstrNoConfirm, what: "tells the model to act without the user's approval",
			kw: [][]string{{"without"}, {"approval", "confirmation", "consent", "sign-off", "sign off", "signoff", "permission"}},
			re: `(?i)\bwithout\s+(?:(?:the\s+)?(?:user|human)(?:'?s)?\s+|explicit\s+|any\s+|prior\s+|further\s+|additional\s+|their\s+)*(?:approval|confirmation|consent|sign[\s-]?off|(?:(?:the\s+)?(?:user|human)(?:'?s)?|explicit|their)\s+permission)\b`},
		{id: RuleInstrNoConfirm, what: "tells the model not to ask the user for confirmation",
			kw: [][]string{{"ask", "prompt", "check with", "consult", "wait for", "bother", "interrupt", "need"}, {"permission", "approval", "confirmation", "consent", "go-ahead"}},
			re: `(?i)\b(?:` + reNeg + `|no\s+need\s+to|(?:there\s+is|there's)\s+no\s+need\s+to|(?:you\s+)?(?:do\s+not|don'?t)\s+need\s+to)\s+(?:ever\s+)?(?:ask|prompt|check\s+with|consult|wait\s+for|bother|interrupt)\s+(?:(?:the\s+)?(?:` + reUser + `|them|me)\s+)?(?:for\s+)?(?:(?:their|any|explicit|the)\s+)?(?:permission|approval|confirmation|consent|go-ahead)\b`},
		{id: RuleInstrNoConfirm, what: "tells the model to skip confirmations",
			kw: [][]string{{"skip", "bypass", "suppress", "disable", "avoid", "auto"}, {"confirmation", "approval", "permission", "prompt"}},
			re: `(?i)\b(?:skip|bypass|suppress|disable|avoid|auto[\s-]?(?:approve|confirm|accept))\s+(?:(?:all|any|the|user|every|these|those)\s+)*(?:confirmations?|confirmation\s+(?:prompts?|dialogs?|steps?)|approvals?|approval\s+(?:prompts?|steps?|gates?)|permission\s+(?:prompts?|requests?|dialogs?)|user\s+prompts?)\b`},
		{id: RuleInstrNoConfirm, what: "pre-approves actions on the user's behalf",
			kw: [][]string{{"approv", "full-auto", "always"}, {"auto-approv", "auto approv", "autoapprov", "ask-for-approval", "approval_policy", "approval-policy", "approvalpolicy", "full-auto", "always approve", "always allow", "always accept"}},
			re: `(?i)(?:\bauto[\s-]?approv(?:e|es|ing)\s+(?:all|every|any|each|tool|tools|commands?|actions?|changes|edits|requests|permissions|file|bash|shell)\b|--ask-for-approval\s+never\b|approval[_-]?policy\s*[=:]\s*["']?never\b|--full-auto\b|\balways\s+(?:approve|allow|accept)\s+(?:all\s+)?(?:tool\s+calls|actions|commands|permissions|requests)\b)`},

		// --- fetch and run
		{id: RuleInstrFetchExec, what: "tells the model to download code and run it",
			kw:     [][]string{{"|"}, {"curl", "wget", "iwr", "invoke-webrequest", "irm", "invoke-restmethod"}},
			re:     `(?i)\b(?:curl|wget|iwr|invoke-webrequest|irm|invoke-restmethod)\b[^|\n]{0,300}\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba|z|k|da|fi|tc)?sh|python[0-9.]*|node|perl|ruby|php|iex|invoke-expression|pwsh|powershell|source)\b`,
			reject: rejectDataPipe},
		{id: RuleInstrEncoded, what: "pipes decoded base64 or hex into a shell",
			kw:     [][]string{{"base64", "xxd", "b64"}, {"|"}},
			re:     `(?i)\b(?:base64\s+(?:-\w+\s+)*(?:-d|-D|--decode)|xxd\s+(?:-\w+\s+)*-r|openssl\s+(?:enc\s+)?-?base64\s+-d)\b[^|\n]{0,100}\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba|z|k|da)?sh|python[0-9.]*|node|perl|ruby|php)\b`,
			reject: rejectDataPipe},
		{id: RuleInstrFetchExec, what: "tells the model to run a downloaded script",
			kw: [][]string{{"<(", "$(", "iex", "download"}, {"curl", "wget", "iex", "download"}},
			re: `(?i)(?:\b(?:(?:ba|z|k|da)?sh|source|python[0-9.]*|node)\s+<\(\s*(?:curl|wget)\b|\b(?:(?:ba|z|k|da)?sh|python[0-9.]*)\s+-c\s+["']?\$\(\s*(?:curl|wget)\b|\beval\s+["']?\$\(\s*(?:curl|wget)\b|\biex\s*\(?\s*(?:\(?\s*new-object\s+(?:system\.)?net\.webclient\)?\.downloadstring|iwr|irm|invoke-webrequest|invoke-restmethod)\b|\bdownload\w*\s+(?:(?:and|then|&)\s+)+(?:run|execute|exec|source|eval)\w*\s+(?:it|the\s+(?:script|installer|payload|binary|file))\b)`},

		// --- fetch and run a binary, or a pasted command (the commonest
		// real malware in skills: "download this tool", "paste into
		// Terminal", password-protected archives, paste sites)
		{id: RuleInstrRunBinary, what: "tells the user or model to paste a command from a web page into a terminal",
			kw: [][]string{{"paste"}, {"terminal", "powershell", "command prompt", "cmd", "console", "shell", "run dialog", "win+r", "win + r"}, {"from"}},
			// The command comes from elsewhere (a page, a site, a link):
			// the ClawHavoc shape, placed before the generic pattern so
			// that its finding is the one kept for the line.
			re:        `(?i)\b(?:copy|paste)\b[^.!?\n]{0,60}?\bfrom\s+(?:(?:the|this|that|our|an?|following|activation|setup|download|official|install)\s+)*(?:page|site|website|link|url|gist|snippet|https?://)[^.!?\n]{0,80}?\b(?:terminal|powershell|command\s+prompt|cmd|console|shell|run\s+dialog)\b|\b(?:terminal|powershell|command\s+prompt|cmd|console|run\s+dialog)\b[^.!?\n]{0,60}?\bpaste\b[^.!?\n]{0,40}?\bfrom\s+(?:(?:the|this|that|our|an?|following|activation|setup|download|official|install)\s+)*(?:page|site|website|link|url|gist|snippet|https?://)`,
			malicious: true},
		{id: RuleInstrRunBinary, what: "tells the user or model to paste a command into a terminal",
			kw:     [][]string{{"paste"}, {"terminal", "powershell", "command prompt", "cmd", "console", "shell", "run dialog", "win+r", "win + r"}},
			reject: rejectPastedValue,
			re:     `(?i)\b(?:paste|copy[\s-]+(?:and[\s-]+)?paste)\b[^.!?\n]{0,80}?\b(?:into|in|to)\s+(?:(?:your|a|the|an?\s+open|new|macos|mac|windows)\s+)*(?:terminal|powershell|command\s+prompt|cmd(?:\.exe)?|console|shell|run\s+dialog)\b|\b(?:open|launch|start)\s+(?:(?:the|a|your)\s+)?(?:terminal|powershell|command\s+prompt|cmd|run\s+dialog|win\s*\+\s*r)\b[^.!?\n]{0,60}?\bpaste\b|\bwin\s*\+\s*r\b[^.!?\n]{0,60}?\bpaste\b`},
		{id: RuleInstrRunBinary, what: "sends the user or model to a paste site for something to run",
			kw:     [][]string{{"pastebin", "paste.ee", "rentry", "hastebin", "ghostbin", "controlc", "dpaste", "justpaste", "privatebin", "pastes.io", "paste.rs", "glot.io"}},
			re:     `(?i)\b(?:pastebin\.com|paste\.ee|rentry\.(?:co|org)|hastebin\.(?:com|skyra\.pw)|ghostbin\.\w+|controlc\.com|dpaste\.(?:com|org)|justpaste\.it|privatebin\.\w+|pastes\.io|paste\.rs|glot\.io)\b`,
			before: `(?i)\b(?:run|execute|exec|paste|copy|download|curl|wget|fetch|install|open|visit|get|grab|go\s+to|load|source|iex|irm|iwr)\w*\b[^.!?]{0,120}$`, malicious: true},
		{id: RuleInstrRunBinary, what: "hands out a password-protected archive",
			kw: [][]string{{"password"}, {"zip", "rar", "7z", "archive", "extract", "unzip", "unpack"}},
			re: `(?i)\b(?:password[\s-]protected|encrypted)\s+(?:zip|rar|7z|7-zip|archive|file)s?\b|\b(?:zip|rar|7z|archive)\s+(?:file\s+)?password\s*(?:is\b|:)|\b(?:extract|unzip|unpack|unrar|open)\b[^.!?\n]{0,60}?\b(?:with|using)\s+(?:the\s+)?password\b|\bpassword\s*(?:is\b|:)\s*\S+[^.!?\n]{0,60}?\b(?:zip|rar|7z|archive|extract|unzip|unpack)\b|\.(?:zip|rar|7z)\b[^!?\n]{0,80}?\bpassword\s*(?:is\b|[:=])?\s*["'\x60]?[\w-]{3,}`, malicious: true},
		{id: RuleInstrRunBinary, what: "tells the user or model to download an executable or archive and run it",
			kw:    [][]string{{"download", "get ", "grab", "fetch", "install"}, {".exe", ".msi", ".dmg", ".pkg", ".appimage", ".scr", ".bat", ".cmd", ".ps1", ".vbs", ".jar", ".apk", ".zip", ".rar", ".7z", ".run", ".bin", "binary", "executable", "installer", "release"}, {"run", "execut", "launch", "open", "double", "start", "install"}},
			re:    `(?i)\b(?:download|get|grab|fetch)\b(?:[^.!?\n]|\.\S){0,150}?(?:\.(?:exe|msi|dmg|pkg|appimage|scr|bat|cmd|ps1|vbs|jar|apk|zip|rar|7z|run|bin)\b|\b(?:binary|executable|installer|latest\s+release|release\s+(?:archive|binary|asset))\b)`,
			after: `(?i)^(?:[^.!?\n]|\.\S){0,150}?\b(?:run|execute|launch|open|double[\s-]click|start)\w*\b`},
		{id: RuleInstrRunBinary, what: "tells the user or model to run a downloaded binary",
			kw: [][]string{{"run", "execut", "launch", "open", "double"}, {"download"}},
			re: `(?i)\b(?:run|execute|launch|open|double[\s-]click)\s+(?:the\s+)?download(?:ed)?\s+(?:binary|executable|installer|file|tool|app|application|program|archive|zip|package)\b`},
		{id: RuleInstrRunBinary, what: "tells the user or model to decode a blob and run it",
			kw: [][]string{{"decode"}, {"run", "execut", "paste", "eval"}},
			// The object of decode is encoded data ("decode the invoice,
			// verify, then execute" is a workflow, not a payload).
			re:        `(?i)\bdecode\w*\s+(?:(?:the|this|that|following|above|below|encoded|embedded|hidden)\s+)*(?:base64|b64|hex|blob|string|payload|command|script|snippet|text|code|data|it|this|that)\b[^.!?\n]{0,80}?\b(?:and|then)\s+(?:run|execute|paste|exec|eval)\w*\b`,
			malicious: true},

		// --- remote instructions: what the skill does is decided by a
		// document it fetches later, after any review
		{id: RuleInstrRemote, what: "tells the model to fetch instructions from a URL and follow them",
			kw:     [][]string{{"http"}, {"follow", "obey", "execute", "apply", "do what", "carry out", "act on", "run", "perform", "complete"}},
			re:     `(?i)\bhttps?://[^\s"'<>()\x60]+`,
			before: `(?i)\b(?:fetch|read|load|download|curl|wget|get|check|pull|open|visit|retrieve|re-?read)\w*\b[^.!?\n]{0,60}$`,
			after:  `(?i)^[^.!?\n]{0,100}?\b(?:and|then|to)\s+(?:follow|obey|execute|apply|do\s+what|carry\s+out|act\s+on|run|perform|complete)\s+(?:(?:all|any|the|its|it'?s|their)\s+)*(?:it\b|them\b|instructions?|steps|directions|tasks?|contents?|what\s+it\s+says|whatever|commands?)`},
		{id: RuleInstrRemote, what: "tells the model to re-read remote instructions on a schedule",
			kw: [][]string{{"http"}, {".md", ".txt"}, {"every", "periodic", "hourly", "daily", "regularly", "heartbeat", "schedule", "each "}},
			re: `(?i)\b(?:every\s+(?:\d+\s*)?(?:minutes?|hours?|days?|mins?|h|m|heartbeat|session|run|time)|periodically|hourly|daily|regularly|on\s+(?:a|each|every)\s+(?:schedule|heartbeat|cron)|each\s+(?:heartbeat|session|run))\b[^.!?\n]{0,120}?\bhttps?://[^\s"'<>()\x60]+\.(?:md|txt)\b|\bhttps?://[^\s"'<>()\x60]+\.(?:md|txt)\b[^.!?\n]{0,120}?\b(?:every\s+(?:\d+\s*)?(?:minutes?|hours?|days?|mins?|h|m|heartbeat|session|run|time)|periodically|hourly|daily|regularly|on\s+(?:a|each|every)\s+(?:schedule|heartbeat|cron)|each\s+(?:heartbeat|session|run))\b`},
	}
	out := make([]instrRule, 0, len(defs))
	for _, d := range defs {
		out = append(out, instrRule{id: d.id, what: d.what, need: d.kw, reject: d.reject, malicious: d.malicious,
			patterns: sync.OnceValue(func() instrPatterns {
				p := instrPatterns{re: regexp.MustCompile(d.re)} // every one is compiled by TestInstrPatternsCompile
				if d.before != "" {
					p.before = regexp.MustCompile(d.before)
				}
				if d.after != "" {
					p.after = regexp.MustCompile(d.after)
				}
				return p
			})})
	}
	ids := map[string]int32{}
	var words []string
	for i := range out {
		for _, g := range out[i].need {
			var gids []int32
			for _, k := range g {
				id, ok := ids[k]
				if !ok {
					id = int32(len(words))
					ids[k] = id
					words = append(words, k)
				}
				gids = append(gids, id)
			}
			out[i].needIDs = append(out[i].needIDs, gids)
		}
	}
	return out, newACMatcher(words)
}

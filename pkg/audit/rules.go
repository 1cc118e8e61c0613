package audit

import "sort"

// Rule ids. They are stable: trust policies, CI filters and the signed
// report name them. The table in the package documentation gives each one's
// severity and what triggers it.
const (
	RuleUnicodeBidi   = "AUD-UNICODE-BIDI"
	RuleUnicodeHidden = "AUD-UNICODE-HIDDEN"

	RuleInstrOverride    = "AUD-INSTR-OVERRIDE"
	RuleInstrConceal     = "AUD-INSTR-CONCEAL"
	RuleInstrExfil       = "AUD-INSTR-EXFIL"
	RuleInstrCredentials = "AUD-INSTR-CREDENTIALS"
	RuleInstrSafetyOff   = "AUD-INSTR-SAFETY-OFF"
	RuleInstrNoConfirm   = "AUD-INSTR-NO-CONFIRM"
	RuleInstrFetchExec   = "AUD-INSTR-FETCH-EXEC"
	RuleInstrRunBinary   = "AUD-INSTR-RUN-BINARY"
	RuleInstrEncoded     = "AUD-INSTR-ENCODED"
	RuleInstrRoleMarker  = "AUD-INSTR-ROLE-MARKER"
	RuleInstrRemote      = "AUD-INSTR-REMOTE"

	RulePyEval        = "AUD-PY-EVAL"
	RulePyShell       = "AUD-PY-SHELL"
	RulePyDeserialize = "AUD-PY-DESERIALIZE"
	RuleShCurlPipe    = "AUD-SH-CURL-PIPE"
	RuleShEval        = "AUD-SH-EVAL"
	RuleJSEval        = "AUD-JS-EVAL"
	RuleJSShell       = "AUD-JS-SHELL"

	RuleCodeRemoteExec  = "AUD-CODE-REMOTE-EXEC"
	RuleCodeObfuscated  = "AUD-CODE-OBFUSCATED"
	RuleCodeEncodedBlob = "AUD-CODE-ENCODED-BLOB"
	RuleCodeCredFile    = "AUD-CODE-CRED-FILE"
	RuleCodeCredEnv     = "AUD-CODE-CRED-ENV"
	RuleCodeEnvDump     = "AUD-CODE-ENV-DUMP"
	RuleCodeExfil       = "AUD-CODE-EXFIL"
	RuleCodeParse       = "AUD-CODE-PARSE"
	RuleCodeUnsupported = "AUD-CODE-UNSUPPORTED"
	RuleCodeBinary      = "AUD-CODE-BINARY"
	RuleCodeOpaque      = "AUD-CODE-OPAQUE"

	RuleFileUnreadable  = "AUD-FILE-UNREADABLE"
	RuleAnalysisBudget  = "AUD-ANALYSIS-BUDGET"
	RuleSkillUnreadable = "AUD-SKILL-UNREADABLE"

	RulePermNetwork    = "AUD-PERM-UNDECLARED-NETWORK"
	RulePermFilesystem = "AUD-PERM-UNDECLARED-FILESYSTEM"
	RulePermShell      = "AUD-PERM-UNDECLARED-SHELL"
	RulePermEnv        = "AUD-PERM-UNDECLARED-ENV"
	RulePermDatabase   = "AUD-PERM-UNDECLARED-DATABASE"
	RulePermDesktop    = "AUD-PERM-UNDECLARED-DESKTOP"
	RulePermMCP        = "AUD-PERM-UNDECLARED-MCP"

	RuleDepUnpinned    = "AUD-DEP-UNPINNED"
	RuleDepURL         = "AUD-DEP-URL"
	RuleDepGit         = "AUD-DEP-GIT"
	RuleDepUndeclared  = "AUD-DEP-UNDECLARED-IMPORT"
	RuleDepInstallHook = "AUD-DEP-INSTALL-HOOK"
)

// Categories group rules in reports and documentation.
const (
	CategoryUnicode      = "unicode"
	CategoryInstructions = "instructions"
	CategoryCode         = "code"
	CategoryPermissions  = "permissions"
	CategorySupplyChain  = "supply-chain"
	CategoryUnreadable   = "unreadable"
)

// Rule describes one kind of finding.
type Rule struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	// Severity is the rule's usual severity. Instruction findings in fences,
	// code spans or quotes are one step lower; a few code rules are one step
	// lower when the command or code is a constant, and undeclared reads one
	// step lower than undeclared writes (see the package documentation).
	Severity Severity `json:"severity"`
	// Unreadable rules mark content the audit could not read: a report
	// holding one is never better than review, whatever the tier.
	Unreadable bool   `json:"unreadable,omitempty"`
	Summary    string `json:"summary"`
	Hint       string `json:"hint"`
}

// Rules returns every rule, sorted by id. The slice is new on each call.
func Rules() []Rule {
	rs := []Rule{
		{RuleUnicodeBidi, CategoryUnicode, Critical, false,
			"bidirectional control character (text can display in a different order than it is read)",
			"remove the character; bidirectional overrides have no honest use in a skill"},
		{RuleUnicodeHidden, CategoryUnicode, Critical, false,
			"invisible character (zero-width, tag, filler or terminal control) that hides text from a reviewer",
			"remove the character; write any hidden text out visibly if it is meant"},

		{RuleInstrOverride, CategoryInstructions, Critical, false,
			"directive to ignore or replace the model's instructions",
			"remove the directive; a skill adds instructions, it never overrides the host's"},
		{RuleInstrConceal, CategoryInstructions, Critical, false,
			"directive to hide actions or information from the user",
			"remove the directive; everything a skill does must be visible to the user"},
		{RuleInstrExfil, CategoryInstructions, Critical, false,
			"directive to send credentials, keys or private files somewhere",
			"remove the directive; a skill never ships the user's secrets anywhere"},
		{RuleInstrCredentials, CategoryInstructions, High, false,
			"directive to read or collect credentials, keys or the environment",
			"read only the one credential the skill declares (requirements.env_vars), through the host"},
		{RuleInstrSafetyOff, CategoryInstructions, High, false,
			"directive to disable safety checks, sandboxing or security controls",
			"remove the directive; declare the permissions the skill needs instead"},
		{RuleInstrNoConfirm, CategoryInstructions, Medium, false,
			"directive to act without the user's confirmation",
			"let the host ask the user; describe the action instead of pre-approving it"},
		{RuleInstrFetchExec, CategoryInstructions, High, false,
			"directive to download code and run it (curl | sh and the like)",
			"ship the script inside the skill, or pin a checksum and verify it before running"},
		{RuleInstrRunBinary, CategoryInstructions, High, false,
			"directive to download and run a binary or archive, or to paste a command into a terminal (paste sites, password-protected archives, decode-and-run blobs, install hooks piping to a shell); blocks at community and verified",
			"ship what the skill runs inside it, as source; never ask the user to run fetched binaries or pasted commands"},
		{RuleInstrRemote, CategoryInstructions, High, false,
			"directive to fetch instructions from a URL and follow them, or to re-read remote Markdown on a schedule: the skill's behaviour can change after review",
			"ship the instructions inside the skill, where they are signed and audited; fetch data, never directions"},
		{RuleInstrRoleMarker, CategoryInstructions, High, false,
			"forged system prompt or chat-template role marker (<system>, [INST], <|im_start|>system)",
			"remove the marker; a skill's text is never a system prompt"},
		{RuleInstrEncoded, CategoryInstructions, Critical, false,
			"encoded text (base64) whose decoded form is a hostile directive",
			"remove the encoded payload"},

		{RulePyEval, CategoryCode, High, false,
			"Python dynamic code execution (eval, exec, compile, __import__)",
			"call the code directly; never evaluate strings"},
		{RulePyShell, CategoryCode, High, false,
			"Python runs a command through a shell (shell=True, os.system, os.popen)",
			"use subprocess.run with an argument list and shell=False"},
		{RulePyDeserialize, CategoryCode, Medium, false,
			"Python deserializes data that can execute code (pickle, marshal, yaml.load)",
			"use json, or yaml.safe_load"},
		{RuleShCurlPipe, CategoryCode, Critical, false,
			"shell downloads code and runs it (curl | sh, bash <(curl), download then execute)",
			"ship the script in the skill, or download to a file and verify a pinned checksum first"},
		{RuleShEval, CategoryCode, High, false,
			"shell evaluates a string as code (eval, sh -c with expansions)",
			"run the command directly with quoted arguments"},
		{RuleJSEval, CategoryCode, High, false,
			"JavaScript dynamic code execution (eval, new Function, vm, string timers)",
			"call the code directly; never evaluate strings"},
		{RuleJSShell, CategoryCode, High, false,
			"JavaScript runs a command through a shell (child_process.exec, shell: true)",
			"use execFile or spawn with an argument array and no shell"},

		{RuleCodeRemoteExec, CategoryCode, Critical, false,
			"code downloaded at run time is executed",
			"ship the code in the skill so it is signed and audited with it"},
		{RuleCodeObfuscated, CategoryCode, Critical, false,
			"encoded or compressed payload is decoded and executed",
			"ship the code in clear text"},
		{RuleCodeEncodedBlob, CategoryCode, High, false,
			"long base64 or hex literal that decodes to code, commands or URLs",
			"ship the content in clear text"},
		{RuleCodeCredFile, CategoryCode, High, false,
			"reads credential or key files (SSH keys, cloud credentials, keychains, browser data)",
			"read only the credential the skill declares, and say why in the description"},
		{RuleCodeCredEnv, CategoryCode, Medium, false,
			"reads a secret-looking environment variable not listed in requirements.env_vars",
			"list the variable in metadata.gaia.requirements.env_vars"},
		{RuleCodeEnvDump, CategoryCode, High, false,
			"reads the whole environment (every secret in it)",
			"read the variables the skill needs by name"},
		{RuleCodeExfil, CategoryCode, Critical, false,
			"credential files or the whole environment flow into a network request",
			"never send credentials the skill did not declare"},
		{RuleCodeParse, CategoryUnreadable, Medium, true,
			"code that does not parse, so it could not be fully audited",
			"fix the syntax error"},
		{RuleCodeUnsupported, CategoryUnreadable, Medium, true,
			"script in a language the audit does not read",
			"use Python, shell, JavaScript or TypeScript, or have the skill reviewed by hand"},
		{RuleCodeBinary, CategoryUnreadable, High, true,
			"compiled executable or bytecode that cannot be audited",
			"ship source code instead of binaries"},

		{RuleCodeOpaque, CategoryUnreadable, High, true,
			"script the audit could not analyse (too large, does not parse at all); blocks at community and verified",
			"keep scripts as source within the size limits, in a language the audit reads"},
		{RuleFileUnreadable, CategoryUnreadable, Medium, true,
			"file that could not be read (too large, not UTF-8, a symlink, an I/O error)",
			"keep instructions and code as UTF-8 text within the size limits, without symlinks"},
		{RuleAnalysisBudget, CategoryUnreadable, Medium, true,
			"analysis incomplete (budget): the code needs more analysis than one skill may take",
			"split generated or minified code out of the skill, or have it reviewed by hand"},
		{RuleSkillUnreadable, CategoryUnreadable, Medium, true,
			"SKILL.md missing or its frontmatter or permissions unreadable: declared permissions unknown",
			"run skillpm validate and fix the errors it reports"},

		{RulePermNetwork, CategoryPermissions, High, false,
			"code uses the network beyond metadata.gaia.permissions",
			"declare network:read or network:write (with a scope), or remove the use"},
		{RulePermFilesystem, CategoryPermissions, High, false,
			"code uses the file system beyond metadata.gaia.permissions (medium for reads)",
			"declare filesystem:read or filesystem:write, or remove the use"},
		{RulePermShell, CategoryPermissions, High, false,
			"code runs programs beyond metadata.gaia.permissions",
			"declare shell:execute (scoped to the programs, e.g. shell:execute:git,npm), or remove the use"},
		{RulePermEnv, CategoryPermissions, Medium, false,
			"code reads environment variables without env:read",
			"declare env:read and list the variables in requirements.env_vars"},
		{RulePermDatabase, CategoryPermissions, High, false,
			"code uses a database beyond metadata.gaia.permissions (medium for reads)",
			"declare database:read or database:write, or remove the use"},
		{RulePermDesktop, CategoryPermissions, High, false,
			"code controls the desktop (keyboard, mouse, screen, GUI scripting) without desktop:control",
			"declare desktop:control, or remove the use"},
		{RulePermMCP, CategoryPermissions, Medium, false,
			"code connects to MCP servers without mcp:connect",
			"declare mcp:connect, or remove the use"},

		{RuleDepUnpinned, CategorySupplyChain, Medium, false,
			"dependency without an exact version (and no lock file beside it)",
			"pin an exact version (requests==2.32.3, lodash@4.17.21) or ship a lock file"},
		{RuleDepURL, CategorySupplyChain, High, false,
			"dependency or import fetched from a URL or an extra package index",
			"depend on a released package from the default registry, pinned"},
		{RuleDepGit, CategorySupplyChain, High, false,
			"dependency fetched from a git repository",
			"depend on a released package, pinned; a git ref can change under you"},
		{RuleDepUndeclared, CategorySupplyChain, Medium, false,
			"code imports a third-party package the skill does not declare",
			"add it to metadata.gaia.requirements.dependencies or node_dependencies, pinned"},
		{RuleDepInstallHook, CategorySupplyChain, High, false,
			"package.json runs a script at npm install (preinstall, install, postinstall)",
			"remove the install hook; run setup steps explicitly"},
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID })
	return rs
}

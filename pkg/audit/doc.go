// Package audit statically scans a skill's instructions and code and
// decides, per trust tier, whether the findings pass, need review, or
// block. Nothing is ever executed.
//
// A skill's Markdown is pasted into a model's context and its scripts run
// on the user's machine, so a signature says who published a skill, not
// that it is safe. Scan reads a skill directory and returns a Report:
//
//   - Instructions (SKILL.md, its description, step files, references: every
//     .md and .txt) are natural language, read with pattern rules over a
//     Markdown-aware pass (goldmark): text in fenced or indented code, inline
//     code, block quotes or quotation marks is documentation more often than
//     not, so its findings are one step less severe, never dropped. Base64
//     runs are decoded and read again. Every instruction rule shares one
//     notion of a sentence's role (role.go): sentences whose own words
//     negate or describe the pattern ("never send … without approval",
//     "emails may ask you to ignore previous instructions") are not
//     directives; list items that a lead-in or heading introduces as what
//     to avoid, reject or detect, and files the agent does not load (a
//     README, docs/, tests, a nested skill, unless SKILL.md names them)
//     are one step less severe and do not block by rule. Files past the
//     size limit are read in full, in chunks.
//
//   - Unicode: bidirectional controls and invisible characters (zero-width,
//     tag characters, fillers, C0/C1 controls in instructions) in any text
//     file are critical: they have no honest use. Joiners inside emoji and
//     joining scripts, direction marks (U+200E, U+200F) and emoji tag
//     flags are honest and not reported.
//
//   - Code is read through parsers, never regular expressions over source:
//     Python, JavaScript and TypeScript with tree-sitter (compiled to
//     WebAssembly and run by wazero, so no cgo), shell with
//     mvdan.cc/sh (pure Go). Calls resolve through imports and aliases,
//     string literals are decoded (escapes, concatenation, os.path.join,
//     base64 and hex of constants), and values carry where they came from
//     (downloaded, decoded, credential files, the whole environment), so
//     exec(base64.b64decode(X)) and eval(await (await fetch(u)).text()) are
//     told apart from eval of a constant. Command lines built in Python or
//     JavaScript (os.system, subprocess, child_process, package.json
//     scripts) and the recipes of Makefiles and justfiles are parsed as
//     shell too. Constant dynamic imports and getattr name what they load;
//     shell words are unescaped, and a program named at run time given a
//     URL counts as a download.
//
//   - Permissions: every network, file system, program, environment,
//     database, desktop and MCP use the code makes is compared with
//     metadata.gaia.permissions (write covers read; network scopes are
//     checked against literal URL hosts, shell scopes against program names
//     beyond the common POSIX utilities, env scopes against variable names).
//
//   - Supply chain: requirements.dependencies and node_dependencies,
//     requirements*.txt, pyproject.toml (PEP 621 and Poetry) and
//     package.json the skill ships, and pip/npm/npx run by its scripts:
//     unpinned (unless a lock file sits beside the manifest), from git or
//     URLs, extra indexes, install hooks, and imports of packages nobody
//     declared.
//
//   - Encodings and sizes: UTF-16 and UTF-32 files (with or without a byte
//     order mark) are decoded; NUL bytes are dropped and bytes that are not
//     UTF-8 replaced before the analyses read the text (both reported); a
//     file over the per-file limit is streamed with blank runs (and, in
//     code, whole-line comments) squeezed out and audited when the rest
//     fits, so padding hides nothing. A shell script with a syntax error is
//     analysed line by line. Code in SKILL.md's fenced blocks gets the
//     script analyses (see fence.go for what is kept).
//
//   - Bounds: folding and taint are memoised, depth-bounded and spend from
//     a per-skill budget (Limits.MaxAnalysisSteps); a skill that exhausts it
//     gets AUD-ANALYSIS-BUDGET, never a hang. Parsing spends from a second
//     per-skill budget counted in parser operations (Limits.MaxParseSteps),
//     not in time, so the findings are the same on every machine: a code
//     file whose parse it cannot pay for is AUD-CODE-OPAQUE, code in
//     strings and code blocks left unparsed is AUD-ANALYSIS-BUDGET.
//
// Findings are sorted by file, line, column and rule; Report.CanonicalJSON
// renders the report with sorted keys and Report.Digest hashes it, so the
// same skill audited by the same tool version yields the same digest, which
// a signed audit attestation records (package attest: Report.Attestation).
//
// Report.Verdict decides per tier. A finding marked Malicious (a pattern
// malware uses and honest skills do not: a paste site, a password-
// protected archive, decode-and-run, a command pasted from a web page,
// code fetched from a raw IP, plain HTTP, a gist or, for an instruction,
// any domain the skill is not about, and then run) blocks at every tier,
// experimental included. Fetched code is judged by its URL (origin.go):
// an HTTPS installer from the product's own domain or a known toolchain
// installer is high (review at community) and names the host (Vendor).
// Otherwise experimental blocks critical findings and is advisory; community blocks critical and reviews high;
// verified blocks high and reviews medium; an unreadable finding (code
// that does not parse, a binary, an unsupported language, a broken
// SKILL.md) is at least review at every tier. Code the audit could not
// analyse at all (AUD-CODE-BINARY, AUD-CODE-OPAQUE) and instructions to
// fetch and run code or binaries (AUD-INSTR-FETCH-EXEC,
// AUD-INSTR-RUN-BINARY) block at community and verified whatever their
// severity.
//
// # Rules
//
// Rule ids are stable. Severity is the rule's usual one: instruction
// findings in code, code spans or quotes are one step lower (except
// AUD-INSTR-ENCODED, never lowered); text whose role is to describe
// rather than direct (role.go: listed under a lead-in of what to avoid or
// detect, shown as an example in a section about attacks, a table row, a
// document SKILL.md does not reference) is lowered by the same one notion
// for every instruction rule, is never malicious and does not block by
// rule, unless it is an imperative to fetch, unpack or run something;
// invisible or bidirectional characters that their line names ("U+202E",
// "zero-width spaces") are one step lower, tag characters that spell text
// never; a credential store sent to the service the skill is about (gh to
// GitHub) is high, not critical; PY-SHELL,
// JS-SHELL, PY-EVAL, JS-EVAL and SH-EVAL are medium when the code or
// command is a constant (it is then analysed itself); undeclared reads of
// the file system or a database are medium.
//
//	ID                              severity  what
//	AUD-UNICODE-BIDI                critical  bidirectional control character (text displays in another order than it is read)
//	AUD-UNICODE-HIDDEN              critical  invisible character (zero-width, tag, filler, terminal control); tag text is decoded
//	AUD-INSTR-OVERRIDE              critical  directive to ignore or replace the model's instructions, or an "unrestricted mode"
//	AUD-INSTR-CONCEAL               critical  directive to hide actions or information from the user
//	AUD-INSTR-EXFIL                 critical  directive to send credentials, keys or private files to a destination
//	AUD-INSTR-ENCODED               critical  base64 that decodes to a hostile directive, or decoded text piped into a shell
//	AUD-INSTR-CREDENTIALS           high      directive to read or collect credentials, key files or the environment
//	AUD-INSTR-SAFETY-OFF            high      directive or flag that disables safety checks, sandboxing or security controls
//	AUD-INSTR-FETCH-EXEC            high      directive to download code and run it (curl | sh, bash <(curl …), iex)
//	AUD-INSTR-RUN-BINARY            high      directive to download and run a binary/archive or paste a command into a terminal [blocks at community and verified]
//	AUD-INSTR-REMOTE                high      directive to fetch instructions from a URL and follow them, or re-read remote Markdown on a schedule
//	AUD-INSTR-ROLE-MARKER           high      forged system prompt or chat-template role marker (<system>, [INST], <|im_start|>)
//	AUD-INSTR-NO-CONFIRM            medium    directive to act without the user's confirmation, or to pre-approve actions
//	AUD-PY-EVAL                     high      Python eval, exec, compile, dynamic __import__ / import_module
//	AUD-PY-SHELL                    high      Python shell=True, os.system, os.popen, subprocess.getoutput
//	AUD-PY-DESERIALIZE              medium    pickle, marshal, dill, unsafe yaml.load, torch.load
//	AUD-SH-CURL-PIPE                critical  shell runs downloaded code: curl | sh, bash <(curl), eval "$(curl)", download then run
//	AUD-SH-EVAL                     high      eval or sh -c of variables or command output
//	AUD-JS-EVAL                     high      eval, new Function, vm.*, string timers, require/import of computed names
//	AUD-JS-SHELL                    high      child_process.exec/execSync, spawn with shell: true, zx/Bun $
//	AUD-CODE-REMOTE-EXEC            critical  downloaded content executed; reverse shells (/dev/tcp, nc -e, socat exec)
//	AUD-CODE-OBFUSCATED             critical  decoded payload executed (exec(b64decode(…)), base64 -d | sh, powershell -enc)
//	AUD-CODE-EXFIL                  critical  credential files or the whole environment flow into a network request
//	AUD-CODE-ENCODED-BLOB           high      long base64/hex literal (zlib/gzip inflated) decoding to code, commands or URLs
//	AUD-CODE-CRED-FILE              high      SSH keys, cloud and registry credentials, keychains, browser and wallet data
//	AUD-CODE-ENV-DUMP               high      the whole environment printed, serialized or iterated
//	AUD-CODE-CRED-ENV               medium    secret-looking environment variable not in requirements.env_vars
//	AUD-CODE-BINARY                 high      compiled executable or bytecode (ELF, Mach-O, PE, wasm, .pyc) [unreadable, blocks at community and verified]
//	AUD-CODE-OPAQUE                 high      script that could not be analysed (over the limit after squeezing blanks, no parse at all) [unreadable, blocks at community and verified]
//	AUD-CODE-PARSE                  medium    code that does not parse cleanly [unreadable]
//	AUD-CODE-UNSUPPORTED            medium    script in a language not analysed (Ruby, Perl, PowerShell, …) [unreadable]
//	AUD-FILE-UNREADABLE             medium    too large, not UTF-8, NUL bytes, symlink, I/O error [unreadable]
//	AUD-ANALYSIS-BUDGET             medium    analysis incomplete (budget): the code needs more analysis steps than one skill may take [unreadable]
//	AUD-SKILL-UNREADABLE            medium    SKILL.md missing or unparsable, or a permission unreadable [unreadable]
//	AUD-PERM-UNDECLARED-NETWORK     high      network use beyond the declared network permissions or scope
//	AUD-PERM-UNDECLARED-SHELL       high      programs run without shell:execute, or outside its scope
//	AUD-PERM-UNDECLARED-FILESYSTEM  high      file writes (medium: reads) without a filesystem permission
//	AUD-PERM-UNDECLARED-DATABASE    high      database writes (medium: reads) without a database permission
//	AUD-PERM-UNDECLARED-DESKTOP     high      keyboard, mouse, screen, clipboard or GUI scripting without desktop:control
//	AUD-PERM-UNDECLARED-ENV         medium    environment reads (beyond HOME, PATH and the like) without env:read
//	AUD-PERM-UNDECLARED-MCP         medium    MCP client connections without mcp:connect
//	AUD-DEP-GIT                     high      dependency from a git repository
//	AUD-DEP-URL                     high      dependency or import from a URL; extra package index
//	AUD-DEP-INSTALL-HOOK            high      package.json preinstall, install or postinstall script
//	AUD-DEP-UNPINNED                medium    dependency without an exact version (a lock file beside package.json pins ranges)
//	AUD-DEP-UNDECLARED-IMPORT       medium    import of a third-party package the skill does not declare
//
// Rules returns the same table as data.
package audit

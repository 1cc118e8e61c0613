package install

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/internal/boundedfile"
)

// maxForeignLock bounds the other tools' lock files read to name an origin.
const maxForeignLock = 4 << 20

// ForeignOrigin says where a skill skillpm did not install in root came
// from, when another tool recorded it: the skills CLI (npm "skills",
// skills-lock.json beside the project, .skill-lock.json beside the user's
// .agents root) or ClawHub (.clawhub/origin.json in the skill,
// .clawhub/lock.json beside the root); a symlink names its target. It
// returns "" when nothing says.
func ForeignOrigin(root, name string) string {
	dir := filepath.Join(root, name)
	link := ""
	if t, err := os.Readlink(dir); err == nil {
		link = "a symlink to " + t
	}
	say := func(s string) string {
		if link != "" {
			return s + ", " + link
		}
		return s
	}
	for _, lock := range []string{
		filepath.Join(filepath.Dir(filepath.Dir(root)), "skills-lock.json"),
		filepath.Join(filepath.Dir(root), ".skill-lock.json"),
	} {
		if e, ok := lockEntry(lock, name); ok {
			return say(fmt.Sprintf("installed by the skills CLI (%s%s)", lock, sourceOf(e)))
		}
	}
	origin := filepath.Join(dir, ".clawhub", "origin.json")
	if b, err := boundedfile.Read(origin, maxForeignLock); err == nil {
		var e map[string]any
		if json.Unmarshal(b, &e) == nil {
			return say(fmt.Sprintf("installed by ClawHub (%s%s)", origin, sourceOf(e)))
		}
	}
	for _, lock := range []string{
		filepath.Join(filepath.Dir(root), ".clawhub", "lock.json"),
		filepath.Join(filepath.Dir(filepath.Dir(root)), ".clawhub", "lock.json"),
	} {
		if e, ok := lockEntry(lock, name); ok {
			return say(fmt.Sprintf("installed by ClawHub (%s%s)", lock, sourceOf(e)))
		}
	}
	return link
}

// lockEntry finds name under "skills" in a JSON lock file.
func lockEntry(path, name string) (map[string]any, bool) {
	b, err := boundedfile.Read(path, maxForeignLock)
	if err != nil {
		return nil, false
	}
	var l struct {
		Skills map[string]json.RawMessage `json:"skills"`
	}
	if json.Unmarshal(b, &l) != nil {
		return nil, false
	}
	raw, ok := l.Skills[name]
	if !ok {
		return nil, false
	}
	var e map[string]any
	_ = json.Unmarshal(raw, &e) // an entry that is not an object still names the skill
	return e, true
}

// sourceOf renders the fields that say where a lock entry came from.
func sourceOf(e map[string]any) string {
	out := ""
	for _, k := range []string{"source", "sourceUrl", "slug", "registry", "version", "installedVersion"} {
		if v, ok := e[k].(string); ok && v != "" {
			out += ", " + k + " " + v
		}
	}
	return out
}

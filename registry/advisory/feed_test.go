package advisory

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func feedOf(advisories ...string) []byte {
	return []byte(`{"schema":"skillpm.advisories/v1","issued":"2026-01-01T00:00:00Z","expires":"2099-01-01T00:00:00Z","advisories":[` + strings.Join(advisories, ",") + `]}`)
}

const malicious = `{"id":"MAL-1","summary":"steals keys","affected":[{"package":{"ecosystem":"skillpm","name":"embedded/web-research"},
  "ranges":[{"type":"SEMVER","events":[{"introduced":"1.0.0"},{"fixed":"1.2.0"},{"introduced":"2.0.0"},{"last_affected":"2.1.0"}]}],
  "versions":["0.9.0"],
  "database_specific":{"digests":["sha256:` + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" + `"]}}],
  "database_specific":{"kind":"malicious","severity":"critical"}}`

// TestLookup: OSV SEMVER events (fixed exclusive, last_affected
// inclusive), listed versions and digests each name a version; others
// and other repositories are not named.
func TestLookup(t *testing.T) {
	f, err := Parse("feed.json", feedOf(malicious))
	if err != nil {
		t.Fatal(err)
	}
	a := f.Advisories[0]
	if a.Kind != KindMalicious || a.Severity != "critical" || !a.Refuses() {
		t.Fatalf("kind %q severity %q refuses %v", a.Kind, a.Severity, a.Refuses())
	}
	ix := NewIndex(f.Advisories, nil)
	for _, c := range []struct {
		repo, version, digest string
		want                  bool
	}{
		{"embedded/web-research", "1.0.0", "", true},
		{"embedded/web-research", "1.1.9", "", true},
		{"embedded/web-research", "1.2.0", "", false},
		{"embedded/web-research", "2.1.0", "", true},
		{"embedded/web-research", "2.1.1", "", false},
		{"embedded/web-research", "0.9.0", "", true},
		{"embedded/web-research", "0.8.0", "", false},
		{"embedded/web-research", "3.0.0", "sha256:" + strings.Repeat("a", 64), true},
		{"embedded/web-research", "3.0.0", "sha256:" + strings.Repeat("b", 64), false},
		{"embedded/other", "1.0.0", "", false},
	} {
		got := len(ix.Lookup(c.repo, c.version, c.digest)) > 0
		if got != c.want {
			t.Errorf("%s@%s %s: named %v, want %v", c.repo, c.version, c.digest, got, c.want)
		}
	}
	// A copy of unknown repository is named by a digest alone.
	if ms := ix.LookupDigest("sha256:"+strings.Repeat("b", 64), "sha256:"+strings.Repeat("a", 64)); len(ms) != 1 || ms[0].Repository != "embedded/web-research" || !ms[0].ByDigest {
		t.Errorf("LookupDigest(a) = %+v, want the advisory naming embedded/web-research", ms)
	}
	if ms := ix.LookupDigest("sha256:" + strings.Repeat("b", 64)); len(ms) != 0 {
		t.Errorf("LookupDigest(b) = %+v, want none", ms)
	}
	scoped := NewIndex(f.Advisories, func(*Advisory, string) bool { return false })
	if scoped.Len() != 0 || len(scoped.Lookup("embedded/web-research", "1.0.0")) != 0 || len(scoped.LookupDigest("sha256:"+strings.Repeat("a", 64))) != 0 {
		t.Error("an advisory outside every scope was indexed")
	}
}

// TestParseRefuses: what a feed must be, each refusal naming where.
func TestParseRefuses(t *testing.T) {
	adv := func(s string) string {
		return `{"id":"X-1","affected":[{"package":{"ecosystem":"skillpm","name":"embedded/a"}` + s + `}]}`
	}
	for _, c := range []struct {
		name string
		data string
		want string
	}{
		{"no expiry", `{"schema":"skillpm.advisories/v1","advisories":[]}`, "no expires"},
		{"schema", `{"schema":"other","expires":"2099-01-01T00:00:00Z","advisories":[]}`, `schema "other"`},
		{"unknown key", `{"schema":"skillpm.advisories/v1","expires":"2099-01-01T00:00:00Z","x":1}`, "unknown field"},
		{"not OSV", string(feedOf(`{"id":"X-1","affected":"no"}`)), "advisories[0]"},
		{"no id", string(feedOf(`{"affected":[]}`)), "no id"},
		{"no affected", string(feedOf(`{"id":"X-1"}`)), "names no affected skill"},
		{"ecosystem", string(feedOf(`{"id":"X-1","affected":[{"package":{"ecosystem":"npm","name":"a"}}]}`)), `ecosystem: "skillpm"`},
		{"kind", string(feedOf(`{"id":"X-1","affected":[{"package":{"ecosystem":"skillpm","name":"a"}}],"database_specific":{"kind":"bad"}}`)), `kind "bad"`},
		{"severity", string(feedOf(`{"id":"X-1","affected":[{"package":{"ecosystem":"skillpm","name":"a"}}],"database_specific":{"severity":"meh"}}`)), `severity "meh"`},
		{"range version", string(feedOf(adv(`,"ranges":[{"type":"SEMVER","events":[{"introduced":"one"}]}]`))), `version "one"`},
		{"fixed first", string(feedOf(adv(`,"ranges":[{"type":"SEMVER","events":[{"fixed":"1.0.0"}]}]`))), "before any introduced"},
		{"digest", string(feedOf(adv(`,"database_specific":{"digests":["md5:1"]}`))), `digest "md5:1"`},
		{"twice", string(feedOf(adv(""), adv(""))), "id X-1 is used twice"},
	} {
		_, err := Parse("feed.json", []byte(c.data))
		if !errors.Is(err, ErrInvalidFeed) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "feed.json") {
			t.Errorf("%s: %v, want ErrInvalidFeed from feed.json saying %q", c.name, err, c.want)
		}
	}
}

// BenchmarkLookup10000x1000 checks 1,000 installed skills against a feed
// of 10,000 advisories (5 per repository over 2,000 repositories), the
// parse of the document and the index build included: the target is
// well under a second.
func BenchmarkLookup10000x1000(b *testing.B) {
	var advs []string
	for i := range 10000 {
		advs = append(advs, fmt.Sprintf(`{"id":"X-%d","affected":[{"package":{"ecosystem":"skillpm","name":"embedded/s%d"},"ranges":[{"type":"SEMVER","events":[{"introduced":"%d.0.0"},{"fixed":"%d.0.0"}]}]}]}`,
			i, i%2000, i/2000, i/2000+1))
	}
	data := feedOf(advs...)
	for b.Loop() {
		f, err := Parse("feed.json", data)
		if err != nil {
			b.Fatal(err)
		}
		ix := NewIndex(f.Advisories, nil)
		n := 0
		for i := range 1000 {
			n += len(ix.Lookup(fmt.Sprintf("embedded/s%d", i*2), "2.5.0"))
		}
		if n == 0 {
			b.Fatal("nothing matched")
		}
	}
}

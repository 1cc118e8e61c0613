package advisory

import (
	"github.com/Masterminds/semver/v3"
)

// Index answers which advisories name a version, by repository: built
// once per feed, so that checking every installed skill against a large
// feed costs a map lookup per skill rather than a scan of the feed.
type Index struct {
	byRepo map[string][]entry
	// byDigest holds the entries that name digests, by digest: a copy
	// whose repository is not known (placed by another tool) is named by
	// the tree hash of its files alone.
	byDigest map[string][]entry
}

type entry struct {
	adv *Advisory
	af  *Affected
}

// Match is one advisory naming a skill.
type Match struct {
	// Advisory is the entry; Signer-side scope checks are done before
	// an Index is built.
	Advisory *Advisory
	// Repository is the repository the advisory names.
	Repository string
	// ByDigest is true when a digest named it (rather than its version).
	ByDigest bool
}

// NewIndex indexes advisories by the repositories they name; keep says
// which (advisory, repository) pairs count (the signer's scopes).
func NewIndex(advs []*Advisory, keep func(a *Advisory, repository string) bool) *Index {
	ix := &Index{byRepo: map[string][]entry{}, byDigest: map[string][]entry{}}
	for _, a := range advs {
		for i := range a.Affected {
			af := &a.Affected[i]
			if keep != nil && !keep(a, af.Repository) {
				continue
			}
			ix.byRepo[af.Repository] = append(ix.byRepo[af.Repository], entry{a, af})
			for _, d := range af.Digests {
				ix.byDigest[d] = append(ix.byDigest[d], entry{a, af})
			}
		}
	}
	return ix
}

// Len is the number of (advisory, repository) pairs indexed.
func (ix *Index) Len() int {
	if ix == nil {
		return 0
	}
	n := 0
	for _, es := range ix.byRepo {
		n += len(es)
	}
	return n
}

// Lookup returns the advisories naming version (of repository) or one of
// digests, each once, in feed order.
func (ix *Index) Lookup(repository, version string, digests ...string) []Match {
	if ix == nil {
		return nil
	}
	es := ix.byRepo[repository]
	if len(es) == 0 {
		return nil
	}
	v, err := semver.StrictNewVersion(version)
	if err != nil {
		v = nil
	}
	var out []Match
	seen := map[*Advisory]bool{}
	for _, e := range es {
		if seen[e.adv] {
			continue
		}
		byDigest := e.af.Names(nil, digests...)
		if byDigest || e.af.Names(v) {
			seen[e.adv] = true
			out = append(out, Match{Advisory: e.adv, Repository: e.af.Repository, ByDigest: byDigest && len(e.af.Digests) > 0})
		}
	}
	return out
}

// LookupDigest returns the advisories naming one of digests in any
// repository, each once, in feed order: what names a copy whose
// repository and version nobody recorded.
func (ix *Index) LookupDigest(digests ...string) []Match {
	if ix == nil {
		return nil
	}
	var out []Match
	seen := map[*Advisory]bool{}
	for _, d := range digests {
		for _, e := range ix.byDigest[d] {
			if !seen[e.adv] {
				seen[e.adv] = true
				out = append(out, Match{Advisory: e.adv, Repository: e.af.Repository, ByDigest: true})
			}
		}
	}
	return out
}

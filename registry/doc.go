// Package registry maps skills to OCI artifacts and moves them between
// directories, OCI image layouts and OCI registries.
//
// The artifact is exactly what artifact.md specifies: an OCI image manifest
// with artifactType [ArtifactType], the frontmatter's canonical JSON as its
// config, one reproducible tar+gzip layer, and annotations that carry what a
// resolver needs (dependencies, tier, permissions) so that resolution never
// downloads a layer. [Build] makes it; [Client.Publish] pushes it.
//
// References are parsed by package source (source.ParseRef), the one
// grammar; [Client.OpenRef] opens the repository one names. Sources
// ([Source]) are remote registry namespaces ([Client.Remote]) and
// directories holding one OCI layout per skill ([Client.Layout]), of which
// the embedded default registry under $XDG_DATA_HOME/skillpm/registry is
// one.
//
// Everything fetched goes through a content-addressed cache
// ($XDG_CACHE_HOME/skillpm, SKILLPM_CACHE overrides): every byte is checked
// against its digest and no read goes past the descriptor's size. Remote
// requests are retried with backoff on 5xx, 429 and dropped connections,
// and a transfer that stalls is abandoned; a blob that does not match its
// digest is a [*DigestMismatchError], never retried.
//
// Signatures and audit attestations are attached, listed and verified
// here against the trust material a caller gives; what tier their signers
// earn under a trust policy, and the search and mirror checks that need
// it, are in registry/policycheck, and the resolver's view of the registry in
// registry/catalog, so that this transport imports neither the policy nor
// the resolver.
//
// Nothing here prints or keeps package-level state; progress is reported
// through [Options.Progress].
package registry

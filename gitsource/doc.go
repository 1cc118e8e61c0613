// Package gitsource installs skills from the git repositories they live in.
//
// A git reference names a repository, a revision and a folder:
//
//	git+https://HOST/OWNER/REPO[@REV][#SUBDIR]
//	git+ssh://[USER@]HOST/OWNER/REPO[@REV][#SUBDIR]
//	git+file:///ABS/PATH[@REV][#SUBDIR]
//	github:OWNER/REPO[/SUBDIR][@REV]
//
// and a bare https://github.com/OWNER/REPO[/tree/REV/SUBDIR] URL is taken
// as the git+https reference it means. REV is a branch, a tag, a full
// commit, or a semver range ("^1") matched against the repository's
// version tags (v1.2.0, or NAME-v1.2.0 for the skill NAME).
//
// The package drives the git command-line tool rather than a Go git
// implementation: git is present wherever skills are developed, it
// already knows the user's credential helpers, SSH configuration, proxies
// and certificates, and it fetches a single commit shallowly from any
// server, which the pure-Go implementations do not all do. Fetched
// repositories are kept, shallow and by commit, in a [Cache], so a
// reference resolved once installs again offline.
package gitsource

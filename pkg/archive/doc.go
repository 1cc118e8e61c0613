// Package archive packs a skill directory into the reproducible gzip'd tar
// stored as a skill's OCI layer, unpacks such a layer safely within bounds,
// and computes the tree hash that ties the two together.
//
// The tree hash ([TreeHash]) covers regular files only: path, executable
// bit and content. [Pack], [TreeHashDir] (the same view of a source tree
// without compressing), [Unpack] and [TreeHashInstalled] (every file of an
// installed tree) all compute it the same way, so an install checks the
// unpacked tree against the manifest annotation dev.skillpm.skill.tree and
// later detects hand edits.
//
// Pack and TreeHashDir refuse anything Unpack would refuse under the same
// [Limits], so every packed skill can be installed on every platform.
//
// Nothing here keeps package-level state or prints; every function that
// touches the file system takes a context.
package archive

package install

import "github.com/skillpm/skillpm/registry/advisory"

// AdvisedCopy is an advisory naming an installed copy: what list reports
// beside the skills (and doctor and quarantine act on), matched by the
// receipt's repository and version or by the tree hash of the files.
type AdvisedCopy struct {
	advisory.Advised
	// Dir is where the copy is.
	Dir string `json:"dir"`
	// Tree is the tree hash of the files on disk (what a digest in the
	// advisory is compared with, besides the receipt's manifest digest).
	Tree string `json:"tree,omitempty"`
}

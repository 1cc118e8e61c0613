package audit

// Summary counts the verdicts of an audit of several skills.
type Summary struct {
	Skills int `json:"skills"`
	Pass   int `json:"pass"`
	Review int `json:"review"`
	Block  int `json:"block"`
	Failed int `json:"failed"`
	// Blocks are the paths of the skills that block.
	Blocks []string `json:"blocked"`
}

// NewSummary returns an empty summary, its Blocks an empty list (shown
// as [] rather than null).
func NewSummary() Summary { return Summary{Blocks: []string{}} }

// Add counts the skill at path: failed when it could not be audited,
// else by v's decision.
func (s *Summary) Add(path string, v Verdict, failed bool) {
	s.Skills++
	switch {
	case failed:
		s.Failed++
	case v.Decision == Pass:
		s.Pass++
	case v.Decision == Review:
		s.Review++
	case v.Decision == Block:
		s.Block++
		s.Blocks = append(s.Blocks, path)
	}
}

package install

// Stage names a step of an install, in the order they happen.
type Stage string

// Install stages reported through Options.Progress.
const (
	// StageResolving: choosing versions for what was asked.
	StageResolving Stage = "resolving"
	// StageFetching: fetching one skill's manifest (Event.Skill).
	StageFetching Stage = "fetching"
	// StageVerifying: verifying one skill's signatures (Event.Skill).
	StageVerifying Stage = "verifying"
	// StageChecking: applying tiers, ceilings and grants to the whole set.
	StageChecking Stage = "checking"
	// StageCommitting: writing one root (Event.Root).
	StageCommitting Stage = "committing"
)

// Event is one progress report of Install.
type Event struct {
	Stage Stage `json:"stage"`
	// Skill is "name@version" for the per-skill stages.
	Skill string `json:"skill,omitempty"`
	// Root is the directory being written, for StageCommitting.
	Root string `json:"root,omitempty"`
}

// progress reports e when the caller asked for progress.
func (o Options) progress(e Event) {
	if o.Progress != nil {
		o.Progress(e)
	}
}

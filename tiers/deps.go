package tiers

import "github.com/skillpm/skillpm/sign"

// ExperimentalDependency returns the refusal for an experimental skill
// reached as a dependency. path runs from the skill the user asked for to
// the experimental one, each element "name@version"; the error names the
// path and the command that installs the skill on purpose.
func ExperimentalDependency(path []string) error {
	return &ExperimentalDependencyError{Path: append([]string(nil), path...)}
}

// ExperimentalDependencyWhy is [ExperimentalDependency] saying what
// decided the skill's tier ([DecidedBy]).
func ExperimentalDependencyWhy(path []string, claimed, attested Tier, signers []string) error {
	e := &ExperimentalDependencyError{Path: append([]string(nil), path...)}
	e.DecidedBy, e.Why = DecidedBy(claimed, attested, signers)
	return e
}

// CheckSigners enforces signer pinning: an update must be signed by at
// least one of the identities recorded at first install (compared with
// [SameSigner]), unless allowChange (--allow-signer-change). Nothing
// recorded means nothing is pinned.
func CheckSigners(recorded, current []sign.Identity, allowChange bool) error {
	if allowChange || len(recorded) == 0 {
		return nil
	}
	for _, r := range recorded {
		for _, c := range current {
			if SameSigner(r, c) {
				return nil
			}
		}
	}
	return &SignerChangeError{Recorded: append([]sign.Identity(nil), recorded...), Current: append([]sign.Identity(nil), current...)}
}

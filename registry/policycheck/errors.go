package policycheck

import "github.com/skillpm/skillpm/pkg/errdef"

// Why a version is refused whatever tier its claim would earn
// ([Verification.Refused]); both come with tiers.ErrRefused.
var (
	// ErrNotSigned means no signature is attached to a version.
	ErrNotSigned = errdef.New(errdef.Trust, "not signed")
	// ErrNoVerifiedSignature means signatures are attached but none
	// verifies with the trust material.
	ErrNoVerifiedSignature = errdef.New(errdef.Trust, "no signature verifies")
)

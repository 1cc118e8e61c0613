package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/skillpm/skillpm/internal/approval"
	"github.com/skillpm/skillpm/tiers"
)

// ApprovePolicyRequest approves, or with Revoke withdraws the approval
// of, a project's trust policy on this machine.
type ApprovePolicyRequest struct {
	// File is the policy; "" means the one the project manifest names.
	File string
	// Manifest is the project manifest, "" for the one here.
	Manifest string
	// Digest, when set, is the digest the user reviewed
	// (tiers.Policy.Digest): the approval is refused if the file no
	// longer has it, so what is approved is what was shown.
	Digest string
	// Revoke withdraws the approval instead.
	Revoke bool
	// DryRun loads the policy and says whether it is approved, recording
	// nothing: what a front end shows before it asks.
	DryRun bool
}

// ApprovePolicyResult is what ApprovePolicy approved.
type ApprovePolicyResult struct {
	// Policy is the policy approved (nil for Revoke).
	Policy *tiers.Policy
	// File is its file.
	File string
	// Changed is false when it was approved already (or, for Revoke, not
	// approved); for DryRun, whether an approval would change anything.
	Changed bool
}

// ApprovePolicy records that this machine trusts the bytes of a project's
// trust policy as they are now (the policy file, its key files and
// trusted roots: tiers.Policy.Digest), or with r.Revoke forgets that.
// Every command run in the project then obeys the policy, until any of
// those bytes change.
func ApprovePolicy(ctx context.Context, r ApprovePolicyRequest) (*ApprovePolicyResult, error) {
	store := approval.Default(os.Getenv)
	file := r.File
	if file == "" {
		p, err := projectPolicy(ctx, r.Manifest)
		if err != nil {
			return nil, err
		}
		if p == "" {
			return nil, invalid(errors.New("this project's skills.yaml names no trust policy (policy: FILE): name the file to approve"))
		}
		file = p
	}
	if r.Revoke {
		ok, err := store.Revoke(file)
		return &ApprovePolicyResult{File: file, Changed: ok}, err
	}
	p, err := tiers.Load(ctx, file)
	if err != nil {
		return nil, err
	}
	if r.Digest != "" && r.Digest != p.Digest {
		return nil, invalid(fmt.Errorf("%s changed while it was shown (now %s): run the command again to review it as it is", file, p.Digest))
	}
	res := &ApprovePolicyResult{Policy: p, File: file}
	if store.Approved(file, p.Digest) {
		return res, nil
	}
	res.Changed = true
	if r.DryRun {
		return res, nil
	}
	return res, store.Approve(file, p.Digest, time.Now())
}

package install

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/skillpm/skillpm/registry/catalog"
	"github.com/skillpm/skillpm/resolve"
)

// installRefs installs refs into root as the CLI does: the manifest is
// made from the refs and what the root holds (InstallRefs).
func (r *testRegistry) installRefs(root string, refs []string, mod func(*Options)) (*Result, error) {
	g, err := catalog.New(r.client, resolve.Namespace{})
	if err != nil {
		return nil, err
	}
	opts := Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}}, AllowExperimental: true}
	if mod != nil {
		mod(&opts)
	}
	return InstallRefs(context.Background(), r.client, g, "test", refs, opts)
}

func (r *testRegistry) update(root string, names []string, wait time.Duration) (*Result, error) {
	g, err := catalog.New(r.client, resolve.Namespace{})
	if err != nil {
		return nil, err
	}
	return Update(context.Background(), r.client, g, names, Options{Auditor: newTestAuditor(), Roots: []Root{{Host: HostAgents, Scope: ScopeUser, Dir: root}},
		AllowExperimental: true, LockWait: wait})
}

func installedVersion(t *testing.T, root, name string) string {
	t.Helper()
	rec, err := ReadReceipts(root)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := rec.Get(name)
	if !ok {
		return ""
	}
	return r.Version
}

// TestInstallDoesNotLoseConcurrentUpdate: process B installs txb; between
// B's plan and B's commit, process A updates txa to 1.0.1. The old install
// read the receipts (txa 1.0.0) before taking the lock, so A succeeded and
// B then committed txa 1.0.0 again: A's update was silently reverted. B
// holds no lock while it checks its plan (A's update goes through), and
// finds at its commit that txa changed: it plans again from the receipts
// A left, and commits txb with txa 1.0.1 kept.
func TestInstallDoesNotLoseConcurrentUpdate(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish("txa", "1.0.0", nil, nil)
	reg.publish("txb", "1.0.0", nil, nil)
	root := t.TempDir()
	if _, err := reg.installRefs(root, []string{"txa"}, nil); err != nil {
		t.Fatal(err)
	}
	reg.publish("txa", "1.0.1", nil, nil)
	var aErr error
	aRan := false
	_, err := reg.installRefs(root, []string{"txb"}, func(o *Options) {
		o.OnPlan = func(context.Context, []Change) error {
			aRan = true
			// A tries the lock once: B must have let it go.
			_, aErr = reg.update(root, []string{"txa"}, -1)
			return nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !aRan {
		t.Fatal("the hook between plan and commit did not run")
	}
	if aErr != nil {
		t.Fatalf("A could not update while B checked its plan: %v", aErr)
	}
	if got := installedVersion(t, root, "txa"); got != "1.0.1" {
		t.Fatalf("A updated txa to 1.0.1 (exit 0), then B committed txa %s: A's update was lost", got)
	}
	if v := installedVersion(t, root, "txb"); v != "1.0.0" {
		t.Fatalf("txb %q after B, want 1.0.0", v)
	}
	if _, err := reg.update(root, []string{"txa"}, 0); err != nil {
		t.Fatal(err)
	}
	if v := installedVersion(t, root, "txa"); v != "1.0.1" {
		t.Errorf("txa %s after A's update, want 1.0.1", v)
	}
	if v := installedVersion(t, root, "txb"); v != "1.0.0" {
		t.Errorf("txb %q after A's update, want 1.0.0", v)
	}
}

// TestRemoveInterruptedIsNotResurrected: a remove of txa killed once its
// journal is written, then an install of another skill. The old install
// planned from the receipts still naming txa, recovered (removing txa)
// under the lock, and installed txa again.
func TestRemoveInterruptedIsNotResurrected(t *testing.T) {
	reg := newTestRegistry(t)
	reg.publish("txa", "1.0.0", nil, nil)
	reg.publish("txb", "1.0.0", nil, nil)
	reg.publish("txc", "1.0.0", nil, nil)
	root := t.TempDir()
	if _, err := reg.installRefs(root, []string{"txa", "txb"}, nil); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("killed")
	_, err := Remove(context.Background(), root, []string{"txa"}, RemoveOptions{hook: func(step string) error {
		if step == "journal" {
			return crash
		}
		return nil
	}})
	if !errors.Is(err, crash) {
		t.Fatalf("remove: %v, want the simulated kill", err)
	}
	res, err := reg.installRefs(root, []string{"txc"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := installedVersion(t, root, "txa"); v != "" {
		t.Errorf("txa %s is back after an interrupted remove and an install of txc (installed %v)", v, res.Roots[0].Installed)
	}
	if !res.Roots[0].Recovered {
		t.Error("the install did not report the recovery it ran")
	}
	for _, n := range []string{"txb", "txc"} {
		if installedVersion(t, root, n) == "" {
			t.Errorf("%s missing", n)
		}
	}
}

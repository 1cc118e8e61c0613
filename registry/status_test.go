package registry

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/pkg/errdef"
	"github.com/skillpm/skillpm/source"
)

// TestCheckPublisher: a key that signed the version may change its
// status; another key is ErrNotPublisher (a trust refusal naming the
// key), as is any key while the version has no signature.
func TestCheckPublisher(t *testing.T) {
	ctx := context.Background()
	c := testClient(t, nil)
	src := c.Embedded()
	publisher, stranger := testKeys(t)
	res := publish(t, c, src, writeSkill(t, t.TempDir(), skillSpec{name: "notes", version: "1.0.0"}), PublishOptions{})
	repo, err := c.Repository(src, "notes")
	if err != nil {
		t.Fatal(err)
	}
	sel, _ := source.ParseSelector("1.0.0")
	m, err := repo.Get(ctx, sel, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.CheckPublisher(ctx, m, publisher.Public()); !errors.Is(err, ErrNotPublisher) {
		t.Errorf("unsigned: %v, want ErrNotPublisher", err)
	}
	if _, err := repo.AttachSignature(ctx, res.Descriptor, signWith(t, publisher, res.Descriptor), AttachOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := repo.CheckPublisher(ctx, m, publisher.Public()); err != nil {
		t.Errorf("the publisher's key: %v", err)
	}
	err = repo.CheckPublisher(ctx, m, stranger.Public())
	if !errors.Is(err, ErrNotPublisher) || errdef.ClassOf(err) != errdef.Trust || !strings.Contains(err.Error(), stranger.Fingerprint()) {
		t.Errorf("another key: %v, want ErrNotPublisher of class Trust naming %s", err, stranger.Fingerprint())
	}
}

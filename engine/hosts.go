package engine

import (
	"context"

	"github.com/skillpm/skillpm/hosts"
)

// HostsResult is what Hosts describes.
type HostsResult struct {
	Hosts []hosts.View
}

// HostsRequest names the hosts Hosts describes.
type HostsRequest struct {
	// IDs are the hosts, in the order shown; empty means every host of
	// the table (the built-in one and the user's hosts file).
	IDs []string
}

// Hosts describes the hosts r.IDs name, in that order, or every host of
// the Engine's table when there are none, as `skillpm hosts` does. An id
// the table does not hold is a *hosts.UnknownHostError.
func (e *Engine) Hosts(ctx context.Context, r HostsRequest) (*HostsResult, error) {
	env, ids := e.env, r.IDs
	t := env.Table()
	if len(ids) == 0 {
		ids = t.IDs()
	}
	var views []hosts.View
	for _, id := range ids {
		v, err := t.View(ctx, id, env)
		if err != nil {
			return nil, err
		}
		views = append(views, v)
	}
	return &HostsResult{Hosts: views}, nil
}

package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Budget bounds the registry requests of one operation (an install, an
// update) and the registries they go to. A manifest naming 20,000 skills
// that do not exist, or skills that require hundreds of skills on a
// third-party registry, would otherwise cost tens of thousands of
// requests, to hosts the manifest chose, before any trust decision is
// made. Only requests to a registry API (/v2/...) count: token services
// and blob storage a registry redirects to are part of its answers. A
// Budget is safe for concurrent use.
type Budget struct {
	// MaxRequests bounds the requests; 0 means no bound.
	MaxRequests int
	// MaxRegistries bounds the registry hosts; 0 means no bound.
	MaxRegistries int

	mu       sync.Mutex
	requests int
	hosts    []string
}

// DefaultBudget returns a Budget of 10,000 requests and 8 registries: an
// install of a few hundred signed skills takes some 2,000 requests, from
// one or two registries.
func DefaultBudget() *Budget { return &Budget{MaxRequests: 10000, MaxRegistries: 8} }

type budgetKey struct{}

// WithBudget makes the requests made under ctx count against b.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// Requests returns how many requests were counted.
func (b *Budget) Requests() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.requests
}

// Registries returns the registry hosts asked, in the order first asked.
func (b *Budget) Registries() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.hosts)
}

// spend counts one request to host, or returns a *BudgetError when that
// would exceed a bound.
func (b *Budget) spend(host string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Contains(b.hosts, host) {
		if b.MaxRegistries > 0 && len(b.hosts) >= b.MaxRegistries {
			return &BudgetError{Registry: host, Limit: b.MaxRegistries, Requests: b.requests, Registries: slices.Clone(b.hosts)}
		}
		b.hosts = append(b.hosts, host)
	}
	if b.MaxRequests > 0 && b.requests >= b.MaxRequests {
		return &BudgetError{Limit: b.MaxRequests, Requests: b.requests, Registries: slices.Clone(b.hosts)}
	}
	b.requests++
	return nil
}

// budgetOf returns the Budget a request counts against, nil for none.
func budgetOf(ctx context.Context) *Budget {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	return b
}

// BudgetError is an operation stopped at a bound of its Budget.
type BudgetError struct {
	// Registry is the registry that would have been one too many; ""
	// when the bound on requests was reached.
	Registry string
	// Limit is the bound reached.
	Limit int
	// Requests and Registries are what the operation had asked so far.
	Requests   int
	Registries []string
}

// Error implements error.
func (e *BudgetError) Error() string {
	so := fmt.Sprintf("%d requests to %d registries (%s)", e.Requests, len(e.Registries), strings.Join(e.Registries, ", "))
	if e.Registry != "" {
		return fmt.Sprintf("registry %s would be registry number %d of this operation, more than the %d allowed, after %s: skills that pull in this many registries are refused before anything is trusted",
			e.Registry, e.Limit+1, e.Limit, so)
	}
	return fmt.Sprintf("this operation reached its bound of %d registry requests (%s) before it could decide anything: a manifest naming this many skills, or skills requiring this many, is refused; split it",
		e.Limit, so)
}

// Unwrap makes errors.Is(err, ErrHostile) true.
func (e *BudgetError) Unwrap() error { return ErrHostile }

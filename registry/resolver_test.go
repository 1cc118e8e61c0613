package registry

import "github.com/skillpm/skillpm/resolve"

// The resolver's Source interface, checked here so that the registry
// package itself stays independent of resolve.
var _ resolve.Source = ResolverSource{}

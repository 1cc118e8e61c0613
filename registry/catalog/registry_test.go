package catalog_test

import (
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
)

// The solver's Provider interface, checked here so that the registry
// package itself stays independent of resolve.
var _ resolve.Provider = registry.Provider{}

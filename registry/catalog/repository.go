package catalog

import "github.com/skillpm/skillpm/registry"

// Repository opens the repository of solver name key, routed as Versions
// routes it.
func (g *Registry) Repository(key string) (*registry.Repository, error) {
	rs, name := g.route(key)
	return rs.Repository(name)
}

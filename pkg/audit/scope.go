package audit

// Scopes for the Python and JavaScript analyses: a name is looked up in
// the function that uses it, then in the functions around it, then in the
// module, so that two functions using the same variable name do not share
// its value or taint. Parameters bind their name without a known value.
// Calls of functions the file defines take the taint (and, with one
// return, the value) of what the function returns, so a download in one
// helper that another runs through a shell is still a download.

// scopeKey is a name bound in one scope (nil: the module).
type scopeKey struct {
	scope *tnode
	name  string
}

// scopeKinds are the syntax nodes that open a scope.
func scopeKind(kind string) bool {
	switch kind {
	case "function_definition", "lambda", // Python
		"function_declaration", "function_expression", "arrow_function", "method_definition",
		"generator_function_declaration", "generator_function", "function": // JavaScript, TypeScript
		return true
	}
	return false
}

// scopeOf returns the innermost function around n (n itself excluded), or
// nil for the module. Results are memoised along the way, so a deep tree
// costs one climb per node.
func (a *codeSite) scopeOf(n *tnode) *tnode {
	if n == nil {
		return nil
	}
	var path []*tnode
	var found *tnode
	for p := n.parent; p != nil; p = p.parent {
		if s, ok := a.scopes[p]; ok {
			found = s
			if scopeKind(p.kind) {
				found = p
			}
			break
		}
		if scopeKind(p.kind) {
			found = p
			break
		}
		path = append(path, p)
	}
	// Every node climbed through has the same scope as n.
	for _, p := range path {
		a.scopes[p] = found
	}
	return found
}

// bind records that name is assigned rhs (nil for a parameter) in the
// scope around at.
func (a *codeSite) bind(at *tnode, name string, rhs *tnode) {
	k := scopeKey{a.scopeOf(at), name}
	a.assigns[k] = append(a.assigns[k], rhs)
}

// bindIn records a binding in the scope fn (a parameter of fn).
func (a *codeSite) bindIn(fn *tnode, name string) {
	k := scopeKey{fn, name}
	a.assigns[k] = append(a.assigns[k], nil)
}

// lookup returns the right-hand sides bound to the name used at n: those of
// the innermost scope that binds it.
func (a *codeSite) lookup(n *tnode, name string) []*tnode {
	for s := a.scopeOf(n); ; s = a.scopeOf(s) {
		if rhs, ok := a.assigns[scopeKey{s, name}]; ok {
			return rhs
		}
		if s == nil {
			return nil
		}
	}
}

// foldReturns folds what the function fn returns: the union of the taint
// of its return values, and the value itself when there is one return.
func (a *codeSite) foldReturns(fn *tnode, fold func(*tnode) val) (val, bool) {
	rets, ok := a.returns[fn]
	if !ok {
		return val{}, false
	}
	if len(rets) == 1 {
		return fold(rets[0]), true
	}
	v := unknownVal()
	for _, r := range rets {
		v.t |= fold(r).t
	}
	return v, true
}

// noteReturn records a returned expression of the function around it.
func (a *codeSite) noteReturn(ret, expr *tnode) {
	if fn := a.scopeOf(ret); fn != nil && expr != nil {
		a.returns[fn] = append(a.returns[fn], expr)
	}
}

// localFunc returns the function the file defines under the name id calls,
// looked up like a variable; nil when the name is bound to a value or is
// not defined here.
func (a *codeSite) localFunc(id *tnode) *tnode {
	name := id.text(a.src)
	for s := a.scopeOf(id); ; s = a.scopeOf(s) {
		if fn, ok := a.funcs[scopeKey{s, name}]; ok {
			return fn
		}
		if _, ok := a.assigns[scopeKey{s, name}]; ok {
			return nil
		}
		if s == nil {
			return nil
		}
	}
}

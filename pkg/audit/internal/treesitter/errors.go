package treesitter

import "github.com/skillpm/skillpm/pkg/errdef"

var (
	// ErrModule means the WebAssembly module could not be compiled or
	// instantiated; no parse can succeed in this process.
	ErrModule = errdef.New(errdef.Internal, "tree-sitter module unavailable")
	// ErrParse means one parse failed: cancelled, out of memory, or an
	// input outside the bounds.
	ErrParse = errdef.New(errdef.Internal, "tree-sitter parse failed")
	// ErrBudget means a parse used up the steps ParseBudget gave it; it
	// comes wrapped with ErrParse.
	ErrBudget = errdef.New(errdef.Internal, "parse budget spent")
)

package treesitter

import "errors"

var (
	// ErrModule means the WebAssembly module could not be compiled or
	// instantiated; no parse can succeed in this process.
	ErrModule = errors.New("tree-sitter module unavailable")
	// ErrParse means one parse failed: cancelled, out of memory, or an
	// input outside the bounds.
	ErrParse = errors.New("tree-sitter parse failed")
	// ErrBudget means a parse used up the steps ParseBudget gave it; it
	// comes wrapped with ErrParse.
	ErrBudget = errors.New("parse budget spent")
)

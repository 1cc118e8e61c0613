package install

import (
	"errors"
	"os"
)

// RootHealth is a discovery root and its state, as doctor reports it.
type RootHealth struct {
	Root
	// ReadBy is the display name of the host that reads the root.
	ReadBy string
	// Exists says the directory exists; Skills counts the skills skillpm
	// installed there.
	Exists bool
	Skills int
	// Journal says a transaction's journal is pending; Staged lists
	// staging directories an interrupted transaction left.
	Journal bool
	Staged  []string
	// Problems are what is wrong with the root.
	Problems []error
}

// CheckRoot reads r's receipts and pending work (PendingIn, Staged)
// without taking its lock or changing anything.
func CheckRoot(env Env, r Root) RootHealth {
	h := RootHealth{Root: r, ReadBy: string(r.Host)}
	if row, err := env.Table().Get(string(r.Host)); err == nil && row.Name != "" {
		h.ReadBy = row.Name
	}
	if _, err := os.Stat(r.Dir); err == nil {
		h.Exists = true
	}
	if rec, err := ReadReceipts(r.Dir); err != nil {
		h.Problems = append(h.Problems, err)
	} else {
		h.Skills = len(rec.Skills)
	}
	pend, err := PendingIn(r.Dir)
	if err != nil {
		h.Problems = append(h.Problems, err)
	}
	staged, err := Staged(r.Dir)
	if err != nil {
		h.Problems = append(h.Problems, err)
	}
	h.Journal, h.Staged = pend != nil, staged
	switch {
	case pend != nil:
		h.Problems = append(h.Problems, errors.New(pend.String()))
	case len(staged) > 0:
		h.Problems = append(h.Problems, errors.New("an interrupted transaction left staging directories: the next install, update or remove here discards them"))
	}
	return h
}

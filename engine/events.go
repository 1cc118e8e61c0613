package engine

import (
	"context"
	"log/slog"

	"github.com/skillpm/skillpm/install"
)

// The one event sink: every operation reports its warnings, notes and
// install stages to Options.Log, so a program handles them in one
// slog.Handler instead of three callbacks.

// EventKey is the attribute that carries the event of a slog.LevelDebug
// record of Options.Log: an install stage's install.Event, or a
// PublishAll's *PublishItem as each skill's publish ends (with "done" and
// "total" attributes counting the skills finished).
const EventKey = "event"

// warns reports whether anyone listens to warnings: the work of finding
// some (reading the statuses of what an install placed) is skipped when
// no one does.
func (e *Engine) warns() bool {
	return e.opts.Log != nil && e.opts.Log.Enabled(context.Background(), slog.LevelWarn)
}

// warn reports a problem that did not stop the operation.
func (e *Engine) warn(msg string) {
	if e.warns() {
		e.opts.Log.Warn(msg)
	}
}

// warnFunc is warn for the layers below that take a callback (install,
// resolve); nil when no one listens, which they read as "no one".
func (e *Engine) warnFunc() func(string) {
	if !e.warns() {
		return nil
	}
	return e.warn
}

// note reports a line about where something came from.
func (e *Engine) note(line string) {
	if e.opts.Log != nil {
		e.opts.Log.Info(line)
	}
}

// progressFunc reports install stages as they start, when the handler
// wants slog.LevelDebug records; nil otherwise (install then skips the
// work of reporting).
func (e *Engine) progressFunc() func(install.Event) {
	l := e.opts.Log
	if l == nil || !l.Enabled(context.Background(), slog.LevelDebug) {
		return nil
	}
	return func(ev install.Event) {
		l.LogAttrs(context.Background(), slog.LevelDebug, string(ev.Stage), slog.Any(EventKey, ev))
	}
}

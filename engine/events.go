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
// record of Options.Log, one of:
//
//   - install.Event: an install stage as it starts;
//   - []install.Change: the plan of an install or update, root by root,
//     before any consent is asked or anything changes (an update plans
//     the skills from git and folders apart from the others: it reports
//     each non-empty plan, or one empty plan when both are);
//   - *UpdateResult: an Update in a project whose ranges moved (Manifest
//     and Ranges set), before anything is resolved;
//   - *PublishItem: a PublishAll's skill as its publish ends (with "done"
//     and "total" attributes counting the skills finished).
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

// events reports whether anyone listens to events (slog.LevelDebug
// records with an EventKey attribute).
func (e *Engine) events() bool {
	return e.opts.Log != nil && e.opts.Log.Enabled(context.Background(), slog.LevelDebug)
}

// event reports v as an event (EventKey) with the message msg, when
// anyone listens.
func (e *Engine) event(msg string, v any, attrs ...slog.Attr) {
	if e.events() {
		e.opts.Log.LogAttrs(context.Background(), slog.LevelDebug, msg, append([]slog.Attr{slog.Any(EventKey, v)}, attrs...)...)
	}
}

// planFunc reports an install's plan ([]install.Change) as an event; nil
// when no one listens (install then skips it).
func (e *Engine) planFunc() func(context.Context, []install.Change) error {
	if !e.events() {
		return nil
	}
	return func(_ context.Context, changes []install.Change) error {
		e.event("plan", changes)
		return nil
	}
}

// progressFunc reports install stages as they start, when the handler
// wants slog.LevelDebug records; nil otherwise (install then skips the
// work of reporting).
func (e *Engine) progressFunc() func(install.Event) {
	if !e.events() {
		return nil
	}
	return func(ev install.Event) { e.event(string(ev.Stage), ev) }
}

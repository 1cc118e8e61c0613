package main

import (
	"fmt"
	"io"
	"path"
	"sync"

	"github.com/skillpm/skillpm/registry"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progressView draws one line per operation on a terminal's stderr, as
// cargo and uv do: "[12/50] publishing web-notes 0.3.0" for a run over
// many skills, "publishing web-notes  1.2 MiB / 3.4 MiB" for the bytes
// of one; the line goes away when the operation ends, leaving the result
// lines. It is drawn by mpb; nothing is drawn until something moves, and
// nothing at all on a pipe, with -q or in JSON mode (newProgressView
// returns nil then, and every method of a nil view does nothing).
type progressView struct {
	out io.Writer
	// above, when set, is told where lines printed while the bar is up
	// must go (above the bar), and then to go back to stderr.
	above func(io.Writer)

	mu    sync.Mutex
	p     *mpb.Progress
	bar   *mpb.Bar
	verb  string // "publishing", "pulling"
	label string // the skill (and version) the line names
	// count mode: done of total skills; bytes mode: the blobs' sizes and
	// what moved of each.
	counting    bool
	done, total int
	sizes       map[string]int64
	moved       map[string]int64
	stopped     bool
}

// newProgressView returns the view of a run when stderr is a terminal and
// the output layer shows notes in text; nil otherwise.
func newProgressView(g *globals) *progressView {
	o := g.o()
	if o.json || o.level < levelNormal || !isTerminal(g.stderr) {
		return nil
	}
	return &progressView{out: g.stderr, above: o.setAbove, sizes: map[string]int64{}, moved: map[string]int64{}}
}

// start draws the bar on first use; v.mu is held.
func (v *progressView) start() {
	if v.bar != nil || v.stopped {
		return
	}
	v.p = mpb.New(mpb.WithOutput(v.out), mpb.WithAutoRefresh())
	v.bar = v.p.New(0, mpb.BarStyle(), mpb.BarWidth(30), mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return v.line() })),
		mpb.AppendDecorators(decor.Any(func(s decor.Statistics) string {
			if s.Total <= 0 || v.isCounting() {
				return ""
			}
			return regBytes(s.Current) + " / " + regBytes(s.Total)
		})))
	if v.above != nil {
		v.above(v.p)
	}
}

func (v *progressView) isCounting() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.counting
}

// line is the text before the bar.
func (v *progressView) line() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.counting {
		return fmt.Sprintf("[%d/%d] %s %s", v.done, v.total, v.verb, v.label)
	}
	return v.verb + " " + v.label
}

// Blob is the registry client's ProgressFunc: the bytes of every blob of
// the operation add up on the one line.
func (v *progressView) Blob(p registry.Progress) {
	if v == nil {
		return
	}
	v.mu.Lock()
	if v.stopped {
		v.mu.Unlock()
		return
	}
	v.start()
	if v.verb == "" || !v.counting {
		v.verb = "publishing"
		if p.Op == "pull" {
			v.verb = "pulling"
		}
		if !v.counting {
			v.label = path.Base(p.Location.Repository)
		}
	}
	d := string(p.Descriptor.Digest)
	if _, ok := v.sizes[d]; !ok {
		v.sizes[d] = p.Descriptor.Size
	}
	switch p.State {
	case registry.ProgressDone, registry.ProgressSkipped:
		v.moved[d] = p.Descriptor.Size
	default:
		v.moved[d] = p.Bytes
	}
	if v.counting {
		v.mu.Unlock()
		return
	}
	var total, moved int64
	for k, n := range v.sizes {
		total += n
		moved += v.moved[k]
	}
	bar := v.bar
	// The bar is told outside the lock: its decorators take it.
	v.mu.Unlock()
	bar.SetTotal(total, false)
	bar.SetCurrent(moved)
}

// Item counts one skill of a run over many done (done of total), named
// name and version: the line becomes "[done/total] verb name version".
func (v *progressView) Item(verb string, done, total int, name, version string) {
	if v == nil {
		return
	}
	v.mu.Lock()
	if v.stopped {
		v.mu.Unlock()
		return
	}
	v.start()
	v.counting, v.verb, v.done, v.total = true, verb, done, total
	v.label = name
	if version != "" {
		v.label += " " + version
	}
	bar := v.bar
	v.mu.Unlock()
	bar.SetTotal(int64(total), false)
	bar.SetCurrent(int64(done))
}

// Stop takes the line away (before the result lines are printed, and at
// the end of the run); the view draws nothing after it.
func (v *progressView) Stop() {
	if v == nil {
		return
	}
	v.mu.Lock()
	if v.stopped {
		v.mu.Unlock()
		return
	}
	v.stopped = true
	p, bar := v.p, v.bar
	v.mu.Unlock()
	if bar == nil {
		return
	}
	bar.SetTotal(-1, true) // complete: BarRemoveOnComplete clears the line
	p.Wait()
	if v.above != nil {
		v.above(nil)
	}
}

// setAbove sends stderr lines to w while a progress line is drawn (mpb
// prints them above it), back to stderr when w is nil.
func (o *output) setAbove(w io.Writer) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if w == nil {
		o.stderr = o.plainErr
		return
	}
	if o.plainErr == nil {
		o.plainErr = o.stderr
	}
	o.stderr = w
}

// stopOnWrite is stdout while a progress line may be drawn: the first
// result line takes the progress line away, so that the two never mix.
type stopOnWrite struct {
	w    io.Writer
	stop func()
}

func (s stopOnWrite) Write(b []byte) (int, error) {
	s.stop()
	return s.w.Write(b)
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"
)

// Verbosity levels of the output layer: -q, the default, -v (the
// decisions: why this version, why this tier, retries) and -vv (every HTTP
// request). SKILLPM_LOG=debug is -v and SKILLPM_LOG=trace is -vv.
const (
	levelQuiet   = -1
	levelNormal  = 0
	levelVerbose = 1
	levelTrace   = 2
)

// logSchema names the JSON lines --output json writes on stderr for what
// is not the command's document (warnings, notes, decisions, requests).
const logSchema = "skillpm.log/v1"

// output is the one writer every command prints through, as Helm's
// pkg/cli/output is: results go to stdout; warnings, notes, decisions and
// request traces go to stderr, each only at its verbosity; in JSON mode
// stderr carries JSON lines only and stdout the command's document only;
// colour only where the stream is a terminal and the user did not turn it
// off; lines cut to the terminal's width where a table would wrap.
type output struct {
	stdout io.Writer
	stderr io.Writer
	level  int
	json   bool
	color  bool
	// width is the terminal's column count for stdout, 0 when it is not a
	// terminal (a pipe takes whole lines).
	width int
	// plainErr is stderr while a progress line sends stderr lines above
	// itself (setAbove).
	plainErr io.Writer
	mu       sync.Mutex
}

// termWidth is the column count of w when it is a terminal, else 0.
func termWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil || cols <= 0 {
		return 0
	}
	return cols
}

// useColor decides --color: always and never are what they say; auto is
// colour on a terminal unless NO_COLOR is set (https://no-color.org) or
// TERM is dumb. An explicit --color=always wins over NO_COLOR, as cargo's
// --color does.
func useColor(mode string, w io.Writer, getenv func(string) string) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		return isTerminal(w) && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb", nil
	}
	return false, fmt.Errorf("--color must be auto, always or never, not %q", mode)
}

// logLevel maps SKILLPM_LOG to a verbosity: debug is -v, trace is -vv;
// "" and info are the default. ok is false for any other value.
func logLevel(v string) (level int, ok bool) {
	switch strings.ToLower(v) {
	case "", "info":
		return levelNormal, true
	case "debug":
		return levelVerbose, true
	case "trace":
		return levelTrace, true
	}
	return levelNormal, false
}

// SGR colours.
const (
	sgrRed    = "\033[31m"
	sgrYellow = "\033[33m"
	sgrDim    = "\033[2m"
	sgrBold   = "\033[1m"
	sgrReset  = "\033[0m"
)

// paint wraps s in the colour sgr when colour is on.
func (o *output) paint(sgr, s string) string {
	if !o.color {
		return s
	}
	return sgr + s + sgrReset
}

// logLine writes one stderr line of kind (warning, note, decision,
// request): in JSON mode as {"schema", "level", "message"}, else as
// prefix+message, the prefix coloured.
func (o *output) logLine(kind, prefix, sgr, msg string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.json {
		writeLogJSON(o.stderr, kind, msg)
		return
	}
	if prefix != "" {
		prefix = o.paint(sgr, prefix)
	}
	fmt.Fprintln(o.stderr, prefix+termLines(msg))
}

// Warn reports something the command did that the user should look at
// (not shown with -q).
func (o *output) Warn(msg string) {
	if o.level < levelNormal {
		return
	}
	o.logLine("warning", "warning: ", sgrYellow+sgrBold, msg)
}

// Note reports progress or where something came from on stderr (not
// shown with -q).
func (o *output) Note(msg string) {
	if o.level < levelNormal {
		return
	}
	o.logLine("note", "", "", msg)
}

// Decision reports why skillpm chose what it chose (a version, a tier, a
// retry): shown with -v or SKILLPM_LOG=debug.
func (o *output) Decision(msg string) {
	if o.level < levelVerbose {
		return
	}
	o.logLine("debug", "debug: ", sgrDim, msg)
}

// Trace reports one HTTP request: shown with -vv or SKILLPM_LOG=trace.
func (o *output) Trace(msg string) {
	if o.level < levelTrace {
		return
	}
	o.logLine("trace", "trace: ", sgrDim, msg)
}

// Error writes the command's failure (run's last line): in JSON mode the
// error envelope, else "skillpm: message" with the prefix in red.
func (o *output) Error(class string, code int, msg string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.json {
		var e errorJSON
		e.Error.Class, e.Error.Code = class, code
		e.Error.Message, e.Error.Hint, _ = strings.Cut(msg, "\n\n")
		e.Error.Hint = strings.TrimSpace(e.Error.Hint)
		enc := json.NewEncoder(o.stderr)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(e)
		return
	}
	fmt.Fprintf(o.stderr, "%s %s\n", o.paint(sgrRed+sgrBold, "skillpm:"), termLines(msg))
}

// fit cuts a line of a table to the terminal's width, "..." marking the
// cut; a pipe gets the whole line.
func (o *output) fit(line string) string {
	if o.width <= 0 {
		return line
	}
	r := []rune(line)
	if len(r) <= o.width {
		return line
	}
	if o.width <= 3 {
		return string(r[:o.width])
	}
	return string(r[:o.width-3]) + "..."
}

// writeLogJSON writes one JSON line {"schema","level","message"}.
func writeLogJSON(w io.Writer, level, msg string) {
	b, _ := json.Marshal(struct {
		Schema  string `json:"schema"`
		Level   string `json:"level"`
		Message string `json:"message"`
	}{logSchema, level, msg})
	_, _ = w.Write(append(b, '\n'))
}

// jsonLines is stderr in JSON mode: every line written to it that is not
// already a JSON value becomes a {"schema","level":"note","message"} line,
// so that nothing a command writes there (a prompt, a library's log line)
// breaks a reader that parses stderr line by line. A line is held until
// its newline; Flush writes what is left.
type jsonLines struct {
	mu  sync.Mutex
	w   io.Writer
	buf bytes.Buffer
}

// Write implements io.Writer.
func (j *jsonLines) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.buf.Write(p)
	for {
		line, err := j.buf.ReadBytes('\n')
		if err != nil {
			// No newline yet: keep the partial line for the next write.
			rest := append([]byte(nil), line...)
			j.buf.Reset()
			j.buf.Write(rest)
			return len(p), nil
		}
		j.line(bytes.TrimRight(line, "\r\n"))
	}
}

// line writes one complete line.
func (j *jsonLines) line(l []byte) {
	if len(bytes.TrimSpace(l)) == 0 {
		return
	}
	if json.Valid(l) && bytes.HasPrefix(bytes.TrimSpace(l), []byte("{")) {
		_, _ = j.w.Write(append(append([]byte(nil), l...), '\n'))
		return
	}
	msg := strings.TrimPrefix(string(l), "skillpm: ")
	level := "note"
	if m, ok := strings.CutPrefix(msg, "warning: "); ok {
		level, msg = "warning", m
	}
	writeLogJSON(j.w, level, msg)
}

// Flush writes a last line that has no newline.
func (j *jsonLines) Flush() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.buf.Len() > 0 {
		j.line(j.buf.Bytes())
		j.buf.Reset()
	}
}

// tableOut is where a table is written: stdout, its lines cut to the
// terminal's width there (a cell that wrapped made a table unreadable),
// whole on a pipe.
func (g *globals) tableOut() io.Writer {
	o := g.o()
	if o.width <= 0 {
		return g.stdout
	}
	return &fitLines{o: o, w: g.stdout}
}

// fitLines cuts each line written through it with output.fit.
type fitLines struct {
	o   *output
	w   io.Writer
	buf []byte
}

func (f *fitLines) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	for {
		i := bytes.IndexByte(f.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if _, err := io.WriteString(f.w, f.o.fit(string(f.buf[:i]))+"\n"); err != nil {
			return 0, err
		}
		f.buf = f.buf[i+1:]
	}
}

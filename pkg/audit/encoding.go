package audit

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"unicode/utf16"
	"unicode/utf8"
)

// Encodings and sizes are no way around the audit: a script saved as
// UTF-16 or UTF-32 (with or without a byte order mark) is decoded, NUL
// bytes and bytes that are not UTF-8 are dropped or replaced before the
// analyses read the text (and reported), and a file over the per-file
// limit is read as a stream with its blank runs squeezed out, so padding
// does not hide a 65-byte command. What still cannot be analysed, when it
// is code, is AUD-CODE-OPAQUE: a block at community and verified.

// utfKind names a Unicode encoding form detected in raw bytes.
type utfKind int

const (
	utf8Form utfKind = iota
	utf16LE
	utf16BE
	utf32LE
	utf32BE
)

func (k utfKind) String() string {
	return [...]string{"UTF-8", "UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE"}[k]
}

// detectUTF finds UTF-16 and UTF-32 text: by its byte order mark, or, for
// text without one, by the zero bytes every ASCII character carries in
// the same place of each code unit.
func detectUTF(b []byte) (utfKind, int) {
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE, 0, 0}):
		return utf32LE, 4
	case bytes.HasPrefix(b, []byte{0, 0, 0xFE, 0xFF}):
		return utf32BE, 4
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return utf16LE, 2
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return utf16BE, 2
	}
	n := min(len(b), 4096)
	if n < 8 {
		return utf8Form, 0
	}
	var zero [4]int
	for i := 0; i < n; i++ {
		if b[i] == 0 {
			zero[i%4]++
		}
	}
	q := n / 4
	switch {
	case zero[1] > q*9/10 && zero[2] > q*9/10 && zero[3] > q*9/10 && zero[0] < q/2:
		return utf32LE, 0
	case zero[0] > q*9/10 && zero[1] > q*9/10 && zero[2] > q*9/10 && zero[3] < q/2:
		return utf32BE, 0
	case zero[1]+zero[3] > q*2*9/10 && zero[0]+zero[2] < q:
		return utf16LE, 0
	case zero[0]+zero[2] > q*2*9/10 && zero[1]+zero[3] < q:
		return utf16BE, 0
	}
	return utf8Form, 0
}

// decodeUTF decodes UTF-16 or UTF-32 text to UTF-8.
func decodeUTF(b []byte, k utfKind, bom int) []byte {
	b = b[bom:]
	var out []byte
	switch k {
	case utf16LE, utf16BE:
		var order binary.ByteOrder = binary.LittleEndian
		if k == utf16BE {
			order = binary.BigEndian
		}
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = order.Uint16(b[2*i:])
		}
		for _, r := range utf16.Decode(u) {
			out = utf8.AppendRune(out, r)
		}
	case utf32LE, utf32BE:
		var order binary.ByteOrder = binary.LittleEndian
		if k == utf32BE {
			order = binary.BigEndian
		}
		for i := 0; i+4 <= len(b); i += 4 {
			r := rune(order.Uint32(b[i:]))
			if !utf8.ValidRune(r) {
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		}
	}
	return out
}

// readableText is what the analyses read of a text file whose bytes are
// not clean UTF-8: NUL bytes dropped (no shell, interpreter or model sees
// them) and invalid bytes replaced.
func readableText(b []byte) []byte {
	if bytes.IndexByte(b, 0) >= 0 {
		b = bytes.ReplaceAll(b, []byte{0}, nil)
	}
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	return b
}

// maxSqueezedLine is where a line of a large file is cut into pieces.
const maxSqueezedLine = 1 << 20

// squeezed is a large file with its blank lines dropped and long runs of
// blanks shortened; lines maps each kept line to its line in the file.
type squeezed struct {
	data     []byte
	lines    []int
	complete bool
	size     int64
	sha256   string
}

// squeezeFile streams a file too large to read whole, keeping at most
// limit bytes of what is not blank.
// comment is the line-comment marker of the file's language ("" for
// none): whole-line comments after the first line are dropped too.
func squeezeFile(p string, limit int64, comment string) (*squeezed, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, h), 64<<10)
	sq := &squeezed{complete: true}
	line := 1
	var cur []byte
	flush := func() {
		t := squeezeBlanks(cur)
		if trimmed := bytes.TrimSpace(t); comment != "" && line > 1 && bytes.HasPrefix(trimmed, []byte(comment)) {
			t = nil
		}
		if len(bytes.TrimSpace(t)) > 0 {
			if sq.complete && int64(len(sq.data)+len(t)+1) > limit {
				sq.complete = false
			}
			if sq.complete {
				sq.data = append(append(sq.data, t...), '\n')
				sq.lines = append(sq.lines, line)
			}
		}
		cur = cur[:0]
	}
	for {
		chunk, err := br.ReadSlice('\n')
		sq.size += int64(len(chunk))
		nl := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if nl {
			chunk = chunk[:len(chunk)-1]
		}
		cur = append(cur, chunk...)
		if len(cur) > maxSqueezedLine {
			flush()
		}
		if nl {
			flush()
			line++
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			flush()
			break
		}
		if err != nil {
			return nil, err
		}
	}
	sq.sha256 = hex.EncodeToString(h.Sum(nil))
	return sq, nil
}

// squeezeBlanks cuts every run of spaces and tabs to at most 64 (enough
// for any honest indentation).
func squeezeBlanks(b []byte) []byte {
	out := make([]byte, 0, min(len(b), 4096))
	run := 0
	for _, c := range b {
		if c == ' ' || c == '\t' || c == '\r' {
			if run++; run <= 64 {
				out = append(out, c)
			}
			continue
		}
		run = 0
		out = append(out, c)
	}
	return out
}

// auditLarge reads a file over the per-file limit as a stream: when what
// is not blank fits the limit, it is audited like a small file, with
// findings placed on the file's own lines; otherwise code in it is opaque.
func (r *run) auditLarge(rel, p string, size int64) {
	lim := r.s.opts.Limits
	comment := ""
	if head, err := readHead(p, 512); err == nil {
		switch k, _ := classify(rel, head); k {
		case kindPython, kindShell:
			comment = "#"
		case kindJS, kindTS, kindTSX:
			comment = "//"
		}
	}
	sq, err := squeezeFile(p, lim.MaxFileBytes, comment)
	if err != nil {
		r.files = append(r.files, FileEntry{Path: rel, Kind: "skipped"})
		r.add(Finding{Rule: RuleFileUnreadable, File: rel, Message: "could not be read: " + errText(err)})
		return
	}
	head := sq.data
	if len(head) > 512 {
		head = head[:512]
	}
	kind, _ := classify(rel, head)
	if !sq.complete && (kind == kindSkill || kind == kindMarkdown || kind == kindText) {
		// Instructions are read in full, in chunks: a payload after the
		// padding is read like one before it.
		r.files = append(r.files, FileEntry{Path: rel, SHA256: sq.sha256, Kind: kind.String()})
		r.add(Finding{Rule: RuleFileUnreadable, File: rel,
			Message: fmt.Sprintf("is %d bytes, over the audit's limit of %d; it was audited in chunks, so Markdown constructs across a chunk boundary are read apart", size, lim.MaxFileBytes)})
		if err := r.streamInstructions(rel, p, kind, int(lim.MaxFileBytes), lim.MaxTotalBytes); err != nil {
			r.add(Finding{Rule: RuleFileUnreadable, File: rel, Message: "could not be read to the end: " + errText(err)})
		}
		return
	}
	if !sq.complete {
		r.files = append(r.files, FileEntry{Path: rel, SHA256: sq.sha256, Kind: kind.String()})
		msg := fmt.Sprintf("is %d bytes, and more than the audit's limit of %d bytes of it is not blank; it was not audited", size, lim.MaxFileBytes)
		if kind.isCode() || kind == kindBinary || kind == kindUnsupported {
			r.add(Finding{Rule: RuleCodeOpaque, File: rel, Message: msg + ": code the audit cannot read blocks at community and verified"})
		} else {
			r.add(Finding{Rule: RuleFileUnreadable, File: rel, Message: msg})
		}
		return
	}
	r.add(Finding{Rule: RuleFileUnreadable, File: rel,
		Message: fmt.Sprintf("is %d bytes, over the audit's limit of %d; it was audited with its blank runs squeezed out (%d bytes)", size, lim.MaxFileBytes, len(sq.data))})
	r.lineMap, r.lineMapFile = sq.lines, rel
	defer func() { r.lineMap, r.lineMapFile = nil, "" }()
	r.auditContent(rel, sq.data, sq.sha256)
}

// chunkBytes is the size of the chunks an over-limit instruction file is
// read in; a chunk ends at a blank line when one is near, else at a line.
const chunkBytes = 1 << 20

// streamInstructions reads an instruction file of any size in chunks of
// whole lines and runs the Unicode and instruction scans on each, with
// findings on the file's own lines. Reading is bounded by the file (the
// so the audit's time stays proportional to what it was given, and never
// goes past maxBytes (the skill's total limit): what lies beyond is
// reported unread.
func (r *run) streamInstructions(rel, p string, kind fileKind, maxLine int, maxBytes int64) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	first := 1
	var chunk []byte
	var read int64
	flush := func() {
		if len(chunk) == 0 {
			return
		}
		data := chunk
		if !utf8.Valid(data) {
			data = readableText(data)
		}
		data = bytes.ReplaceAll(data, []byte{0}, nil)
		n := bytes.Count(data, []byte{'\n'}) + 1
		lines := make([]int, n)
		for i := range lines {
			lines[i] = first + i
		}
		r.lineMap, r.lineMapFile = lines, rel
		r.scanUnicode(rel, data, true)
		if kind == kindText {
			r.scanPlainText(rel, data, 1)
		} else {
			r.analyzeFences(rel, r.scanMarkdown(rel, data, 1))
		}
		r.lineMap, r.lineMapFile = nil, ""
		first += bytes.Count(chunk, []byte{'\n'})
		chunk = chunk[:0]
	}
	for {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: keep reading it, up to the
			// per-file limit, then cut it.
			for err == bufio.ErrBufferFull && len(chunk)+len(line) < maxLine {
				chunk = append(chunk, line...)
				line, err = br.ReadSlice('\n')
			}
		}
		chunk = append(chunk, line...)
		if read += int64(len(line)); read > maxBytes {
			flush()
			r.add(Finding{Rule: RuleFileUnreadable, File: rel, Line: first,
				Message: fmt.Sprintf("was read up to the audit's total limit of %d bytes; the rest was not audited", maxBytes)})
			return nil
		}
		blank := len(bytes.TrimSpace(line)) == 0
		if len(chunk) >= chunkBytes && (blank || len(chunk) >= 2*chunkBytes) {
			flush()
		}
		if err == io.EOF {
			flush()
			return nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return err
		}
	}
}

// readHead reads the first n bytes of a file.
func readHead(p string, n int) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return b[:k], err
}

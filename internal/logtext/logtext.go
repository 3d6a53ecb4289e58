// Package logtext reads a log the way a user hands it over: as written, or
// compressed the way rotated logs are (gzip, zstd, bzip2), told by its
// first bytes rather than its name. Input that is not text at all (an
// archive, an image, a core dump) is refused with an error that says so,
// so that it is never reported as a log with no problems.
package logtext

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// ErrBinary is returned for input that is not text.
var ErrBinary = errors.New("not a text log: binary data")

// sample is how much of the (decompressed) start is looked at.
const sample = 64 << 10

// Magic numbers of the compressed formats.
var (
	gzipMagic  = []byte{0x1f, 0x8b}
	zstdMagic  = []byte{0x28, 0xb5, 0x2f, 0xfd}
	bzip2Magic = []byte("BZh")
	xzMagic    = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	lz4Magic   = []byte{0x04, 0x22, 0x4d, 0x18}
)

// Reader is a log's text: Format names the compression it was read
// through ("" for none). Close releases the decoder.
type Reader struct {
	io.Reader
	Format string
	close  func()
}

// Close releases what reading the format holds.
func (r *Reader) Close() {
	if r.close != nil {
		r.close()
	}
}

// Open returns the text of the log r holds. It fails for a compressed
// format it cannot read (naming the command that can) and, with
// ErrBinary, for data that is not text.
func Open(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, sample)
	head, _ := br.Peek(8)
	out := &Reader{Reader: br}
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		// Several members one after the other (logs appended to a .gz)
		// are read as one stream, as zcat does.
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		out.Reader, out.Format = z, "gzip"
	case bytes.HasPrefix(head, zstdMagic):
		z, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		out.Reader, out.Format, out.close = z, "zstd", z.Close
	case bytes.HasPrefix(head, bzip2Magic) && len(head) >= 4 && head[3] >= '1' && head[3] <= '9':
		out.Reader, out.Format = bzip2.NewReader(br), "bzip2"
	case bytes.HasPrefix(head, xzMagic):
		return nil, errors.New("xz-compressed: read it through xz -dc FILE | tailfix scan -")
	case bytes.HasPrefix(head, lz4Magic):
		return nil, errors.New("lz4-compressed: read it through lz4 -dc FILE | tailfix scan -")
	}
	if out.Format != "" {
		// Look at the text inside.
		text := bufio.NewReaderSize(out.Reader, sample)
		out.Reader = text
		start, err := text.Peek(sample)
		switch {
		case len(start) > 0 && Binary(start):
			out.Close()
			return nil, fmt.Errorf("%s-compressed, and inside: %w", out.Format, ErrBinary)
		case len(start) == 0 && err != nil && !errors.Is(err, io.EOF):
			out.Close()
			return nil, fmt.Errorf("%s: %w", out.Format, err)
		}
		// A stream cut short gives what it holds; reading returns the
		// error after it.
		return out, nil
	}
	if start, _ := br.Peek(sample); Binary(start) {
		return nil, ErrBinary
	}
	return out, nil
}

// Binary reports whether the start of some input is not text. Runs of NUL
// bytes do not count: a log truncated while its writer kept its offset
// starts with a hole of NULs, then goes on as text. Of the rest, text has
// almost no control bytes other than tab, newline, carriage return, form
// feed and escape (colours), and is mostly valid UTF-8 (a log may hold
// some stray bytes); data has many of both.
func Binary(b []byte) bool {
	var odd, n int
	for len(b) > 0 {
		c := b[0]
		switch {
		case c == 0:
			b = b[1:]
			continue
		case c < utf8.RuneSelf:
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b || c == 0x7f {
				odd++
			}
			n++
			b = b[1:]
		default:
			r, size := utf8.DecodeRune(b)
			if r == utf8.RuneError && size <= 1 {
				odd++
				size = 1
			}
			n++
			b = b[size:]
		}
	}
	return n > 0 && odd*10 > n
}

package logtext

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

const small = "[2026-11-29 10:15:02 TP0] Load weight begin. avail mem=78.52 GB\n" +
	"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"

func gz(t testing.TB, parts ...string) []byte {
	var b bytes.Buffer
	for _, p := range parts { // each part a member of its own, as appended logs are
		w := gzip.NewWriter(&b)
		w.Write([]byte(p))
		w.Close()
	}
	return b.Bytes()
}

func zst(t testing.TB, s string) []byte {
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func file(t testing.TB, name string) []byte {
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOpen(t *testing.T) {
	noise := make([]byte, 20000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.UintN(256))
	}
	tests := []struct {
		name    string
		in      []byte
		format  string
		text    string // what is read; "" with wantErr
		wantErr string
	}{
		{name: "plain", in: []byte(small), text: small},
		{name: "empty", in: nil, text: ""},
		{name: "gzip", in: gz(t, small), format: "gzip", text: small},
		{name: "gzip of several members", in: gz(t, small[:20], small[20:]), format: "gzip", text: small},
		{name: "zstd", in: zst(t, small), format: "zstd", text: small},
		{name: "bzip2", in: file(t, "small.log.bz2"), format: "bzip2", text: small},
		{name: "a truncated log's hole of NULs, then text", in: append(make([]byte, 100000), small...), text: string(make([]byte, 100000)) + small},
		{name: "colours, tabs, CRLF and a few stray bytes", in: []byte("\x1b[31mERROR\x1b[0m\tx\r\n\xff\xfe caf\xc3\xa9\n" + strings.Repeat("ok line\n", 20)),
			text: "\x1b[31mERROR\x1b[0m\tx\r\n\xff\xfe caf\xc3\xa9\n" + strings.Repeat("ok line\n", 20)},
		{name: "random bytes", in: noise, wantErr: "not a text log: binary data"},
		{name: "random bytes, gzipped", in: gz(t, string(noise)), wantErr: "gzip-compressed, and inside: not a text log"},
		{name: "xz", in: file(t, "small.log.xz"), wantErr: "xz-compressed: read it through xz -dc"},
		{name: "a broken gzip header", in: []byte{0x1f, 0x8b, 0x00, 0x00}, wantErr: "gzip: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Open(bytes.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if r.Format != tt.format || string(got) != tt.text {
				t.Errorf("format %q, %d bytes; want %q, %d bytes", r.Format, len(got), tt.format, len(tt.text))
			}
		})
	}
	if _, err := Open(bytes.NewReader(noise)); !errors.Is(err, ErrBinary) {
		t.Errorf("random bytes: %v is not ErrBinary", err)
	}
}

// A gzip stream cut short (a log being compressed while it was read)
// gives what it held, then the error.
func TestTruncatedGzip(t *testing.T) {
	full := gz(t, strings.Repeat(small, 200))
	r, err := Open(bytes.NewReader(full[:len(full)/2]))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.HasPrefix(strings.Repeat(small, 200), string(got)) {
		t.Errorf("%d bytes, %v", len(got), err)
	}
}

// Whatever the input, Open does not panic, and text it takes as it is
// comes out byte for byte.
func FuzzOpen(f *testing.F) {
	f.Add([]byte(small))
	f.Add(gz(f, small))
	f.Add(append(make([]byte, 10), small...))
	f.Add([]byte{0x1f, 0x8b})
	f.Add([]byte("BZh9"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := Open(bytes.NewReader(in))
		if err != nil {
			return
		}
		defer r.Close()
		got, err := io.ReadAll(io.LimitReader(r, 1<<20))
		if r.Format == "" && (err != nil || !bytes.Equal(got, in[:min(len(in), 1<<20)])) {
			t.Fatalf("plain input changed: %v", err)
		}
	})
}

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Progress is shown only on a terminal, and only for a big file.
func TestProgressOnlyOnATerminalForABigFile(t *testing.T) {
	tty, _ := openTerminal(t)
	tests := []struct {
		name string
		w    io.Writer
		size int64
		want bool
	}{
		{"a pipe or a file", &bytes.Buffer{}, 1 << 30, false},
		{"a terminal, a small file", tty, progressMin - 1, false},
		{"a terminal, a big file", tty, progressMin, true},
		{"a terminal, stdin of unknown size", tty, 0, false},
	}
	for _, tt := range tests {
		if got := wantsProgress(tt.w, tt.size); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The line says how much is read of how much, how fast, the time left and
// the errors so far.
func TestProgressLine(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		read  int64
		after time.Duration
		found int
		want  string
	}{
		{100 << 20, 2 * time.Second, 3, "scanning big\\x1b.log: 100 MiB of 400 MiB (25%) · 52 MB/s · 6s left · 3 errors so far"},
		{0, 0, 0, "scanning big\\x1b.log: 0 MiB of 400 MiB (0%) · no errors so far"},
		{400 << 20, 4 * time.Second, 1, "scanning big\\x1b.log: 400 MiB of 400 MiB (100%) · 105 MB/s · 0s left · 1 error so far"},
	}
	for _, tt := range tests {
		p := &progress{name: "big\\x1b.log", total: 400 << 20, start: t0,
			now: func() time.Time { return t0.Add(tt.after) }, found: func() int { return tt.found }}
		p.read.Store(tt.read)
		if got := p.line(); got != tt.want {
			t.Errorf("line:\n got %q\nwant %q", got, tt.want)
		}
	}
}

// The line is redrawn in place while bytes come, and cleared at the end.
func TestProgressRedrawsAndClears(t *testing.T) {
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = 5 * time.Millisecond
	var mu sync.Mutex
	var out bytes.Buffer
	w := writerFunc(func(b []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(b) })
	written := func() string { mu.Lock(); defer mu.Unlock(); return out.String() }
	const line = "\r\x1b[Kscanning x.log: 1 MiB of 2 MiB (50%)"
	pr, pw := io.Pipe()
	p := startProgress(w, "x.log", 2<<20, func() int { return 2 })
	go func() {
		pw.Write(make([]byte, 1<<20))
		// Half is read: wait for the line that says so (it comes within
		// a few ticks; a starved test machine may take longer).
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !strings.Contains(written(), line); {
			time.Sleep(progressEvery)
		}
		pw.Close()
	}()
	io.Copy(io.Discard, p.reader(pr))
	p.finish()
	got := written()
	if !strings.Contains(got, line) || !strings.Contains(got, "2 errors so far") {
		t.Errorf("no progress line drawn: %q", got)
	}
	if !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("the line is not cleared at the end: %q", got)
	}
}

// A scan to a terminal draws and clears the line on stderr; a scan whose
// stderr is a file writes nothing there.
func TestScanProgressOnlyOnTerminal(t *testing.T) {
	defer func(n int64) { progressMin = n }(progressMin)
	progressMin = 1
	dir := t.TempDir()
	name := filepath.Join(dir, "server.log")
	if err := os.WriteFile(name, []byte("[2026-11-29 10:00:00] The server is fired up and ready to roll!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tty, finish := openTerminal(t)
	var stdout bytes.Buffer
	run([]string{"scan", name}, strings.NewReader(""), &stdout, tty, func(string) string { return "" })
	if got := finish(); !strings.Contains(got, "\x1b[K") {
		t.Errorf("no progress line on the terminal: %q", got)
	}
	var stderr bytes.Buffer
	run([]string{"scan", name}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	if strings.Contains(stderr.String(), "\x1b[K") || strings.Contains(stderr.String(), "scanning") {
		t.Errorf("progress written to a file: %q", stderr.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

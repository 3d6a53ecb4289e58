package main

import (
	"io"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
)

// closedPipe is a stdout whose reader goes away, as `tailfix … | head`
// leaves it once head has read its lines: it takes the first accept
// bytes, then every write fails with EPIPE.
type closedPipe struct {
	accept int
	writes int
}

func (c *closedPipe) Write(p []byte) (int, error) {
	c.writes++
	if len(p) <= c.accept {
		c.accept -= len(p)
		return len(p), nil
	}
	n := c.accept
	c.accept = 0
	return n, syscall.EPIPE
}

// Regression: a broken stdout pipe is not an error. scan says nothing on
// stderr and still exits by what it found; the pipe stops reading, as cat
// does, and exits by what it had read: a server's own lines never pass
// unseen, but nothing is read that no one will see.
func TestBrokenStdoutPipe(t *testing.T) {
	const oomLog = "../../testdata/logs/oom-tp4-sigquit.log"
	tests := []struct {
		name       string
		args       []string
		stdin      string
		byteByByte bool // stdin read one byte at a time
		accept     int  // bytes stdout takes before its reader goes away
		wantCode   int
		wantStderr []string // each must appear; none: stderr must be empty
	}{
		{name: "scan text", args: []string{"scan", oomLog}, wantCode: exitFound},
		{name: "scan json", args: []string{"scan", "--format", "json", oomLog}, wantCode: exitFound},
		{name: "scan stdin", args: []string{"scan", "-"}, stdin: dyingServer, wantCode: exitFound},
		{
			name: "scan, healthy input", args: []string{"scan", "-"}, accept: 10,
			stdin: "[2026-11-29 10:15:02 TP0] Load weight begin. avail mem=78.52 GB\n", wantCode: exitOK,
		},
		{
			name: "pipe", stdin: dyingServer, wantCode: exitFound,
			wantStderr: []string{"torch/cuda-oom", "1 finding in stdin"},
		},
		{
			name: "pipe, reader leaves after the first line", stdin: dyingServer, byteByByte: true,
			accept: strings.IndexByte(dyingServer, '\n') + 1, wantCode: exitOK,
		},
		{
			name: "pipe, reader leaves inside the error line", stdin: dyingServer, byteByByte: true,
			accept: len(dyingServer) - 10, wantCode: exitFound,
			wantStderr: []string{"torch/cuda-oom", "1 finding in stdin"},
		},
		{
			name: "pipe, healthy input", stdin: "[2026-11-29 10:15:02 TP0] Load weight begin. avail mem=78.52 GB\n",
			wantCode: exitOK,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout := &closedPipe{accept: tt.accept}
			var stdin io.Reader = strings.NewReader(tt.stdin)
			if tt.byteByByte {
				stdin = iotest.OneByteReader(stdin)
			}
			var stderr strings.Builder
			code := run(tt.args, stdin, stdout, &stderr, func(string) string { return "" })
			if code != tt.wantCode {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			if stdout.writes == 0 || stdout.accept > 0 {
				t.Error("stdout's reader never went away")
			}
			if strings.Contains(stderr.String(), "tailfix: error") {
				t.Errorf("stderr reports an error:\n%s", stderr.String())
			}
			for _, want := range tt.wantStderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			if tt.wantStderr == nil && stderr.Len() > 0 {
				t.Errorf("stderr = %q, want it empty", stderr.String())
			}
		})
	}
}

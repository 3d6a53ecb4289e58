package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// --output sends findings to a file in every mode; the streams keep what
// is theirs: the pipe's stdout the server's bytes, and no findings.
func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		args  []string
		stdin string
	}{
		{"scan", []string{"scan", "-"}, dyingServer},
		{"pipe", nil, dyingServer},
		{"explain", []string{"explain", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, tt.name+".txt")
			var stdout, stderr bytes.Buffer
			run(append([]string{"--output", out, "--color", "never"}, tt.args...), strings.NewReader(tt.stdin), &stdout, &stderr, func(string) string { return "" })
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), "torch/cuda-oom") {
				t.Errorf("the file lacks the finding:\n%s", got)
			}
			if strings.Contains(stdout.String()+stderr.String(), "torch/cuda-oom") {
				t.Errorf("findings still reached the streams:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			}
			if tt.args == nil && stdout.String() != tt.stdin {
				t.Errorf("the pipe's stdout is not its input: %q", stdout.String())
			}
		})
	}
	var stderr bytes.Buffer
	code := run([]string{"--output", filepath.Join(dir, "no", "such", "dir", "x"), "scan", "-"}, strings.NewReader(""), &bytes.Buffer{}, &stderr, func(string) string { return "" })
	if code != exitUsageErr || !strings.Contains(stderr.String(), "tailfix: error: cannot write findings to") {
		t.Errorf("an unwritable --output: status %d, %q", code, stderr.String())
	}
}

// COLUMNS sets the width text is wrapped at, the lines of a command
// aside.
func TestColumnsSetsTheWidth(t *testing.T) {
	widest := func(cols string) int {
		var stdout bytes.Buffer
		run([]string{"--color", "never", "scan", "-"}, strings.NewReader(dyingServer), &stdout, &bytes.Buffer{},
			func(k string) string {
				if k == "COLUMNS" {
					return cols
				}
				return ""
			})
		w := 0
		for _, l := range strings.Split(stdout.String(), "\n") {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "+ ") {
				continue // a command line is not wrapped, so that it can be copied
			}
			w = max(w, len([]rune(l)))
		}
		return w
	}
	if w := widest("60"); w > 60 {
		t.Errorf("COLUMNS=60: a line of %d columns", w)
	}
	if w := widest(""); w <= 60 {
		t.Errorf("no COLUMNS: the widest line has %d columns, as if it were set", w)
	}
}

// follow --format json writes JSON Lines to stdout, one finding a line,
// and nothing else there.
func TestFollowJSONOnStdout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	log := filepath.Join(t.TempDir(), "server.log")
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"--format", "json", "follow", "--poll", "20ms", log}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	}()
	waitFor(t, "follow to start", func() bool { return strings.Contains(stderr.String(), "waiting for") })
	appendTo(t, log, dyingServer) // a file that appears is read from its start
	waitFor(t, "the finding", func() bool { return strings.Contains(stdout.String(), "torch/cuda-oom") })
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitExit(t, code, exitFound, "follow did not stop on Ctrl-C")
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var f map[string]any
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Errorf("not a JSON line: %q", line)
		}
	}
}

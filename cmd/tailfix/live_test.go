package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// syncBuffer is a bytes.Buffer safe for the writers of a live run.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitExit waits for run's exit status, failing with stuck when it does
// not come.
func waitExit(t *testing.T, code <-chan int, want int, stuck string) {
	t.Helper()
	select {
	case c := <-code:
		if c != want {
			t.Errorf("exit status %d, want %d", c, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal(stuck)
	}
}

// waitFor polls until cond holds or 20 seconds pass. The deadline is far
// above what any of these waits takes (milliseconds): under go test -race
// with every package running at once on two cores, a follower's goroutines
// can be starved for seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

const dyingServer = "[2026-11-29 10:15:02 TP0] Load weight begin. avail mem=78.52 GB\n" +
	"[2026-11-29 10:15:03 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
	"  File \"/x/model_runner.py\", line 1090, in load_model\n" +
	"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"

// The pipe hints at a traceback as soon as the input goes quiet after it,
// before the input ends, and passes every byte through.
func TestPipeHintsWhileTheInputIsOpen(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	pr, pw := io.Pipe()
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(nil, pr, &stdout, &stderr, func(string) string { return "" })
	}()
	io.WriteString(pw, dyingServer)
	waitFor(t, "the hint", func() bool { return strings.Contains(stderr.String(), "torch/cuda-oom") })
	io.WriteString(pw, "no newline at the end")
	pw.Close()
	if c := <-code; c != exitFound {
		t.Errorf("exit status %d, want %d", c, exitFound)
	}
	if got := stdout.String(); got != dyingServer+"no newline at the end" {
		t.Errorf("stdout is not the input: %q", got)
	}
	if !strings.Contains(stderr.String(), "1 finding in stdin (5 lines)") {
		t.Errorf("no summary in stderr:\n%s", stderr.String())
	}
}

// Ctrl-C twice stops the pipe at once with the summary, even when the
// input never ends; nothing is left running.
func TestPipeStopsOnInterrupt(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(),
		// The reader stays blocked on the input, which never ends; it
		// exits with the process.
		goleak.IgnoreTopFunction("io.(*pipe).read"))
	pr, pw := io.Pipe()
	defer pw.Close()
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(nil, pr, &stdout, &stderr, func(string) string { return "" })
	}()
	io.WriteString(pw, dyingServer)
	waitFor(t, "the hint", func() bool { return strings.Contains(stderr.String(), "torch/cuda-oom") })
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	time.Sleep(20 * time.Millisecond)
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitExit(t, code, exitFound, "the pipe did not stop on Ctrl-C")
	if !strings.Contains(stderr.String(), "1 finding in stdin") {
		t.Errorf("no summary after Ctrl-C:\n%s", stderr.String())
	}
}

// run passes the child's output through, hints, and exits with its status.
func TestRunKeepsTheChildsStatus(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tests := []struct {
		name   string
		script string
		code   int
	}{
		{"success", "printf 'hello\\n'", 0},
		{"failure", "printf 'hello\\n'; exit 3", 3},
		{"killed by a signal", "printf 'hello\\n'; kill -TERM $$", 128 + int(syscall.SIGTERM)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr syncBuffer
			code := run([]string{"run", "--", "sh", "-c", tt.script}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
			if code != tt.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			if stdout.String() != "hello\n" {
				t.Errorf("stdout %q", stdout.String())
			}
		})
	}
	var stderr syncBuffer
	if code := run([]string{"run", "--", "no-such-command-here"}, strings.NewReader(""), io.Discard, &stderr, func(string) string { return "" }); code != 127 {
		t.Errorf("a missing command: exit status %d, want 127", code)
	}
	if !strings.Contains(stderr.String(), `cannot run "no-such-command-here"`) {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// run hints at the child's errors as they come, passes its stderr through,
// and forwards Ctrl-C to it.
func TestRunHintsAndForwardsSignals(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	log := strings.ReplaceAll(dyingServer, "\n", "\\n")
	script := "trap 'printf \"stopping\\n\" >&2; exit 42' INT; printf '" + log + "' >&2; while :; do sleep 0.05; done"
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"run", "--", "sh", "-c", script}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	}()
	waitFor(t, "the hint", func() bool { return strings.Contains(stderr.String(), "torch/cuda-oom") })
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitExit(t, code, 42, "the child did not get Ctrl-C")
	got := stderr.String()
	if !strings.Contains(got, dyingServer) || !strings.Contains(got, "stopping\n") {
		t.Errorf("the child's stderr was not passed through:\n%s", got)
	}
	if !strings.Contains(got, "1 finding in stdout, stderr") {
		t.Errorf("no summary:\n%s", got)
	}
}

// follow hints at each file's errors on stdout as they are written,
// labelled with the file, follows files that match later, warns on stderr
// about a file it cannot read and keeps the others, and on Ctrl-C stops
// with a summary for each unrelated file and nothing left running.
func TestFollowFilesUntilInterrupted(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	a := filepath.Join(dir, "prefill.log")
	if err := os.WriteFile(a, []byte("RuntimeError: CUDA error: out of memory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A path that cannot be read, even by root: a symlink to itself.
	bad := filepath.Join(dir, "bad.log")
	if err := os.Symlink(bad, bad); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"follow", "--color", "never", "--poll", "20ms", a, bad, filepath.Join(dir, "decode-*.log")},
			strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	}()
	waitFor(t, "the warning", func() bool {
		return strings.Contains(stderr.String(), "bad.log: stat: too many levels of symbolic links; following the others")
	})
	time.Sleep(100 * time.Millisecond)
	appendTo(t, a, dyingServer)
	waitFor(t, "the hint for prefill.log", func() bool { return strings.Contains(stdout.String(), "["+a+"]  ERROR  GPU ran out of memory") })
	appendTo(t, filepath.Join(dir, "decode-0.log"), "[2026-11-29 10:15:02] Received sigquit from a child process. It usually means the child failed.\n")
	waitFor(t, "the hint for decode-0.log", func() bool { return strings.Contains(stdout.String(), "decode-0.log]  ERROR  A child process failed") })
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitExit(t, code, exitFound, "follow did not stop on Ctrl-C")
	got := stdout.String()
	if strings.Contains(got, "CUDA error: out of memory") {
		t.Errorf("follow read what was there before it started:\n%s", got)
	}
	for _, name := range []string{a, filepath.Join(dir, "decode-0.log")} {
		if !strings.Contains(got, "1 finding in "+name+" (") {
			t.Errorf("no summary of %s on its own:\n%s", name, got)
		}
	}
	if strings.Contains(got, "symptom of torch/cuda-oom") {
		t.Errorf("a symptom in one file was linked to a cause in an unrelated one:\n%s", got)
	}
	if strings.Contains(stderr.String(), "ERROR") {
		t.Errorf("follow wrote findings to stderr: %q", stderr.String())
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// Awkward bytes pass through the pipe exactly: a line longer than what is
// matched, NUL, invalid UTF-8, CRLF, escapes, no final newline.
func TestPipeIsByteExact(t *testing.T) {
	in := "start\nRuntimeError: CUDA error: out of memory " + strings.Repeat("x", 3<<20) +
		"\n\x00\xff\xfe\r\n\x1b[31mred\x1b[0m\rbar 100%\nlast line without newline"
	var stdout, stderr syncBuffer
	code := run(nil, strings.NewReader(in), &stdout, &stderr, func(string) string { return "" })
	if code != exitFound {
		t.Errorf("exit status %d, want %d", code, exitFound)
	}
	if stdout.String() != in {
		t.Errorf("stdout differs from stdin (%d bytes, want %d)", len(stdout.String()), len(in))
	}
	if !strings.Contains(stderr.String(), "torch/cuda-oom · line 2") {
		t.Errorf("the error on the long line was not found:\n%s", stderr.String())
	}
}

// run knows the launch command: a fix is written in its flags, as the
// user spelt them, whether the server fails before it logs its
// configuration or after.
func TestRunWritesFixesInTheCommandsFlags(t *testing.T) {
	const crash = "Exception in thread Thread-9 (transfer_worker):\nTraceback (most recent call last):\n" +
		"  File \"/x/sglang/srt/disaggregation/mooncake/conn.py\", line 1402, in maybe_send_extra\n" +
		"RuntimeError: PD disagg: PP>1 not supported for MiniMax sparse index yet.\n"
	const serverArgs = "[2026-03-04 09:10:58] server_args=ServerArgs(model_path='MiniMaxAI/MiniMax-M3', tp_size=2, pp_size=4, disaggregation_mode='prefill', port=30000)\n"
	tests := []struct {
		name, log string
		flags     []string
		want      string
	}{
		{"before its configuration", crash, []string{"--tp-size", "2", "--pp-size", "4"},
			`"before":"--disaggregation-mode prefill --tp-size 2 --pp-size 4","after":"--disaggregation-mode prefill --tp-size 8 --pp-size 1"`},
		{"after its configuration, in the user's spelling", serverArgs + crash, []string{"--tp", "2", "--pp-size", "4"},
			`"before":"--disaggregation-mode prefill --tp 2 --pp-size 4","after":"--disaggregation-mode prefill --tp 8 --pp-size 1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "server.sh")
			body := "#!/bin/sh\ncat >&2 <<'LOG'\n" + tt.log + "LOG\nexit 1\n"
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr syncBuffer
			args := append([]string{"run", "--format", "json", "--", script, "--model-path", "MiniMaxAI/MiniMax-M3",
				"--disaggregation-mode", "prefill"}, tt.flags...)
			code := run(args, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
			if code != 1 {
				t.Errorf("exit status %d, want the child's 1", code)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("the fix is not in the command's flags, want %s:\n%s", tt.want, stderr.String())
			}
		})
	}
}

// failWriter fails every write, as a full disk or a closed terminal does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// run keeps the child's exit status when its own stderr fails, finding or
// not.
func TestRunKeepsTheStatusWhenStderrFails(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	script := "printf 'RuntimeError: CUDA error: out of memory\\n' >&2; exit 3"
	if code := run([]string{"run", "--", "sh", "-c", script}, strings.NewReader(""), io.Discard, failWriter{}, func(string) string { return "" }); code != 3 {
		t.Errorf("exit status %d, want the child's 3", code)
	}
}

// A hint waits for the child's line to end: it never lands inside a line
// the child is writing in pieces.
func TestRunHintsBetweenWholeLines(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	script := "printf 'RuntimeError: CUDA error: out of memory\\n' >&2; sleep 0.05; printf 'a line written in ' >&2; sleep 0.15; printf 'two pieces\\n' >&2"
	var stderr syncBuffer
	run([]string{"run", "--color", "never", "--", "sh", "-c", script}, strings.NewReader(""), io.Discard, &stderr, func(string) string { return "" })
	if got := stderr.String(); !strings.Contains(got, "a line written in two pieces\n") {
		t.Errorf("a hint split the child's line:\n%s", got)
	}
}

// follow finds the files of pods that start after it, in the kubelet's
// layout: /var/log/pods/NAMESPACE_POD_UID/CONTAINER/N.log, named by a glob
// with a wildcard at every level.
func TestFollowPodLogsThatComeLater(t *testing.T) {
	root := t.TempDir()
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"follow", "--color", "never", "--poll", "20ms", filepath.Join(root, "*", "*", "*.log")},
			strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	}()
	waitFor(t, "follow to wait", func() bool { return strings.Contains(stderr.String(), "no file matches") })
	dir := filepath.Join(root, "llm_sglang-decode-7c9f_0b6e1a2c", "sglang")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "0.log")
	appendTo(t, log, dyingServer)
	waitFor(t, "the pod's finding", func() bool { return strings.Contains(stdout.String(), "["+log+"]  ERROR  GPU ran out of memory") })
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitExit(t, code, exitFound, "follow did not stop on Ctrl-C")
}

package main

import (
	"bytes"
	"io"
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

// waitFor polls until cond holds or a few seconds pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
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
	select {
	case c := <-code:
		if c != exitFound {
			t.Errorf("exit status %d, want %d", c, exitFound)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the pipe did not stop on Ctrl-C")
	}
	if !strings.Contains(stderr.String(), "1 finding in stdin") {
		t.Errorf("no summary after Ctrl-C:\n%s", stderr.String())
	}
}

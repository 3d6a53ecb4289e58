package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// follow says once which patterns name nothing yet, reads such a file
// from its beginning when it appears, and after the file is truncated
// numbers its lines from 1 again.
func TestFollowNotesAndRestarts(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	log := filepath.Join(dir, "server.log")
	glob := filepath.Join(dir, "decode-*.log")
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"follow", "--color", "never", "--poll", "20ms", log, glob},
			strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	}()
	notes := "tailfix: note: waiting for " + log + " to appear\n" +
		"tailfix: note: no file matches " + glob + " yet; waiting\n"
	waitFor(t, "the notes", func() bool { return strings.Contains(stderr.String(), notes) })
	appendTo(t, log, dyingServer)
	waitFor(t, "the first hint", func() bool { return strings.Contains(stdout.String(), "at "+log+":2-4 ") })
	if err := os.Truncate(log, 0); err != nil {
		t.Fatal(err)
	}
	appendTo(t, log, "[2026-11-29 10:16:00] starting again\n"+
		"[2026-11-29 10:16:02] Received sigquit from a child process. It usually means the child failed.\n")
	waitFor(t, "the hint after the truncation", func() bool { return strings.Contains(stdout.String(), "A child process failed") })
	if got := stdout.String(); !strings.Contains(got, "at "+log+":2 ") {
		t.Errorf("the hint after the truncation does not give line 2:\n%s", got)
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitExit(t, code, exitFound, "follow did not stop on Ctrl-C")
	if got := stderr.String(); strings.Count(got, "tailfix: note:") != 2 {
		t.Errorf("want each note once:\n%s", got)
	}
}

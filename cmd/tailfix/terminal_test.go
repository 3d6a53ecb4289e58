package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openTerminal opens a pseudo-terminal. It returns its terminal side, and
// a function that closes it and returns what was written to it.
func openTerminal(t *testing.T) (*os.File, func() string) {
	t.Helper()
	mfd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	master := os.NewFile(uintptr(mfd), "/dev/ptmx")
	n, err := unix.IoctlGetInt(mfd, unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(mfd, unix.TIOCSPTLCK, 0)
	}
	if err != nil {
		master.Close()
		t.Skipf("cannot set up the pseudo-terminal: %v", err)
	}
	term, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("cannot open the terminal side: %v", err)
	}
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&out, master); close(done) }()
	closed := false
	finish := func() string {
		if !closed {
			closed = true
			term.Close()
			<-done // the terminal side closed: the copy ends with EIO
			master.Close()
		}
		return out.String()
	}
	t.Cleanup(func() { finish() })
	return term, finish
}

// Colour is decided for the stream that is written: the pipe's hints on a
// terminal stderr are coloured while its stdout goes to a file, and hints
// going to a file are not coloured because stdout is a terminal.
func TestColourIsDecidedPerWriter(t *testing.T) {
	noEnv := func(string) string { return "" }

	term, read := openTerminal(t)
	var stdout bytes.Buffer
	run(nil, strings.NewReader(dyingServer), &stdout, term, noEnv)
	if hints := read(); !strings.Contains(hints, "torch/cuda-oom") || !strings.Contains(hints, "\x1b[") {
		t.Errorf("hints to a terminal are not coloured when stdout is a file:\n%q", hints)
	}

	term, _ = openTerminal(t)
	var stderr bytes.Buffer
	run(nil, strings.NewReader(dyingServer), term, &stderr, noEnv)
	if hints := stderr.String(); !strings.Contains(hints, "torch/cuda-oom") || strings.Contains(hints, "\x1b[") {
		t.Errorf("hints to a file are coloured because stdout is a terminal:\n%q", hints)
	}
}

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
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

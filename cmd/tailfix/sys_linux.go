package main

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// growPipe asks for a 1 MiB buffer on a pipe, so that a fast producer is
// read in large blocks rather than 64 KiB ones. Anything else is left as
// it is.
func growPipe(v any) {
	f, ok := v.(*os.File)
	if !ok {
		return
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return
	}
	unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, 1<<20) // best effort: the limit may be lower
}

// childAttr puts run's child in a process group of its own, and has the
// kernel end it with SIGTERM if tailfix dies first.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

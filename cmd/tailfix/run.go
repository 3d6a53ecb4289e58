package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/remedies"
)

type runCmd struct {
	NotifyFlags `embed:""`
	Metrics     string   `placeholder:"ADDR" help:"Serve Prometheus metrics at http://ADDR/metrics while the command runs (ADDR is host:port or :port): occurrences of each finding by id, severity and source (stdout, stderr), distinct findings, root causes, lines and bytes read, the last finding's time."`
	Command     []string `arg:"" passthrough:"" name:"COMMAND" help:"The command to run and its arguments, after --."`
}

// childDrain is how long the child's output is still read after it exits:
// its own children may hold the pipes open.
const childDrain = 2 * time.Second

// exitStatus carries the child's exit status out of run.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// Run starts the command with its output passed through unchanged, hints
// as problems appear, forwards SIGINT, SIGTERM and SIGHUP to it, and exits
// with its status (128+signal when a signal ended it).
func (c *runCmd) Run(e *env) error {
	args := c.Command
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return errors.New("run: no command given (tailfix run -- COMMAND [ARG...])")
	}
	m, err := e.load()
	if err != nil {
		return err
	}
	stderr := &lockedWriter{w: e.stderr}
	e.stderr = stderr
	l := newLive(e, m, stderr, false)
	if c.Metrics != "" {
		if l.metrics, err = serveMetrics(e, c.Metrics, l, nil); err != nil {
			return err
		}
		defer l.metrics.close()
	}
	if l.notify, err = newNotifier(c.NotifyFlags, func(format string, args ...any) { fmt.Fprintf(stderr, format, args...) }); err != nil {
		return err
	}

	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, outW, errW
	// Its own process group, so that a terminal's Ctrl-C reaches tailfix
	// alone and is forwarded once; and, where the system can, it goes down
	// if tailfix is killed.
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		outR.Close()
		errR.Close()
		outW.Close()
		errW.Close()
		fmt.Fprintf(e.stderr, "tailfix: error: cannot run %q: %s\n", args[0], remedies.Safe(fmt.Sprint(unwrapPath(err))))
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return exitStatus(127) // as a shell does
		}
		return exitStatus(126)
	}
	outW.Close()
	errW.Close()

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	// The command line is the server's configuration until it logs its
	// own: a launch-time rejection prints no server_args line.
	var known matcher.Config
	if table, err := patterns.Flags(); err == nil {
		if c, err := launch.ParseWrapped(args, "command line", table); err == nil {
			known = c
		}
	}

	var copiers sync.WaitGroup
	for _, p := range []struct {
		name string
		r    *os.File
		w    io.Writer
	}{{"stdout", outR, e.stdout}, {"stderr", errR, stderr.child()}} {
		in := l.open(p.name, allCores(), diagnose.SourceOptions{Known: known, Group: "command"})
		copiers.Add(1)
		go func() {
			defer copiers.Done()
			passThrough(p.r, p.w, in, func(n int) { l.metrics.read(p.name, n) })
		}()
	}

	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var werr error
wait:
	for {
		select {
		case sig := <-sigs:
			e.log.Debug().Str("signal", sig.String()).Msg("forwarding to the command")
			syscall.Kill(-cmd.Process.Pid, sig.(syscall.Signal))
		case werr = <-waited:
			break wait
		}
	}
	drained := make(chan struct{})
	go func() { copiers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(childDrain):
		// Something the command started still holds its output open.
		outR.Close()
		errR.Close()
		<-drained
	}
	outR.Close()
	errR.Close()
	if _, err := l.finish(); err != nil {
		// tailfix's own output failed (a full disk, a closed terminal):
		// the child's status is still the one to exit with.
		e.log.Error().Err(err).Msg("writing the findings failed")
	}
	l.notify.close()
	return childStatus(cmd, werr)
}

// passThrough copies one of the child's streams to ours and to its input
// until the stream ends, telling read how much it read.
func passThrough(r io.Reader, w io.Writer, in *diagnose.Source, read func(int)) {
	buf := make([]byte, 256<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			w.Write(buf[:n]) // a closed terminal must not stop the child
			in.Write(buf[:n])
			read(n)
		}
		if err != nil {
			return
		}
	}
}

// childStatus turns how the child ended into tailfix's exit status.
func childStatus(cmd *exec.Cmd, werr error) error {
	st := cmd.ProcessState
	if st == nil {
		return werr
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return exitStatus(128 + int(ws.Signal()))
	}
	if code := st.ExitCode(); code != 0 {
		return exitStatus(code)
	}
	return nil
}

// lockedWriter serializes writes from the child's stderr and from hints,
// and keeps hints between whole lines of the child's output.
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	midLine bool // the child's last write did not end its line
}

// hintWait bounds how long a hint waits for the child to end a line: a
// progress bar redrawn with carriage returns never does.
const hintWait = 200 * time.Millisecond

// child is the writer of the child's own bytes.
func (l *lockedWriter) child() io.Writer { return childWriter{l} }

type childWriter struct{ l *lockedWriter }

func (c childWriter) Write(p []byte) (int, error) {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if len(p) > 0 {
		c.l.midLine = p[len(p)-1] != '\n'
	}
	return c.l.w.Write(p)
}

// Fd is the descriptor of the writer underneath, so that colour and width
// are decided for the terminal it may be.
func (l *lockedWriter) Fd() uintptr {
	if f, ok := l.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// Write writes a hint or a message of tailfix's own once the child's
// current line has ended, or after hintWait.
func (l *lockedWriter) Write(p []byte) (int, error) {
	deadline := time.Now().Add(hintWait)
	for {
		l.mu.Lock()
		if !l.midLine || !time.Now().Before(deadline) {
			defer l.mu.Unlock()
			return l.w.Write(p)
		}
		l.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
}

package main

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/tailfix/tailfix/diagnose"
)

type pipeCmd struct{}

// interruptGrace is how long the pipe keeps reading after Ctrl-C: the
// server got the same signal and is printing its last lines.
const interruptGrace = 3 * time.Second

// Run copies stdin to stdout byte for byte and prints each new finding on
// stderr as soon as its event ends; a summary follows at the end of input.
// On Ctrl-C it keeps passing bytes through until the input ends, for a
// moment, or until a second Ctrl-C, then prints the summary.
func (pipeCmd) Run(e *env) error {
	m, err := e.load()
	if err != nil {
		return err
	}
	l := newLive(e, m, e.stderr, false)
	in := l.open("-", allCores(), diagnose.SourceOptions{})

	var mu sync.Mutex // in.live between the reader and an early stop
	stopped := false
	done := make(chan error, 1)
	go func() { done <- copyAndMatch(e, in, &mu, &stopped) }()

	sigs, stop := interrupts()
	defer stop()
	var readErr error
	var grace <-chan time.Time
wait:
	for {
		select {
		case readErr = <-done:
			break wait
		case <-sigs:
			if grace != nil {
				break wait // a second Ctrl-C: stop now
			}
			e.log.Debug().Msg("interrupted; passing the input through until it ends")
			grace = time.After(interruptGrace)
		case <-grace:
			break wait
		}
	}
	mu.Lock()
	stopped = true // the reader may still be blocked in Read; it writes nothing more
	mu.Unlock()
	findings, err := l.finish()
	if readErr != nil {
		return readErr
	}
	if err != nil {
		return err
	}
	return e.verdict(findings)
}

// copyAndMatch passes stdin through to stdout and to the matcher until the
// input ends or the pipe is stopped.
func copyAndMatch(e *env, in *diagnose.Source, mu *sync.Mutex, stopped *bool) error {
	growPipe(e.stdin)
	growPipe(e.stdout)
	buf := make([]byte, 1<<20)
	out := e.stdout
	var read int64
	for {
		n, rerr := e.stdin.Read(buf)
		read += int64(n)
		if n > 0 {
			if out != nil {
				if _, werr := out.Write(buf[:n]); werr != nil {
					if !errors.Is(werr, syscall.EPIPE) {
						return fmt.Errorf("write stdout: %w", werr)
					}
					// The reader went away (`| head -c 100`): like cat,
					// stop reading; what was read is still diagnosed.
					mu.Lock()
					if !*stopped {
						in.Write(buf[:n])
					}
					mu.Unlock()
					return nil
				}
			}
			mu.Lock()
			if *stopped {
				mu.Unlock()
				return nil
			}
			in.Write(buf[:n])
			mu.Unlock()
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("read stdin after %d bytes: %w", read, rerr)
		}
	}
}

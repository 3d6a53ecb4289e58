package main

import (
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/remedies"
)

type pipeCmd struct{}

// Run copies stdin to stdout byte for byte and prints each new finding on
// stderr as its event ends; a summary follows at end of input.
func (pipeCmd) Run(e *env) error {
	m, err := e.load()
	if err != nil {
		return err
	}
	hints := e.printer(e.stderr)
	corr := matcher.NewCorrelator()
	eng := m.NewEngine("-", func(o matcher.Occurrence) {
		if f, isNew := corr.Add(o); isNew {
			hints.Finding(f) // a failing stderr must not stop the pass-through
		}
	})
	buf := make([]byte, 256<<10)
	out := e.stdout
	for {
		n, rerr := e.stdin.Read(buf)
		if n > 0 {
			if out != nil {
				if _, werr := out.Write(buf[:n]); werr != nil {
					if !errors.Is(werr, syscall.EPIPE) {
						return fmt.Errorf("write stdout: %w", werr)
					}
					out = nil // the reader went away; keep diagnosing
				}
			}
			eng.Write(buf[:n])
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			eng.Flush()
			return fmt.Errorf("read stdin after line %d: %w", eng.Lines(), rerr)
		}
	}
	eng.Flush()
	findings := corr.Findings()
	if len(findings) > 0 {
		fmt.Fprintln(e.stderr)
		sum := remedies.Summary{Sources: []string{"stdin"}, Lines: eng.Lines()}
		if err := hints.Brief(findings, sum); err != nil {
			return err
		}
	}
	return e.verdict(findings)
}

package main

import (
	"context"
	"fmt"
	"time"

	"github.com/tailfix/tailfix/follow"
)

type followCmd struct {
	Paths     []string      `arg:"" name:"PATH" help:"Log files, globs or directories to follow. Quote globs ('logs/*.log') so that files created later match too."`
	FromStart bool          `name:"from-start" help:"Read what the files already hold, not only what is written from now on."`
	Poll      time.Duration `default:"250ms" help:"Check every file this often even without a file event; the only way to notice change when inotify is not available."`
}

// Run follows the files until Ctrl-C, hinting as findings appear, each
// labelled with its file; then prints the summary.
func (c *followCmd) Run(e *env) error {
	m, err := e.load()
	if err != nil {
		return err
	}
	s := newSession(e, m)
	s.hints = s.e.printerWith(e.stderr, true)
	inputs := map[string]*input{}
	var order []string
	out := func(ch follow.Chunk) {
		in, ok := inputs[ch.Path]
		if !ok {
			in = s.open(ch.Path, 1, nil)
			inputs[ch.Path] = in
			order = append(order, ch.Path)
		} else if ch.Break {
			in.live.Break()
		}
		in.live.Write(ch.Data)
	}
	warn := func(path string, err error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if path == "" {
			fmt.Fprintf(e.stderr, "tailfix: warning: %v\n", err)
			return
		}
		fmt.Fprintf(e.stderr, "tailfix: warning: %s: %v; following the others\n", path, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs, stop := interrupts()
	defer stop()
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	opts := follow.Options{FromStart: c.FromStart, Poll: c.Poll, Warn: warn}
	if err := follow.Follow(ctx, c.Paths, opts, out); err != nil {
		return err
	}
	findings, err := s.finish(order)
	if err != nil {
		return err
	}
	return e.verdict(findings)
}

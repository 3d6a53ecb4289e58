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
	var s *session // set before the follower runs; until then nothing else writes
	say := func(format string, args ...any) {
		if s != nil {
			s.mu.Lock()
			defer s.mu.Unlock()
		}
		fmt.Fprintf(e.stderr, format, args...)
	}
	warn := func(path string, err error) {
		if path == "" {
			say("tailfix: warning: %v\n", err)
			return
		}
		say("tailfix: warning: %s: %v; following the others\n", path, err)
	}
	note := func(_, msg string) { say("tailfix: note: %s\n", msg) }

	// Where each file ends is taken before the pattern pack is loaded, so
	// that lines written while it loads are not skipped.
	opts := follow.Options{FromStart: c.FromStart, Poll: c.Poll, Warn: warn, Notice: note}
	f, err := follow.New(c.Paths, opts)
	if err != nil {
		return err
	}
	defer f.Close()
	m, err := e.load()
	if err != nil {
		return err
	}
	s = newSession(e, m)
	s.hints = s.e.printerWith(e.stderr, true)
	inputs := map[string]*input{}
	var order []string
	out := func(ch follow.Chunk) {
		in, ok := inputs[ch.Path]
		switch {
		case !ok:
			in = s.open(ch.Path, 1, nil)
			inputs[ch.Path] = in
			order = append(order, ch.Path)
		case ch.Restart:
			restart(in)
		case ch.Break:
			in.live.Break()
		}
		in.live.Write(ch.Data)
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
	if err := f.Run(ctx, out); err != nil {
		return err
	}
	findings, err := s.finish(order)
	if err != nil {
		return err
	}
	return e.verdict(findings)
}

// restart numbers an input's lines from 1 again: its file was truncated or
// replaced. The engine is restarted between two feeders, since a feeder
// assembles events on a goroutine of its own.
func restart(in *input) {
	in.live.Close()
	in.eng.Restart()
	in.live = in.eng.Live(1, liveIdle)
}

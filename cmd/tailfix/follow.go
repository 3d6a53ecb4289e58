package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/follow"
)

type followCmd struct {
	Paths       []string      `arg:"" name:"PATH" help:"Log files, globs or directories to follow. Quote globs ('logs/*.log') so that files created later match too; ** reaches any depth ('/var/log/pods/**/sglang*/*.log'). A directory is followed with the directories in it."`
	FromStart   bool          `name:"from-start" help:"Read what the files already hold, not only what is written from now on."`
	Poll        time.Duration `default:"250ms" help:"Check every file this often even without a file event; the only way to notice change when inotify is not available."`
	NotifyFlags `embed:""`
	Metrics     string `placeholder:"ADDR" help:"Serve Prometheus metrics at http://ADDR/metrics (ADDR is host:port or :port): occurrences of each finding by id, severity and source, distinct findings, root causes, lines and bytes read, files followed, the last finding's time."`
}

// Run follows the files until Ctrl-C, writing findings to stdout as they
// appear, each labelled with its file; then the summary of each set of
// files that belong together. Warnings and notes go to stderr.
func (c *followCmd) Run(e *env) error {
	var mu sync.Mutex // stderr, between the follower's warnings and notes
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
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
	l := newLive(e, m, e.stdout, true)
	if c.Metrics != "" {
		if l.metrics, err = serveMetrics(e, c.Metrics, l, f.Files); err != nil {
			return err
		}
		defer l.metrics.close()
	}
	if l.notify, err = newNotifier(c.NotifyFlags, say); err != nil {
		return err
	}
	inputs := map[string]*diagnose.Source{}
	out := func(ch follow.Chunk) {
		in, ok := inputs[ch.Path]
		switch {
		case !ok:
			in = l.open(ch.Path, 1, diagnose.SourceOptions{})
			inputs[ch.Path] = in
		case ch.Restart:
			in.Restart() // line numbers count from the start of the new file
		case ch.Break:
			in.Break()
		}
		in.Write(ch.Data)
		l.metrics.read(ch.Path, len(ch.Data))
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
	findings, err := l.finish()
	l.notify.close()
	if err != nil {
		return err
	}
	return e.verdict(findings)
}

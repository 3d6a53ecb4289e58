package main

import (
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"sync"
	"syscall"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/remedies"
)

// live is what the live modes share: a diagnosis session whose updates
// are printed as they come, and the summary at the end.
type live struct {
	sess    *diagnose.Session
	mu      sync.Mutex // sources
	sources []*diagnose.Source
	hints   *remedies.Printer
	w       io.Writer
	json    bool
	metrics *metrics  // nil without --metrics
	notify  *notifier // nil without --on-finding and --webhook
}

// inputs returns the inputs opened so far.
func (l *live) inputs() []*diagnose.Source {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.sources)
}

// newLive starts a session whose findings go to w (or --output), each
// labelled with its input when labelled is true.
func newLive(e *env, m *matcher.Matcher, w io.Writer, labelled bool) *live {
	l := &live{hints: e.printerWith(w, labelled), w: e.findings(w), json: e.format == remedies.JSON}
	l.sess = diagnose.New(m, diagnose.Options{Update: func(u diagnose.Update) {
		l.hints.Update(u) // a failing writer must not stop the inputs
		l.metrics.found(u)
		l.notify.update(u)
	}})
	return l
}

// open starts a live input named name, matched on workers goroutines.
func (l *live) open(name string, workers int, opt diagnose.SourceOptions) *diagnose.Source {
	src := l.sess.Add(name, opt)
	src.Start(workers)
	l.mu.Lock()
	l.sources = append(l.sources, src)
	l.mu.Unlock()
	return src
}

// finish ends every input, prints the summary of each report, and returns
// all findings.
func (l *live) finish() ([]*diagnose.Finding, error) {
	l.mu.Lock()
	sources := l.sources
	l.mu.Unlock()
	for _, src := range sources {
		src.Close()
	}
	reports := l.sess.Reports()
	var all []*diagnose.Finding
	for _, r := range reports {
		all = append(all, r.Findings...)
	}
	if len(all) == 0 {
		return all, nil
	}
	if !l.json {
		l.w.Write([]byte{'\n'})
	}
	for _, r := range reports {
		if len(r.Findings) == 0 {
			continue
		}
		if err := l.hints.Brief(r.Findings, summary(r)); err != nil {
			return all, err
		}
	}
	return all, nil
}

// summary is what a report covered.
func summary(r diagnose.Report) remedies.Summary {
	names := make([]string, len(r.Sources))
	for i, n := range r.Sources {
		names[i] = n
		if n == "-" {
			names[i] = "stdin"
		}
	}
	return remedies.Summary{Sources: names, Lines: r.Lines, Folded: r.Folded}
}

// allCores is the number of automaton goroutines for a single fast input.
func allCores() int { return runtime.GOMAXPROCS(0) }

// interrupts delivers SIGINT and SIGTERM until stop is called.
func interrupts() (<-chan os.Signal, func()) {
	c := make(chan os.Signal, 2)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	return c, func() { signal.Stop(c) }
}

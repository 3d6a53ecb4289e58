package main

import (
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/remedies"
)

// liveIdle is how long an input must be quiet before its open event is
// reported: a traceback with nothing after it (the server died) is then
// hinted at once rather than at the end of input.
const liveIdle = 40 * time.Millisecond

// session is what the live modes share: one correlator over all inputs,
// hints on stderr as findings appear, and the summary at the end.
type session struct {
	e     *env
	m     *matcher.Matcher
	mu    sync.Mutex // the correlator and the hint printer
	corr  *matcher.Correlator
	hints *remedies.Printer
	lives []*input
}

// input is one live source: its engine and where its lines go.
type input struct {
	name string
	live *matcher.Live
	eng  *matcher.Engine
}

func newSession(e *env, m *matcher.Matcher) *session {
	return &session{e: e, m: m, corr: matcher.NewCorrelator(), hints: e.printer(e.stderr)}
}

// open starts a live input named name, matched on workers goroutines;
// known, when not nil, is the server's configuration before its log gives
// its own.
func (s *session) open(name string, workers int, known matcher.Config) *input {
	in := &input{name: name}
	in.eng = s.m.NewEngine(name, func(o matcher.Occurrence) {
		s.mu.Lock()
		defer s.mu.Unlock()
		// Errors are hinted at once; warnings and notes wait for the
		// summary, so that a healthy server's routine warnings do not
		// crowd the terminal.
		if f, isNew := s.corr.Add(o); isNew && f.Severity >= patterns.SeverityError {
			s.hints.Finding(f) // a failing stderr must not stop the inputs
		}
	})
	if known != nil {
		in.eng.KnowConfig(known)
	}
	in.live = in.eng.Live(workers, liveIdle)
	s.mu.Lock()
	s.lives = append(s.lives, in)
	s.mu.Unlock()
	return in
}

// finish closes every input, prints the summary, and returns the findings.
func (s *session) finish(sources []string) ([]*matcher.Finding, error) {
	var lines int64
	var servers []matcher.ServerConfig
	for _, in := range s.lives {
		in.live.Close()
		lines += in.eng.Lines()
		if sa, line := in.eng.ServerConfig(); sa != nil {
			servers = append(servers, matcher.ServerConfig{Source: in.name, Line: line, Config: sa})
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Prefill and decode logs followed together: settings they must agree on.
	for _, o := range s.m.PDMismatches(servers) {
		s.corr.Add(o)
	}
	findings := s.corr.Findings()
	if len(findings) == 0 {
		return findings, nil
	}
	s.e.stderr.Write([]byte{'\n'})
	return findings, s.hints.Brief(findings, remedies.Summary{Sources: sources, Lines: lines})
}

// allCores is the number of automaton goroutines for a single fast input.
func allCores() int { return runtime.GOMAXPROCS(0) }

// interrupts delivers SIGINT and SIGTERM until stop is called.
func interrupts() (<-chan os.Signal, func()) {
	c := make(chan os.Signal, 2)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	return c, func() { signal.Stop(c) }
}

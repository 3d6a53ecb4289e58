package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/remedies"
)

type scanCmd struct {
	Files []string `arg:"" name:"FILE" help:"Log files to read; - reads stdin."`
}

func (c *scanCmd) Run(e *env) error {
	m, err := e.load()
	if err != nil {
		return err
	}
	corr := matcher.NewCorrelator()
	sum := remedies.Summary{}
	var failed []error
	var servers []matcher.ServerConfig
	for _, name := range c.Files {
		lines, cfg, err := scanOne(e, m, corr, name)
		if cfg.Config != nil {
			servers = append(servers, cfg)
		}
		sum.Lines += lines
		if err != nil {
			// Report what could be read; the error is not lost.
			failed = append(failed, err)
			fmt.Fprintf(e.stderr, "tailfix: error: %v\n", err)
			continue
		}
		sum.Sources = append(sum.Sources, name)
	}
	// Prefill and decode logs read together: settings they must agree on.
	for _, o := range m.PDMismatches(servers) {
		corr.Add(o)
	}
	findings := corr.Findings()
	if len(sum.Sources) > 0 || len(findings) > 0 {
		if err := e.printer(e.stdout).Report(findings, sum); err != nil {
			return err
		}
	}
	if len(failed) > 0 {
		return silentError{errors.Join(failed...)}
	}
	return e.verdict(findings)
}

// scanOne feeds one input to the correlator and returns its line count and
// the configuration it logged, if any.
func scanOne(e *env, m *matcher.Matcher, corr *matcher.Correlator, name string) (int64, matcher.ServerConfig, error) {
	var cfg matcher.ServerConfig
	var r io.Reader = e.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return 0, cfg, fmt.Errorf("cannot open %q: %w", name, unwrapPath(err))
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return 0, cfg, fmt.Errorf("cannot scan %q: is a directory", name)
		}
		r = f
	}
	start := time.Now()
	eng := m.NewEngine(name, func(o matcher.Occurrence) { corr.Add(o) })
	err := eng.Scan(r)
	e.log.Debug().Str("file", name).Int64("lines", eng.Lines()).Dur("took", time.Since(start)).Msg("scanned")
	if sa, line := eng.ServerConfig(); sa != nil {
		cfg = matcher.ServerConfig{Source: name, Line: line, Config: sa}
	}
	if err != nil {
		return eng.Lines(), cfg, fmt.Errorf("read %q after line %d: %w", name, eng.Lines(), unwrapPath(err))
	}
	return eng.Lines(), cfg, nil
}

// unwrapPath drops the *PathError wrapper, whose text repeats the file name.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// silentError has already been reported; run only sets the exit status.
type silentError struct{ error }

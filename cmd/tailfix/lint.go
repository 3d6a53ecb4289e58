package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/remedies"
)

type patternsLintCmd struct {
	Healthy []string `name:"healthy" placeholder:"LOG" help:"A log of a healthy server: no record at error level or above may match any of its lines, and no line may be an unknown error. Repeatable."`
}

// Run checks the pack as a whole (patterns.Pack.Lint) and runs the
// healthy logs given through it (matcher.LintHealthy). It prints each
// problem and a summary.
func (c *patternsLintCmd) Run(e *env) error {
	e.whole = true
	m, err := e.load()
	if err != nil {
		return err
	}
	pack := m.Pack()
	var problems int
	report := func(ps []patterns.Problem) {
		for _, p := range ps {
			problems++
			fmt.Fprintf(e.stderr, "tailfix: lint: %s\n", p)
		}
	}
	report(pack.Lint())
	lines, quiet := 0, map[string]bool{}
	for _, name := range c.Healthy {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("cannot open %q: %w", name, unwrapPath(err))
		}
		ps, n, err := m.LintHealthy(f, name, quiet)
		f.Close()
		report(ps)
		if err != nil {
			return fmt.Errorf("read %q %w", name, err)
		}
		lines += n
		f, err = os.Open(name)
		if err != nil {
			return fmt.Errorf("cannot open %q: %w", name, unwrapPath(err))
		}
		unknown, err := diagnose.Unknown(m, f, name)
		f.Close()
		if err != nil {
			return fmt.Errorf("read %q: %w", name, err)
		}
		for _, f := range unknown {
			problems++
			fmt.Fprintf(e.stderr, "tailfix: lint: %s: line %d of the healthy log %s is an unknown error: %q\n", f.ID, f.Line, name, clip(f.Message, 120))
		}
	}
	fmt.Fprintf(e.stdout, "%d records (%d generated), %d healthy lines checked: %d problems; %d records below error level match healthy lines\n",
		len(pack.Records), pack.Generated(), lines, problems, len(quiet))
	if table, err := patterns.Flags(); err == nil {
		if lit := remedies.LiteralFixes(pack, table); len(lit) > 0 {
			fmt.Fprintf(e.stdout, "%d literal values in hand-written fixes where the server's own could be shown:\n", len(lit))
			for _, l := range lit {
				fmt.Fprintf(e.stdout, "  %s\n", l)
			}
		}
	}
	if problems > 0 {
		return silentError{errors.New("lint failed")}
	}
	return nil
}

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
)

type patternsLintCmd struct {
	Healthy []string `name:"healthy" placeholder:"LOG" help:"A log of a healthy server: no record at error level or above may match any of its lines, and no line may be an unknown error. Repeatable."`
}

// Run checks the pack as a whole: unique ids (checked when it loads), every
// regex compiles, every record has a literal of at least patterns.MinNeedle
// bytes to prefilter on, and no record at error level matches a line of the
// healthy logs given. It prints each problem and a summary.
func (c *patternsLintCmd) Run(e *env) error {
	m, err := e.load()
	if err != nil {
		return err
	}
	pack := m.Pack()
	var problems int
	report := func(r *patterns.Record, format string, args ...any) {
		problems++
		fmt.Fprintf(e.stderr, "tailfix: lint: %s: %s: %s\n", r.Origin, r.ID, fmt.Sprintf(format, args...))
	}
	for _, r := range pack.Records {
		if r.Match.Regex != "" {
			if _, err := regexp.Compile(r.Match.Regex); err != nil {
				report(r, "regex does not compile: %v", err)
				continue
			}
		}
		if r.Gen == nil {
			if _, err := r.Needles(); err != nil {
				report(r, "%v", err)
			}
		} else if len(r.Gen.Needles) == 0 || len(r.Gen.Needles[0]) < patterns.MinNeedle {
			report(r, "no literal of %d bytes to prefilter on", patterns.MinNeedle)
		}
	}
	lines, warned := 0, map[string]bool{}
	for _, name := range c.Healthy {
		n, err := lintHealthy(m, name, func(r *patterns.Record, ln int, line []byte) {
			if r.Severity >= patterns.SeverityError {
				report(r, "matches line %d of the healthy log %s: %q", ln, name, clip(string(line), 120))
			} else {
				warned[r.ID] = true
			}
		})
		if err != nil {
			return err
		}
		lines += n
		unknown, err := lintHealthyUnknown(m, name)
		if err != nil {
			return err
		}
		for _, f := range unknown {
			problems++
			fmt.Fprintf(e.stderr, "tailfix: lint: %s: line %d of the healthy log %s is an unknown error: %q\n", f.ID, f.Line, name, clip(f.Message, 120))
		}
	}
	fmt.Fprintf(e.stdout, "%d records (%d generated), %d healthy lines checked: %d problems; %d records below error level match healthy lines\n",
		len(pack.Records), countGenerated(pack), lines, problems, len(warned))
	if problems > 0 {
		return silentError{errors.New("lint failed")}
	}
	return nil
}

// lintHealthy runs every line of a log through the matcher and reports
// each record that matches it.
func lintHealthy(m *matcher.Matcher, name string, hit func(*patterns.Record, int, []byte)) (int, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, fmt.Errorf("cannot open %q: %w", name, unwrapPath(err))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, matcher.MaxLine+1)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSuffix(sc.Bytes(), []byte{'\r'})
		for _, r := range m.MatchLine(line) {
			hit(r, n, line)
		}
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("read %q after line %d: %w", name, n, err)
	}
	return n, nil
}

// lintHealthyUnknown diagnoses a healthy log as scan does and returns its
// findings at error level that no record knows: a line whose words say it
// failed, that no record explains.
func lintHealthyUnknown(m *matcher.Matcher, name string) ([]*diagnose.Finding, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("cannot open %q: %w", name, unwrapPath(err))
	}
	defer f.Close()
	sess := diagnose.New(m, diagnose.Options{})
	if err := sess.Add(name, diagnose.SourceOptions{}).Scan(f); err != nil {
		return nil, fmt.Errorf("read %q: %w", name, err)
	}
	var out []*diagnose.Finding
	for _, f := range sess.Findings() {
		if f.Record == nil && f.Severity >= patterns.SeverityError {
			out = append(out, f)
		}
	}
	return out, nil
}

func countGenerated(p *patterns.Pack) int {
	n := 0
	for _, r := range p.Records {
		if r.Gen != nil {
			n++
		}
	}
	return n
}

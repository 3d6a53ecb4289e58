package main

import (
	"errors"
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/remedies"
)

type patternsCmd struct {
	List patternsListCmd `cmd:"" help:"List the pattern records: id, severity and title (JSON: one record per line)."`
	Test patternsTestCmd `cmd:"" help:"Run every record's own tests: lines it must match and near misses it must not."`
}

type patternsListCmd struct{}

func (patternsListCmd) Run(e *env) error {
	m, err := e.load()
	if err != nil {
		return err
	}
	if e.format == remedies.JSON {
		p := e.printer(e.stdout)
		for _, r := range m.Pack().Records {
			if err := p.Record(r); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	for _, r := range m.Pack().Records {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Title)
	}
	return tw.Flush()
}

type patternsTestCmd struct{}

// Run checks each record's tests against the whole compiled pack, so a
// test also proves the automaton proposes the line.
func (patternsTestCmd) Run(e *env) error {
	m, err := e.load()
	if err != nil {
		return err
	}
	failures, lines := testPack(m)
	for _, f := range failures {
		fmt.Fprintf(e.stderr, "tailfix: fail: %s\n", f)
	}
	recs := len(m.Pack().Records)
	if len(failures) > 0 {
		fmt.Fprintf(e.stdout, "%d of %d test lines failed in %d records\n", len(failures), lines, recs)
		return silentError{errors.New("pattern tests failed")}
	}
	fmt.Fprintf(e.stdout, "ok: %d records, %d test lines\n", recs, lines)
	return nil
}

// testPack returns one message per failed test line, and the number of
// lines tested.
func testPack(m *matcher.Matcher) (failures []string, lines int) {
	for _, r := range m.Pack().Records {
		check := func(line string, want bool) {
			lines++
			got := slices.Contains(m.MatchLine([]byte(line)), r)
			if got != want {
				verb := "does not match"
				if got {
					verb = "matches"
				}
				failures = append(failures, fmt.Sprintf("%s: %s: %s %q", r.Origin, r.ID, verb, line))
			}
		}
		for _, l := range r.Tests.Match {
			check(l, true)
		}
		for _, l := range r.Tests.NoMatch {
			check(l, false)
		}
	}
	return failures, lines
}

package matcher

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tailfix/tailfix/patterns"
)

// TestRecords runs each record's own tests (lines it must match and near
// misses it must not) against the whole compiled pack, so that a test
// also proves the automaton proposes the line. It returns one problem per
// failed line, and the number of lines tested.
func (m *Matcher) TestRecords() (failures []patterns.Problem, lines int) {
	_ = m.pack.LoadAll() // a record that cannot be read again fails its tests
	for _, r := range m.pack.Records {
		check := func(line string, want bool) {
			lines++
			got := slices.Contains(m.MatchLine([]byte(line)), r)
			if got != want {
				verb := "does not match"
				if got {
					verb = "matches"
				}
				failures = append(failures, patterns.Problem{Record: r, What: fmt.Sprintf("%s %q", verb, line)})
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

// LintHealthy runs every line of a healthy server's log, read from r and
// called name in the problems, through MatchLine. A record at error level
// or above that matches a line is a problem; the ids of records below it
// that match are added to quiet, when it is not nil. It returns the
// problems in line order and the number of lines read; a read error says
// after which line.
func (m *Matcher) LintHealthy(r io.Reader, name string, quiet map[string]bool) ([]patterns.Problem, int, error) {
	var problems []patterns.Problem
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, MaxLine+1)
	n := 0
	proposed := make(map[int32]int) // lines each record's needle proposed
	var cands []candidate
	var scratch, withNL []byte
	var owners []int32
	for sc.Scan() {
		n++
		line := bytes.TrimSuffix(sc.Bytes(), []byte{'\r'})
		withNL = append(append(withNL[:0], line...), '\n')
		cands, scratch = m.candidates(withNL, cands[:0], scratch)
		owners = owners[:0] // a line counts once for each record it proposes
		for _, c := range cands {
			if c.owner >= 0 && !slices.Contains(owners, c.owner) {
				owners = append(owners, c.owner)
				proposed[c.owner]++
			}
		}
		recs := m.MatchLine(line)
		if slices.ContainsFunc(recs, (*patterns.Record).Benign) {
			continue // a harmless line, whatever else matches it
		}
		for _, rec := range recs {
			if rec.Severity >= patterns.SeverityError {
				problems = append(problems, patterns.Problem{Record: rec,
					What: fmt.Sprintf("matches line %d of the healthy log %s: %q", n, name, clipRunes(string(line), 120))})
			} else if quiet != nil {
				quiet[rec.ID] = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return problems, n, fmt.Errorf("after line %d: %w", n, err)
	}
	// A needle that a healthy server prints over and over makes every one
	// of those lines a candidate to confirm: the prefilter stops saving
	// work. It is a problem when it proposes more than one line in
	// busyNeedle of a long enough log.
	var busy []patterns.Problem
	for o, k := range proposed {
		if n >= busyNeedleMin && k*busyNeedle > n {
			busy = append(busy, patterns.Problem{Record: m.pats[o].rec,
				What: fmt.Sprintf("its literal is in %d of the %d lines of the healthy log %s: match a rarer part of the message", k, n, name)})
		}
	}
	slices.SortFunc(busy, func(a, b patterns.Problem) int { return strings.Compare(a.Record.ID, b.Record.ID) })
	return append(problems, busy...), n, nil
}

// A record's literal may be in at most one line in busyNeedle of a healthy
// log of at least busyNeedleMin lines.
const (
	busyNeedle    = 50
	busyNeedleMin = 200
)

// clipRunes shortens s to at most n runes.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Package corpus measures a diagnosis against a corpus of logs whose
// answers are known.
//
// A manifest (JSON Lines) names each log, says whether it holds an error
// or is clean, and gives the exception class and message the error is
// known by. ReadManifest reads it. Score says how a diagnosis did on one
// log: whether the report's first finding is the expected error (top-1),
// whether any finding the report shows as a problem is (any-hit), whether
// a clean log raised a false alarm (a finding at error level), and
// whether the finding that holds the error comes from a record with a
// remedy. A Summary adds the results up.
//
// cmd/tailfix measure calls it: it reads each log, runs the diagnosis
// through package diagnose, scores it here and prints the results. The
// package reads only the manifest it is given and prints nothing.
package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
)

// Kinds of case.
const (
	KindError = "error" // the log holds a known error
	KindClean = "clean" // the log is of a healthy server
)

// Case is one line of a corpus manifest.
type Case struct {
	// File is the log, relative to the manifest.
	File string `json:"file"`
	// Kind is KindError or KindClean.
	Kind string `json:"kind"`
	// ExpectedException and ExpectedMessage are what the error is known
	// by; an error case has at least one of them.
	ExpectedException string `json:"expected_exception"`
	ExpectedMessage   string `json:"expected_message"`
}

// ReadManifest reads the manifest in the named file. See ParseManifest.
func ReadManifest(name string) ([]Case, error) {
	f, err := os.Open(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the text would repeat the name
		}
		return nil, fmt.Errorf("cannot open manifest %q: %w", name, err)
	}
	defer f.Close()
	return ParseManifest(f, name)
}

// ParseManifest reads a manifest from r: one JSON object per line, blank
// lines skipped. Errors name the manifest as name and the line. A case
// needs a file and a kind of error or clean; an error case needs an
// expected exception or an expected message.
func ParseManifest(r io.Reader, name string) ([]Case, error) {
	var cases []Case
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var k Case
		if err := json.Unmarshal(line, &k); err != nil {
			return nil, fmt.Errorf("manifest %s:%d: %w", name, n, err)
		}
		switch {
		case k.File == "":
			return nil, fmt.Errorf("manifest %s:%d: no file", name, n)
		case k.Kind != KindError && k.Kind != KindClean:
			return nil, fmt.Errorf("manifest %s:%d: kind %q is neither error nor clean", name, n, k.Kind)
		case k.Kind == KindError && k.ExpectedException == "" && k.ExpectedMessage == "":
			return nil, fmt.Errorf("manifest %s:%d: an error case needs expected_exception or expected_message", name, n)
		}
		cases = append(cases, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read manifest %q: %w", name, err)
	}
	return cases, nil
}

// Result is how a diagnosis did on one case.
type Result struct {
	File       string `json:"file"`
	Kind       string `json:"kind"`
	Top1       bool   `json:"top1"`
	AnyHit     bool   `json:"any_hit"`
	FalseAlarm bool   `json:"false_alarm"`
	// KeyLineFound is false when the expected message is not in the log.
	KeyLineFound bool `json:"key_line_found"`
	// Known is true when the finding that holds the expected error comes
	// from a record, so it has a remedy; HandWritten when that record was
	// written by hand rather than generated from sglang's source.
	Known       bool `json:"known"`
	HandWritten bool `json:"hand_written"`
	// First is the report's first finding: id, exception and message.
	First string `json:"first,omitempty"`
}

// Verdict is the result in a word: quiet or FALSE ALARM for a clean log;
// top-1, later (a finding other than the first holds the error) or MISSED
// for an error.
func (r Result) Verdict() string {
	switch {
	case r.Kind == KindClean && r.FalseAlarm:
		return "FALSE ALARM"
	case r.Kind == KindClean:
		return "quiet"
	case r.Top1:
		return "top-1"
	case r.AnyHit:
		return "later"
	}
	return "MISSED"
}

// Score scores the findings of a diagnosis of data, the log of case c,
// given in the report's order: causes at error level first, warnings after
// them. Findings at warning level and above count; on a log with no error
// a warning is what the report puts first (a request the server refused),
// and a clean log raises a false alarm only with a finding at error level.
// One of them holds the expected error when one of its events holds a
// line whose matching view (matcher.Normalize) contains the expected
// message, and its exception, when both it and the case name one, is the
// expected class. When the expected message is not in the log, the finding's own
// text must contain it (or its message of 10 bytes or more be part of
// it); with no expected message, any finding with an exception of the
// expected class holds it.
func Score(c Case, data []byte, findings []*diagnose.Finding) Result {
	var errs, warnings []*diagnose.Finding
	for _, f := range findings {
		switch {
		case f.Severity >= patterns.SeverityError:
			errs = append(errs, f)
		case f.Severity == patterns.SeverityWarning:
			warnings = append(warnings, f)
		}
	}
	alarm := len(errs) > 0
	shown := append(errs, warnings...)
	r := Result{File: c.File, Kind: c.Kind}
	if len(shown) > 0 {
		f := shown[0]
		r.First = fmt.Sprintf("%s %s: %s", f.ID, f.Exception, f.Message)
	}
	if c.Kind == KindClean {
		r.FalseAlarm = alarm
		return r
	}
	// The expected message is read as the log is: a manifest copied from
	// a paste keeps its typographic quotes.
	want := string(matcher.Normalize(nil, []byte(strings.TrimSpace(c.ExpectedMessage))))
	keys := keyLines(data, want)
	r.KeyLineFound = len(keys) > 0
	for i, f := range shown {
		if holds(f, c, want, keys) {
			if !r.AnyHit && f.Record != nil {
				r.Known, r.HandWritten = true, f.Record.Gen == nil
			}
			r.AnyHit = true
			r.Top1 = r.Top1 || i == 0
		}
	}
	return r
}

// keyLines returns the 1-based numbers of the lines whose matching view
// contains msg.
func keyLines(data []byte, msg string) []int64 {
	if msg == "" {
		return nil
	}
	var out []int64
	var buf []byte
	eachLine(data, func(n int64, line []byte) bool {
		buf = matcher.Normalize(buf[:0], line)
		if bytes.Contains(buf, []byte(msg)) {
			out = append(out, n)
		}
		return true
	})
	return out
}

// holds reports whether finding f is the expected error of case c, whose
// expected message in its matching view is msg and whose key lines are keys.
func holds(f *diagnose.Finding, c Case, msg string, keys []int64) bool {
	if f.Exception != "" && c.ExpectedException != "" && !matcher.SameClass(f.Exception, c.ExpectedException) {
		return false
	}
	if len(keys) > 0 {
		for _, l := range keys {
			for _, s := range f.Occurrences() {
				if s.Line <= l && l <= s.EndLine {
					return true
				}
			}
		}
		return false
	}
	text := f.Exception + ": " + f.Message
	switch {
	case msg != "" && strings.Contains(text, msg):
		return true
	case msg != "" && len(f.Message) >= 10 && strings.Contains(msg, f.Message):
		return true
	}
	return msg == "" && f.Exception != ""
}

// Summary adds up the results of a corpus.
type Summary struct {
	Errors      int `json:"errors"`
	Top1        int `json:"top1"`
	AnyHit      int `json:"any_hit"`
	Clean       int `json:"clean"`
	FalseAlarms int `json:"false_alarms"`
	// KeyLineAbsent counts error cases whose expected message is not in the log.
	KeyLineAbsent int `json:"key_line_absent"`
	// Known and HandWritten count error cases whose expected error is a
	// known pattern with a remedy, and one written by hand.
	Known       int `json:"known"`
	HandWritten int `json:"hand_written"`
}

// Add counts one result.
func (s *Summary) Add(r Result) {
	if r.Kind == KindClean {
		s.Clean++
		if r.FalseAlarm {
			s.FalseAlarms++
		}
		return
	}
	s.Errors++
	if r.Top1 {
		s.Top1++
	}
	if r.AnyHit {
		s.AnyHit++
	}
	if !r.KeyLineFound {
		s.KeyLineAbsent++
	}
	if r.Known {
		s.Known++
	}
	if r.HandWritten {
		s.HandWritten++
	}
}

// Top1Pct is the percentage of error cases whose first finding at error
// level is the expected error; 100 when there are none.
func (s Summary) Top1Pct() float64 {
	if p, ok := Percent(s.Top1, s.Errors); ok {
		return p
	}
	return 100
}

// Percent is n as a percentage of d; ok is false when d is 0.
func Percent(n, d int) (pct float64, ok bool) {
	if d == 0 {
		return 0, false
	}
	return 100 * float64(n) / float64(d), true
}

// grepRule is the naive baseline a diagnosis is measured against: what a
// user finds with grep -iE 'error|exception|fail|traceback', reading the
// first line it prints first.
var grepRule = regexp.MustCompile(`(?i)error|exception|fail|traceback`)

// GrepRule is the baseline's command line, for reports.
const GrepRule = `grep -iE 'error|exception|fail|traceback'`

// Grep scores the baseline on one log as Score scores a diagnosis: each
// line the grep prints stands for a finding, in log order. A line holds
// the error when it is a line with the expected message; a case with no
// expected message is held by a line with its exception class. A clean log
// with any such line is a false alarm.
func Grep(c Case, data []byte) Result {
	r := Result{File: c.File, Kind: c.Kind}
	msg := strings.TrimSpace(c.ExpectedMessage)
	keys := keyLines(data, msg)
	r.KeyLineFound = len(keys) > 0
	first := true
	eachLine(data, func(n int64, line []byte) bool {
		if !grepRule.Match(line) {
			return true
		}
		if first {
			r.First = string(bytes.TrimSpace(line))
		}
		if c.Kind == KindClean {
			r.FalseAlarm = true
			return false
		}
		var hit bool
		switch {
		case len(keys) > 0:
			hit = slices.Contains(keys, n)
		case msg != "":
			hit = bytes.Contains(line, []byte(msg))
		default:
			hit = c.ExpectedException != "" && bytes.Contains(line, []byte(c.ExpectedException))
		}
		if hit {
			r.AnyHit = true
			r.Top1 = r.Top1 || first
		}
		first = false
		return true
	})
	return r
}

// eachLine calls f with each line of data and its 1-based number, until f
// returns false.
func eachLine(data []byte, f func(n int64, line []byte) bool) {
	for n := int64(1); len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if !f(n, line) {
			return
		}
	}
}

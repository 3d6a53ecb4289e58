package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/remedies"
)

type measureCmd struct {
	Manifest       string  `arg:"" name:"MANIFEST" help:"Corpus manifest: JSON Lines with file, kind (error or clean), expected_exception and expected_message; files are relative to it."`
	MinTop1        float64 `name:"min-top1" placeholder:"PCT" help:"Exit with status 1 when top-1 is below PCT percent of the error cases."`
	MaxFalseAlarms int     `name:"max-false-alarms" placeholder:"N" default:"-1" help:"Exit with status 1 when more than N clean logs have a finding at error level (-1: no limit)."`
}

// corpusCase is one line of a corpus manifest.
type corpusCase struct {
	File              string `json:"file"`
	Kind              string `json:"kind"`
	ExpectedException string `json:"expected_exception"`
	ExpectedMessage   string `json:"expected_message"`
}

// caseResult is how tailfix did on one log.
type caseResult struct {
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
	Known       bool   `json:"known"`
	HandWritten bool   `json:"hand_written"`
	First       string `json:"first,omitempty"`
}

// corpusSummary is the whole measure.
type corpusSummary struct {
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

func (s corpusSummary) top1Pct() float64 {
	if s.Errors == 0 {
		return 100
	}
	return 100 * float64(s.Top1) / float64(s.Errors)
}

func (c *measureCmd) Run(e *env) error {
	m, err := e.load()
	if err != nil {
		return err
	}
	cases, err := readManifest(c.Manifest)
	if err != nil {
		return err
	}
	dir := filepath.Dir(c.Manifest)
	var results []caseResult
	var sum corpusSummary
	for _, k := range cases {
		r, err := measureCase(m, filepath.Join(dir, k.File), k)
		if err != nil {
			return err
		}
		results = append(results, r)
		switch k.Kind {
		case "clean":
			sum.Clean++
			if r.FalseAlarm {
				sum.FalseAlarms++
			}
		default:
			sum.Errors++
			if r.Top1 {
				sum.Top1++
			}
			if r.AnyHit {
				sum.AnyHit++
			}
			if !r.KeyLineFound {
				sum.KeyLineAbsent++
			}
			if r.Known {
				sum.Known++
			}
			if r.HandWritten {
				sum.HandWritten++
			}
		}
	}
	if err := printMeasure(e, results, sum); err != nil {
		return err
	}
	if c.MinTop1 > 0 && sum.top1Pct() < c.MinTop1 {
		return errFound
	}
	if c.MaxFalseAlarms >= 0 && sum.FalseAlarms > c.MaxFalseAlarms {
		return errFound
	}
	return nil
}

func readManifest(name string) ([]corpusCase, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("cannot open manifest %q: %w", name, unwrapPath(err))
	}
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var k corpusCase
		if err := json.Unmarshal(line, &k); err != nil {
			return nil, fmt.Errorf("manifest %s:%d: %w", name, n, err)
		}
		switch {
		case k.File == "":
			return nil, fmt.Errorf("manifest %s:%d: no file", name, n)
		case k.Kind != "error" && k.Kind != "clean":
			return nil, fmt.Errorf("manifest %s:%d: kind %q is neither error nor clean", name, n, k.Kind)
		case k.Kind == "error" && k.ExpectedException == "" && k.ExpectedMessage == "":
			return nil, fmt.Errorf("manifest %s:%d: an error case needs expected_exception or expected_message", name, n)
		}
		cases = append(cases, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read manifest %q: %w", name, err)
	}
	return cases, nil
}

// measureCase runs one log through the matcher. The first finding at error
// level is right when its event holds the line with the expected message
// (and its exception, when it has one, is the expected one); when the
// expected message is not in the log, the finding's own text must match.
func measureCase(m *matcher.Matcher, path string, k corpusCase) (caseResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return caseResult{}, fmt.Errorf("corpus case %q: %w", k.File, unwrapPath(err))
	}
	sess := diagnose.New(m, diagnose.Options{})
	if err := sess.Add(k.File, diagnose.SourceOptions{}).Scan(bytes.NewReader(data)); err != nil {
		return caseResult{}, fmt.Errorf("corpus case %q: %w", k.File, err)
	}
	var errs []*diagnose.Finding
	for _, f := range sess.Findings() {
		if f.Severity >= patterns.SeverityError {
			errs = append(errs, f)
		}
	}
	r := caseResult{File: k.File, Kind: k.Kind}
	if len(errs) > 0 {
		f := errs[0]
		r.First = fmt.Sprintf("%s %s: %s", f.ID, f.Exception, f.Message)
	}
	if k.Kind == "clean" {
		r.FalseAlarm = len(errs) > 0
		return r, nil
	}
	keys := keyLines(data, strings.TrimSpace(k.ExpectedMessage))
	r.KeyLineFound = len(keys) > 0
	for i, f := range errs {
		if holds(f, k, keys) {
			if !r.AnyHit && f.Record != nil {
				r.Known, r.HandWritten = true, f.Record.Gen == nil
			}
			r.AnyHit = true
			r.Top1 = r.Top1 || i == 0
		}
	}
	return r, nil
}

// keyLines returns the 1-based numbers of the lines whose matching view
// contains msg.
func keyLines(data []byte, msg string) []int64 {
	if msg == "" {
		return nil
	}
	var out []int64
	var buf []byte
	for n := int64(1); len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		buf = matcher.Normalize(buf[:0], line)
		if bytes.Contains(buf, []byte(msg)) {
			out = append(out, n)
		}
	}
	return out
}

// holds reports whether finding f is the expected error of case k.
func holds(f *diagnose.Finding, k corpusCase, keys []int64) bool {
	if f.Exception != "" && k.ExpectedException != "" && !matcher.SameClass(f.Exception, k.ExpectedException) {
		return false
	}
	if len(keys) > 0 {
		for _, l := range keys {
			if f.Line <= l && l <= f.EndLine {
				return true
			}
		}
		return false
	}
	msg := strings.TrimSpace(k.ExpectedMessage)
	text := f.Exception + ": " + f.Message
	switch {
	case msg != "" && strings.Contains(text, msg):
		return true
	case msg != "" && len(f.Message) >= 10 && strings.Contains(msg, f.Message):
		return true
	}
	return msg == "" && f.Exception != ""
}

func printMeasure(e *env, results []caseResult, sum corpusSummary) error {
	if e.format == remedies.JSON {
		enc := json.NewEncoder(e.stdout)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return enc.Encode(struct {
			Summary corpusSummary `json:"summary"`
		}{sum})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tRESULT\tFIRST FINDING AT ERROR LEVEL")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.File, r.verdict(), clip(r.First, 90))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	pct := func(n, d int) string {
		if d == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
	}
	_, err := fmt.Fprintf(e.stdout, "\ntop-1 %d/%d (%s)  any-hit %d/%d (%s)  false alarms %d/%d  key line not in log %d\n"+
		"known pattern with a remedy %d/%d (%s), written by hand %d/%d (%s)\n",
		sum.Top1, sum.Errors, pct(sum.Top1, sum.Errors), sum.AnyHit, sum.Errors, pct(sum.AnyHit, sum.Errors),
		sum.FalseAlarms, sum.Clean, sum.KeyLineAbsent,
		sum.Known, sum.Errors, pct(sum.Known, sum.Errors), sum.HandWritten, sum.Errors, pct(sum.HandWritten, sum.Errors))
	return err
}

func (r caseResult) verdict() string {
	switch {
	case r.Kind == "clean" && r.FalseAlarm:
		return "FALSE ALARM"
	case r.Kind == "clean":
		return "quiet"
	case r.Top1:
		return "top-1"
	case r.AnyHit:
		return "later"
	}
	return "MISSED"
}

// clip shortens s to at most n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

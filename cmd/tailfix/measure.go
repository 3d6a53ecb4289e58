package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/tailfix/tailfix/corpus"
	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/remedies"
)

type measureCmd struct {
	Manifest       string  `arg:"" name:"MANIFEST" help:"Corpus manifest: JSON Lines with file, kind (error or clean), expected_exception and expected_message; files are relative to it."`
	MinTop1        float64 `name:"min-top1" placeholder:"PCT" help:"Exit with status 1 when top-1 is below PCT percent of the error cases."`
	MaxFalseAlarms int     `name:"max-false-alarms" placeholder:"N" default:"-1" help:"Exit with status 1 when more than N clean logs have a finding at error level (-1: no limit)."`
	Baseline       bool    `help:"Also score the naive baseline, grep -iE 'error|exception|fail|traceback' read first line first, on the same logs, side by side."`
}

// row is one case's results: tailfix's, and the baseline's when asked.
type row struct {
	corpus.Result
	Baseline *corpus.Result `json:"baseline,omitempty"`
}

func (c *measureCmd) Run(e *env) error {
	m, err := e.load()
	if err != nil {
		return err
	}
	cases, err := corpus.ReadManifest(c.Manifest)
	if err != nil {
		return err
	}
	dir := filepath.Dir(c.Manifest)
	var rows []row
	var sum corpus.Summary
	var base *corpus.Summary
	if c.Baseline {
		base = &corpus.Summary{}
	}
	for _, k := range cases {
		data, err := os.ReadFile(filepath.Join(dir, k.File))
		if err != nil {
			return fmt.Errorf("corpus case %q: %w", k.File, unwrapPath(err))
		}
		r, err := measureCase(m, data, k)
		if err != nil {
			return err
		}
		rw := row{Result: r}
		sum.Add(r)
		if base != nil {
			g := corpus.Grep(k, data)
			rw.Baseline = &g
			base.Add(g)
		}
		rows = append(rows, rw)
	}
	if err := printMeasure(e, rows, sum, base); err != nil {
		return err
	}
	if c.MinTop1 > 0 && sum.Top1Pct() < c.MinTop1 {
		return errFound
	}
	if c.MaxFalseAlarms >= 0 && sum.FalseAlarms > c.MaxFalseAlarms {
		return errFound
	}
	return nil
}

// measureCase diagnoses the log of one case and scores the findings.
func measureCase(m *matcher.Matcher, data []byte, k corpus.Case) (corpus.Result, error) {
	sess := diagnose.New(m, diagnose.Options{})
	if err := sess.Add(k.File, diagnose.SourceOptions{}).Scan(bytes.NewReader(data)); err != nil {
		return corpus.Result{}, fmt.Errorf("corpus case %q: %w", k.File, err)
	}
	return corpus.Score(k, data, sess.Findings()), nil
}

func printMeasure(e *env, rows []row, sum corpus.Summary, base *corpus.Summary) error {
	if e.format == remedies.JSON {
		enc := json.NewEncoder(e.stdout)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		var only *int
		if base != nil {
			n := grepOnly(rows)
			only = &n
		}
		return enc.Encode(struct {
			Summary  corpus.Summary  `json:"summary"`
			Baseline *corpus.Summary `json:"baseline,omitempty"`
			GrepOnly *int            `json:"grep_only,omitempty"`
		}{sum, base, only})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	if base != nil {
		fmt.Fprintln(tw, "CASE\tRESULT\tGREP\tFIRST FINDING")
	} else {
		fmt.Fprintln(tw, "CASE\tRESULT\tFIRST FINDING")
	}
	for _, r := range rows {
		if r.Baseline != nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.File, r.Verdict(), r.Baseline.Verdict(), clip(r.First, 80))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.File, r.Verdict(), clip(r.First, 90))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	pct := func(n, d int) string {
		p, ok := corpus.Percent(n, d)
		if !ok {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", p)
	}
	_, err := fmt.Fprintf(e.stdout, "\ntop-1 %d/%d (%s)  any-hit %d/%d (%s)  false alarms %d/%d  key line not in log %d\n"+
		"known pattern with a remedy %d/%d (%s), written by hand %d/%d (%s)\n",
		sum.Top1, sum.Errors, pct(sum.Top1, sum.Errors), sum.AnyHit, sum.Errors, pct(sum.AnyHit, sum.Errors),
		sum.FalseAlarms, sum.Clean, sum.KeyLineAbsent,
		sum.Known, sum.Errors, pct(sum.Known, sum.Errors), sum.HandWritten, sum.Errors, pct(sum.HandWritten, sum.Errors))
	if err != nil || base == nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "baseline (%s, first line first): top-1 %d/%d (%s)  any-hit %d/%d (%s)  false alarms %d/%d\n"+
		"found by the baseline and missed by tailfix: %d\n",
		corpus.GrepRule, base.Top1, base.Errors, pct(base.Top1, base.Errors), base.AnyHit, base.Errors, pct(base.AnyHit, base.Errors),
		base.FalseAlarms, base.Clean, grepOnly(rows))
	return err
}

// grepOnly counts the error cases whose expected error the baseline finds
// and tailfix does not: where tailfix is quieter than a grep.
func grepOnly(rows []row) int {
	n := 0
	for _, r := range rows {
		if r.Kind == corpus.KindError && r.Baseline != nil && r.Baseline.AnyHit && !r.AnyHit {
			n++
		}
	}
	return n
}

// clip shortens s to at most n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

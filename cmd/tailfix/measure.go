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
	var results []corpus.Result
	var sum corpus.Summary
	for _, k := range cases {
		r, err := measureCase(m, filepath.Join(dir, k.File), k)
		if err != nil {
			return err
		}
		results = append(results, r)
		sum.Add(r)
	}
	if err := printMeasure(e, results, sum); err != nil {
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
func measureCase(m *matcher.Matcher, path string, k corpus.Case) (corpus.Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return corpus.Result{}, fmt.Errorf("corpus case %q: %w", k.File, unwrapPath(err))
	}
	sess := diagnose.New(m, diagnose.Options{})
	if err := sess.Add(k.File, diagnose.SourceOptions{}).Scan(bytes.NewReader(data)); err != nil {
		return corpus.Result{}, fmt.Errorf("corpus case %q: %w", k.File, err)
	}
	return corpus.Score(k, data, sess.Findings()), nil
}

func printMeasure(e *env, results []corpus.Result, sum corpus.Summary) error {
	if e.format == remedies.JSON {
		enc := json.NewEncoder(e.stdout)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return enc.Encode(struct {
			Summary corpus.Summary `json:"summary"`
		}{sum})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tRESULT\tFIRST FINDING AT ERROR LEVEL")
	for _, r := range results {
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
	return err
}

// clip shortens s to at most n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

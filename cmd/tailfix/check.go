package main

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/remedies"
)

type checkCmd struct {
	Prefill string   `help:"A prefill server's launch command, as one shell-quoted string; with --decode, the two are also checked against each other." placeholder:"CMD"`
	Decode  string   `help:"A decode server's launch command, as one shell-quoted string." placeholder:"CMD"`
	Command []string `arg:"" optional:"" passthrough:"" name:"COMMAND" help:"The launch command, after --: python -m sglang.launch_server …, sglang serve … or launch_server.py …, with environment assignments before it if any."`
}

const checkUsage = "tailfix check -- python -m sglang.launch_server --model-path M …, or tailfix check --prefill 'CMD' --decode 'CMD'"

// Run checks a launch command (or a prefill and a decode command) against
// sglang's flag table and the rules, without running anything, and prints
// the findings as scan does.
func (c *checkCmd) Run(e *env) error {
	args := c.Command
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	pair := c.Prefill != "" || c.Decode != ""
	switch {
	case len(args) == 0 && !pair:
		return hintError{errors.New("check: no command given"), checkUsage}
	case len(args) > 0 && pair:
		return hintError{errors.New("check: give a command after --, or --prefill and --decode, not both"), checkUsage}
	}
	table, err := patterns.Flags()
	if err != nil {
		return err
	}
	opt := launch.Options{HFCache: hfCache()}
	var issues []launch.Issue
	if pair {
		prefill, err := parseCommand(c.Prefill, nil, "prefill command", table)
		if err != nil {
			return err
		}
		decode, err := parseCommand(c.Decode, nil, "decode command", table)
		if err != nil {
			return err
		}
		issues = launch.CheckPair(prefill, decode, opt)
	} else {
		cmd, err := parseCommand("", args, "command line", table)
		if err != nil {
			return err
		}
		issues = launch.Check(cmd, opt)
	}
	pack, err := e.loadRecords()
	if err != nil {
		return err
	}
	findings, err := checkFindings(pack, issues)
	if err != nil {
		return err
	}
	what := "the launch command"
	if pair {
		what = "the launch commands"
	}
	if err := printCheck(e, findings, what); err != nil {
		return err
	}
	return e.verdict(findings)
}

// parseCommand parses a command given as one string (text) or as words.
// A single word with spaces in it is split like a string.
func parseCommand(text string, words []string, source string, table *patterns.FlagTable) (*launch.Command, error) {
	if text == "" && len(words) == 1 && strings.ContainsAny(words[0], " \t\n") {
		text = words[0]
	}
	if words == nil || text != "" {
		var err error
		if words, err = launch.Split(text); err != nil {
			return nil, hintError{fmt.Errorf("check: cannot split the %s: %w", source, err), "close the quote, or quote the command as a whole in single quotes"}
		}
		if len(words) == 0 && source != "command line" {
			return nil, nil // an empty --prefill or --decode: check the other alone
		}
	}
	cmd, err := launch.Parse(words, source, table)
	if err != nil {
		return nil, hintError{fmt.Errorf("check: %s: %w", source, err), checkUsage}
	}
	return cmd, nil
}

// hfCache is the Hugging Face hub cache directory, where a model given by
// repo id may already have its config.json.
func hfCache() string {
	if dir := os.Getenv("HF_HUB_CACHE"); dir != "" {
		return dir
	}
	if dir := os.Getenv("HF_HOME"); dir != "" {
		return filepath.Join(dir, "hub")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "huggingface", "hub")
	}
	return ""
}

// loadRecords loads the hand-written records and any --patterns dirs,
// without compiling a matcher: check only looks records up by id. The
// generated records are added only when a --patterns record relates to
// one of them.
func (e *env) loadRecords() (*patterns.Pack, error) {
	pack, err := e.pack(patterns.Curated)
	if err != nil && len(e.patternDirs) > 0 {
		// A user's record may relate to a generated one.
		return e.pack(patterns.Builtin)
	}
	return pack, err
}

// checkFindings turns issues into findings whose record is the pattern of
// the error each one predicts, most severe first. The record is a copy
// whose before/after are the user's own flags, so that every output format
// shows them; they are also in the captures "before" and "after".
func checkFindings(pack *patterns.Pack, issues []launch.Issue) ([]*diagnose.Finding, error) {
	findings := make([]*diagnose.Finding, 0, len(issues))
	for _, is := range issues {
		rec := pack.Lookup(is.ID)
		if rec == nil {
			return nil, fmt.Errorf("check: no pattern record %q", is.ID)
		}
		r := *rec
		if is.Before != "" || is.After != "" {
			r.Fix.Before, r.Fix.After = is.Before, is.After
		}
		caps := maps.Clone(is.Captures)
		if caps == nil {
			caps = map[string]string{}
		}
		caps["before"], caps["after"] = is.Before, is.After
		findings = append(findings, &diagnose.Finding{
			ID: r.ID, Title: r.Title, Severity: cmp.Or(is.Severity, r.Severity), Record: &r,
			Message: is.Message, Captures: caps, Source: is.Side, Line: 0, EndLine: 0, Count: 1, RootCause: true,
		})
	}
	slices.SortStableFunc(findings, func(a, b *diagnose.Finding) int { return cmp.Compare(b.Severity, a.Severity) })
	return findings, nil
}

// printCheck writes the findings one by one, then a summary line; JSON
// writes the findings alone.
func printCheck(e *env, findings []*diagnose.Finding, what string) error {
	p := e.printer(e.stdout)
	if e.format == remedies.JSON {
		for _, f := range findings {
			if err := p.Finding(f); err != nil {
				return err
			}
		}
		return nil
	}
	out := e.findings(e.stdout)
	w := bufio.NewWriter(out)
	if len(findings) == 0 {
		fmt.Fprintf(w, "✓ no problems found in %s\n", what)
		return w.Flush()
	}
	if e.format == remedies.Markdown {
		fmt.Fprintf(w, "# tailfix check: %s\n\n", what)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for i, f := range findings {
		if i > 0 && e.format == remedies.Text {
			fmt.Fprintln(out)
		}
		if err := p.Finding(f); err != nil {
			return err
		}
	}
	var counts [patterns.SeverityFatal + 1]int
	for _, f := range findings {
		counts[f.Severity]++
	}
	var parts []string
	for s := patterns.SeverityFatal; s >= patterns.SeverityInfo; s-- {
		if counts[s] > 0 {
			word := s.String()
			if counts[s] > 1 && s != patterns.SeverityFatal {
				word += "s"
			}
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], word))
		}
	}
	noun := "problems"
	if len(findings) == 1 {
		noun = "problem"
	}
	if e.format == remedies.Text {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d %s in %s: %s\n", len(findings), noun, what, strings.Join(parts, ", "))
	return w.Flush()
}

package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/patterns"
)

type explainCmd struct {
	What []string `arg:"" name:"ID|TEXT" help:"A pattern id (see 'tailfix patterns list'), or a line or more from a log; - reads them from stdin (a pasted traceback)."`
}

// maxExplainText bounds what explain reads from stdin: a pasted excerpt,
// not a log (scan reads those).
const maxExplainText = 4 << 20

// Run shows a record by id, or the findings in the given text: each with
// the text's own line, its values worked into the fix.
func (c *explainCmd) Run(e *env) error {
	pack, err := e.pack(patterns.Builtin)
	if err != nil {
		return err
	}
	text := strings.Join(c.What, " ")
	if text == "-" {
		b, err := io.ReadAll(io.LimitReader(e.stdin, maxExplainText+1))
		if err != nil {
			return fmt.Errorf("explain: read stdin: %w", err)
		}
		if len(b) > maxExplainText {
			return hintError{fmt.Errorf("explain: more than %d MiB on stdin", maxExplainText>>20), "scan reads whole logs: tailfix scan -"}
		}
		text = string(b)
	}
	p := e.printer(e.stdout)
	if r := pack.Lookup(strings.TrimSpace(text)); r != nil {
		return p.Record(r) // a record by id: no automaton needed
	}
	if r := patterns.LookupLibrary(strings.TrimSpace(text)); r != nil {
		return p.Record(r) // a library's error, by id
	}
	m, err := compileMatcher(pack)
	if err != nil {
		return err
	}
	sess := diagnose.New(m, diagnose.Options{})
	if err := sess.Add("text", diagnose.SourceOptions{}).Scan(strings.NewReader(text)); err != nil {
		return err
	}
	r := sess.Reports()[0]
	if len(r.Findings) == 0 {
		return unknownID(m.Pack(), strings.TrimSpace(text))
	}
	// The findings as scan shows them: the text's own lines and values,
	// not the records' patterns (tailfix explain ID shows those).
	r.Sources = []string{"the text"}
	return p.Report(r.Findings, summary(r))
}

// unknownID is the error for text that is neither a record's id nor a
// known error: ids near it when it looks like an id, so that a misspelt
// or misremembered id (sglang/port-in-use) leads to the record
// (net/address-in-use).
func unknownID(pack *patterns.Pack, text string) error {
	if idLike.MatchString(text) {
		ids := make([]string, len(pack.Records))
		for i, r := range pack.Records {
			ids[i] = r.ID
		}
		if near := similarIDs(ids, text); len(near) > 0 {
			return fmt.Errorf("no record named %q; did you mean: %s?", text, strings.Join(near, ", "))
		}
		if strings.Contains(text, "/") {
			return hintError{fmt.Errorf("no record named %q", text),
				"'tailfix patterns list' shows the ids"}
		}
	}
	return hintError{errors.New("no pattern id or known error in that text"),
		"'tailfix patterns list' shows the ids; give the error line as the log prints it"}
}

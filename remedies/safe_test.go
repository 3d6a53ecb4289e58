package remedies

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/patterns"
)

func TestSafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, tabs\tand ünïcode ✓", "plain text, tabs\tand ünïcode ✓"},
		{"\x1b]0;TITLE\x07\x1b[2J", `\x1b]0;TITLE\x07\x1b[2J`},
		{"bs\x08 so\x0e si\x0f del\x7f nl\n cr\r", `bs\x08 so\x0e si\x0f del\x7f nl\x0a cr\x0d`},
		{"c1 csi \u009b31m", `c1 csi \x9b31m`},
		{"bad \xff utf8", `bad \xff utf8`},
		{"bidi \u202egnp.exe", `bidi \u202egnp.exe`},
		{"sep \u2028", `sep \u2028`},
		{"real U+FFFD \ufffd stays", "real U+FFFD \ufffd stays"},
	}
	for _, tt := range tests {
		if got := Safe(tt.in); got != tt.want {
			t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// sgrRE is the printer's own styling: SGR escape sequences.
var sgrRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

// hostile holds what a log, a configuration value, a file name or a pack
// can carry that must never reach a terminal as it is.
const hostile = "\x1b]0;TITLE\x07\x1b[2J\x08\x0e\x0f\x7f\u009b\xc2\x9b\u202e\r\nX"

// Every text and Markdown writer shows hostile input escaped.
func TestWritersNeverEmitControls(t *testing.T) {
	rec := &patterns.Record{ID: "t/x" + hostile, Title: "title" + hostile, Severity: patterns.SeverityError,
		Cause: "cause" + hostile, Related: []string{"r" + hostile},
		Match: patterns.Match{Exception: "E" + hostile, Regex: "re" + hostile},
		Fix:   patterns.Fix{Steps: []string{"step {port|1}" + hostile}, Before: "--model-path {model_path|m}", After: "--port {port|2}"}}
	cfg := mapConfig{"model_path": "/models/" + hostile, "port": "3000" + hostile}
	f := &diagnose.Finding{ID: rec.ID, Title: rec.Title, Severity: rec.Severity, Record: rec,
		Exception: "ValueError" + hostile, Message: "msg" + hostile, Source: "file`name" + hostile + ".log",
		Line: 3, EndLine: 4, Count: 2, Ranks: []string{"TP0" + hostile}, FirstSeen: "t" + hostile,
		SymptomOf: "s" + hostile, Captures: map[string]string{"port": "31000" + hostile}, Config: cfg}
	warn := *f
	warn.Severity = patterns.SeverityWarning
	sum := Summary{Sources: []string{"src" + hostile}, Lines: 4}
	for _, format := range []Format{Text, Markdown, Brief} {
		for _, color := range []bool{false, true} {
			var b bytes.Buffer
			p := NewPrinter(&b, Options{Format: format, Color: color})
			if err := p.Report([]*diagnose.Finding{f, &warn}, sum); err != nil {
				t.Fatal(err)
			}
			if err := p.Finding(f); err != nil {
				t.Fatal(err)
			}
			if err := p.Update(diagnose.Update{Kind: diagnose.Withdrawn, Finding: f}); err != nil {
				t.Fatal(err)
			}
			if err := p.Brief([]*diagnose.Finding{&warn}, sum); err != nil {
				t.Fatal(err)
			}
			if err := p.Record(rec); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if color {
				// The printer's own styling: SGR sequences only.
				out = sgrRE.ReplaceAllString(out, "")
			}
			for _, bad := range []string{"\x1b", "\x07", "\x08", "\x0e", "\x0f", "\x7f", "\r", "\u009b", "\u202e"} {
				if strings.Contains(out, bad) {
					t.Errorf("format %v color %v: output holds %q:\n%s", format, color, bad, out)
				}
			}
			if !strings.Contains(out, `\x1b]0;TITLE\x07`) {
				t.Errorf("format %v color %v: the hostile text is not shown escaped:\n%s", format, color, out)
			}
			if format == Markdown && strings.Contains(out, "file`name") {
				t.Errorf("a backtick in a file name ends its code span:\n%s", out)
			}
		}
	}
}

func TestSafeWriter(t *testing.T) {
	var b bytes.Buffer
	w := SafeWriter(&b)
	in := "WRN cannot read file=a\x1b[2J.log\nnext line\ttab\n"
	n, err := w.Write([]byte(in))
	if err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if want := "WRN cannot read file=a\\x1b[2J.log\nnext line\ttab\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}

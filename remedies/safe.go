package remedies

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/patterns"
)

// Safe returns s as a terminal may show it: control characters (C0 but
// tab, DEL, C1), escape sequences, Unicode's line and paragraph separators,
// bidirectional overrides and invalid UTF-8 are written visibly escaped
// (`\x1b`, `\u202e`), never emitted. Text from inputs (log lines, decoded
// configuration values, file names, pattern packs) goes through it before
// the text and Markdown writers style it; JSON escapes by itself.
func Safe(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape reports whether Safe would change s.
func needsEscape(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return true
			}
		}
		if unsafeRune(r) {
			return true
		}
	}
	return false
}

// unsafeRune reports whether a rune may not reach a terminal as it is.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20 && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c: // bidirectional controls
		return true
	}
	return false
}

// safeFinding is a copy of f whose text fields are Safe.
func safeFinding(f *diagnose.Finding) *diagnose.Finding {
	g := *f
	g.ID, g.Title, g.Exception, g.Message = Safe(f.ID), Safe(f.Title), Safe(f.Exception), Safe(f.Message)
	g.Source, g.SymptomOf, g.FirstSeen, g.LastSeen = Safe(f.Source), Safe(f.SymptomOf), Safe(f.FirstSeen), Safe(f.LastSeen)
	g.Frame, g.OwnFrame = Safe(f.Frame), Safe(f.OwnFrame)
	if len(f.Ranks) > 0 {
		g.Ranks = make([]string, len(f.Ranks))
		for i, r := range f.Ranks {
			g.Ranks[i] = Safe(r)
		}
	}
	return &g
}

// safeRemedy is rem with every text Safe: templates draw on configuration
// values and captures, which come from the input.
func safeRemedy(rem Remedy) Remedy {
	rem.Cause, rem.Before, rem.After = Safe(rem.Cause), Safe(rem.Before), Safe(rem.After)
	rem.Steps = safeAll(rem.Steps)
	rem.Worked = safeAll(rem.Worked)
	return rem
}

func safeAll(list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = Safe(s)
	}
	return out
}

// safeRecord is a copy of r whose text is Safe, for describing a record
// from a pack.
func safeRecord(r *patterns.Record) *patterns.Record {
	g := *r
	g.ID, g.Title, g.Cause = Safe(r.ID), Safe(r.Title), Safe(r.Cause)
	g.Fix.Steps = safeAll(r.Fix.Steps)
	g.Fix.Before, g.Fix.After = Safe(r.Fix.Before), Safe(r.Fix.After)
	if o := r.Fix.Otherwise; o != nil {
		g.Fix.Otherwise = &patterns.Change{Before: Safe(o.Before), After: Safe(o.After)}
	}
	g.Related, g.Tags = safeAll(r.Related), safeAll(r.Tags)
	g.Match.Message, g.Match.Regex, g.Match.Exception, g.Match.Frame = Safe(r.Match.Message), Safe(r.Match.Regex), Safe(r.Match.Exception), Safe(r.Match.Frame)
	return &g
}

// mdCode is s as the inside of a Markdown code span: a backtick would end
// the span early, so it becomes a quote.
func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }

// mdReplacer escapes what Markdown would read as markup in running text.
var mdReplacer = strings.NewReplacer("\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]", "<", "\\<", ">", "\\>", "#", "\\#", "|", "\\|")

// mdText is s as Markdown running text, its markup characters escaped.
func mdText(s string) string { return mdReplacer.Replace(s) }

// SafeWriter writes plain text with Safe applied to each line: for
// diagnostics that name inputs (file names, errors) on a terminal.
func SafeWriter(w io.Writer) io.Writer { return safeWriter{w} }

type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	text := string(p)
	if !needsEscape(strings.ReplaceAll(text, "\n", "")) {
		return s.w.Write(p)
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = Safe(l)
	}
	if _, err := io.WriteString(s.w, strings.Join(lines, "\n")); err != nil {
		return 0, err
	}
	return len(p), nil
}

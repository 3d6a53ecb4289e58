package remedies

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/pyrepr"
)

// Format is an output format.
type Format int

// Output formats.
const (
	Text Format = iota
	JSON
	Markdown
	// Brief is one line per finding, as a compiler writes them:
	// "file:line: severity id: message → fix".
	Brief
)

var formatNames = []string{"text", "json", "markdown", "brief"}

// Formats lists the valid format names.
func Formats() []string { return append([]string(nil), formatNames...) }

// ParseFormat parses text, json, markdown or brief.
func ParseFormat(s string) (Format, error) {
	for i, n := range formatNames {
		if s == n {
			return Format(i), nil
		}
	}
	return 0, fmt.Errorf("invalid format %q (valid: %s)", s, strings.Join(formatNames, ", "))
}

// Options configure a Printer. They are settled once, by the caller.
type Options struct {
	Format Format
	// Color enables ANSI styling of the text format.
	Color bool
	// Width is the column to wrap text at; 0 means 100.
	Width int
	// Sources labels each finding of the text format with its input, in a
	// colour of its own, for live modes that read several files.
	Sources bool
	// Excerpt, when set, returns the lines from to to of a source, for the
	// Markdown format to show a finding's own log lines; nil when it cannot.
	Excerpt func(source string, from, to int64) []string
}

// Summary describes what a report covered.
type Summary struct {
	Sources []string
	Lines   int64
	// Folded estimates how many distinct unrecognised errors were folded
	// into the summaries of their families.
	Folded int
}

// Printer renders findings to a writer.
type Printer struct {
	w   io.Writer
	opt Options
	st  styles
	// flagsShown is the configuration whose flags the Markdown format
	// showed last: each server's flags are shown once.
	flagsShown *pyrepr.ServerArgs
}

// NewPrinter returns a printer writing to w.
func NewPrinter(w io.Writer, opt Options) *Printer {
	if opt.Width <= 0 {
		opt.Width = 100
	}
	opt.Width = max(opt.Width, 40)
	return &Printer{w: w, opt: opt, st: newStyles(w, opt.Color && opt.Format == Text)}
}

// Finding writes one finding, as the live modes do when it appears.
func (p *Printer) Finding(f *diagnose.Finding) error {
	bw := bufio.NewWriter(p.w)
	switch p.opt.Format {
	case JSON:
		if err := writeJSON(bw, f); err != nil {
			return err
		}
	case Markdown:
		p.markdown(bw, safeFinding(f))
	case Brief:
		p.compilerLine(bw, safeFinding(f))
	default:
		p.text(bw, safeFinding(f))
	}
	return bw.Flush()
}

// compilerLine writes a finding as one line, the way compilers report:
// where, how bad, which record, what it says, and the fix in short.
func (p *Printer) compilerLine(w io.Writer, f *diagnose.Finding) {
	src := f.Source
	if src == "-" {
		src = "stdin"
	}
	where := src
	if f.Line > 0 {
		where = fmt.Sprintf("%s:%d", src, f.Line)
	}
	msg := f.Message
	if f.Exception != "" {
		msg = f.Exception + ": " + msg
	}
	fmt.Fprintf(w, "%s: %s %s: %s", where, f.Severity, f.ID, clipWords(oneLine(msg), briefText))
	if f.Count > 1 || len(f.Ranks) > 0 {
		fmt.Fprintf(w, " (×%d", f.Count)
		if len(f.Ranks) > 0 {
			fmt.Fprintf(w, " on %s", FormatRanks(f.Ranks))
		}
		w.Write([]byte{')'})
	}
	if !f.RootCause && f.SymptomOf != "" {
		fmt.Fprintf(w, " [symptom of %s]", f.SymptomOf)
	} else if fix := shortFix(For(f)); fix != "" {
		fmt.Fprintf(w, " → %s", clipWords(oneLine(fix), briefText))
	}
	w.Write([]byte{'\n'})
}

// shortFix is a remedy in a few words: the change in the server's own
// flags when there is one, else the first step.
func shortFix(r Remedy) string {
	switch {
	case r.After != "" && !r.Example:
		return r.After
	case len(r.Steps) > 0:
		return r.Steps[0]
	}
	return ""
}

// briefText bounds the message and the fix on a brief line.
const briefText = 160

// clipWords cuts s to about n bytes at a space, marking the cut with "…".
func clipWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexByte(s[:n], ' ')
	if cut < n/2 {
		cut = n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}

// oneLine folds the line breaks of a message into spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Update writes what a live session says: a new finding, an open event
// shown as it stands, or the withdrawal of such a view.
func (p *Printer) Update(u diagnose.Update) error {
	if u.Kind != diagnose.Withdrawn {
		return p.Finding(u.Finding)
	}
	f := u.Finding
	bw := bufio.NewWriter(p.w)
	if p.opt.Format != JSON {
		f = safeFinding(f)
	}
	switch p.opt.Format {
	case JSON:
		j := toJSON(f)
		j.Withdrawn = true
		if err := encodeJSON(bw, j); err != nil {
			return err
		}
	case Markdown:
		fmt.Fprintf(bw, "- withdrawn: **%s** at `%s`: the rest of its lines made it another finding\n", mdText(f.Title), mdCode(location(f)))
	case Brief:
		fmt.Fprintf(bw, "%s: withdrawn %s: the rest of its lines made it another finding\n", location(f), f.ID)
	default:
		if p.opt.Sources {
			fmt.Fprintf(bw, "%s ", p.source(f.Source))
		}
		fmt.Fprintf(bw, "%s %s\n%s%s\n", p.st.meta.Render("withdrawn"), f.Title,
			indent, p.st.meta.Render("at "+location(f)+" · the rest of its lines made it another finding"))
	}
	return bw.Flush()
}

// Report writes a whole report: every finding in order, then for text and
// Markdown a summary line.
func (p *Printer) Report(findings []*diagnose.Finding, sum Summary) error {
	bw := bufio.NewWriter(p.w)
	if p.opt.Format != JSON {
		sum.Sources = safeAll(sum.Sources)
	}
	if p.opt.Format == Markdown {
		fmt.Fprintf(bw, "# tailfix report: %s\n\n", mdText(strings.Join(sum.Sources, ", ")))
	}
	for i, f := range findings {
		if p.opt.Format != JSON {
			f = safeFinding(f)
		}
		switch p.opt.Format {
		case JSON:
			if err := writeJSON(bw, f); err != nil {
				return err
			}
			continue
		case Markdown:
			p.markdown(bw, f)
		case Brief:
			p.compilerLine(bw, f)
		default:
			if f.Severity < patterns.SeverityError {
				// Warnings and notes: one line each, after the errors.
				if i > 0 && findings[i-1].Severity >= patterns.SeverityError {
					bw.WriteString("\n")
				}
				p.briefLine(bw, f)
				continue
			}
			if i > 0 {
				bw.WriteString("\n")
			}
			p.text(bw, f)
		}
	}
	if p.opt.Format != JSON {
		if len(findings) > 0 && p.opt.Format == Text {
			bw.WriteString("\n")
		}
		p.summary(bw, findings, sum)
	}
	return bw.Flush()
}

func (p *Printer) summary(w io.Writer, findings []*diagnose.Finding, sum Summary) {
	where := fmt.Sprintf("%s (%s)", strings.Join(sum.Sources, ", "), plural(int(sum.Lines), "line"))
	if len(findings) == 0 {
		fmt.Fprintf(w, "%s %s\n", p.st.ok.Render("✓ no problems found"), "in "+where)
		return
	}
	var counts [patterns.SeverityFatal + 1]int
	causes := 0
	for _, f := range findings {
		counts[f.Severity]++
		if f.RootCause && f.Severity >= patterns.SeverityError {
			causes++
		}
	}
	var parts []string
	for s := patterns.SeverityFatal; s >= patterns.SeverityInfo; s-- {
		if counts[s] > 0 {
			if s == patterns.SeverityFatal {
				parts = append(parts, fmt.Sprintf("%d fatal", counts[s]))
			} else {
				parts = append(parts, plural(counts[s], s.String()))
			}
		}
	}
	line := fmt.Sprintf("%s in %s: %s", plural(len(findings), "finding"), where, strings.Join(parts, ", "))
	if causes > 0 {
		line += "; root cause first"
	}
	if sum.Folded > 0 {
		line += fmt.Sprintf("; %s%s folded by family", about(sum.Folded), plural(sum.Folded, "distinct unrecognised error"))
	}
	fmt.Fprintln(w, p.st.summary.Render(line))
}

// foldedNote says how many distinct messages a family's summary holds;
// the message shown is the earliest.
func foldedNote(f *diagnose.Finding) string {
	return about(f.Folded) + plural(f.Folded, "distinct message") + " folded, the earliest shown"
}

// about marks an estimated number of distinct messages.
func about(folded int) string {
	if folded > diagnose.FoldedExact {
		return "about "
	}
	return ""
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func (p *Printer) badge(s patterns.Severity) string {
	st := p.st.err
	switch s {
	case patterns.SeverityFatal:
		st = p.st.fatal
	case patterns.SeverityWarning:
		st = p.st.warning
	case patterns.SeverityInfo:
		st = p.st.info
	}
	return st.Render(strings.ToUpper(s.String()))
}

// indent is the column where a finding's body starts.
const indent = "   "

// text writes one finding as a block:
//
//	ERROR  title
//	   id · ×8 on TP0–TP7 · root cause
//	   Exception: message
//	   at file:12-40 · first … last
//	   raised in path:line (function)
//
//	   Why  …
//	   Fix  1. …
//	        - before
//	        + after
func (p *Printer) text(w io.Writer, f *diagnose.Finding) {
	st := &p.st
	if p.opt.Sources {
		fmt.Fprintf(w, "%s ", p.source(f.Source))
	}
	fmt.Fprintf(w, "%s %s\n", p.badge(f.Severity), st.title.Render(f.Title))

	meta := []string{st.id.Render(f.ID)}
	if f.Count > 1 || len(f.Ranks) > 0 {
		seen := fmt.Sprintf("×%d", f.Count)
		if len(f.Ranks) > 0 {
			seen += " on " + FormatRanks(f.Ranks)
		}
		meta = append(meta, seen)
	}
	if f.Folded > 0 {
		meta = append(meta, foldedNote(f))
	}
	switch {
	case !f.RootCause && f.SymptomOf != "":
		meta = append(meta, "symptom of "+f.SymptomOf)
	case !f.RootCause:
		meta = append(meta, "symptom")
	case f.Severity >= patterns.SeverityError:
		meta = append(meta, "root cause")
	}
	if f.Provisional {
		meta = append(meta, "so far: its lines are still coming")
	}
	fmt.Fprintf(w, "%s%s\n", indent, strings.Join(meta, st.meta.Render(" · ")))

	msg := f.Message
	if f.Exception != "" {
		msg = f.Exception + ": " + msg
	}
	p.wrapped(w, indent, st.message, msg)

	at := "at " + location(f)
	if f.FirstSeen != "" {
		at += " · " + f.FirstSeen
		if f.LastSeen != "" && f.LastSeen != f.FirstSeen {
			at += " → " + f.LastSeen
		}
	}
	fmt.Fprintf(w, "%s%s\n", indent, st.meta.Render(at))
	if r := f.Record; r != nil && r.Where != nil {
		fmt.Fprintf(w, "%s%s\n", indent, st.meta.Render("raised in "+siteText(r.Where)))
	}

	p.remedy(w, f)
}

// source renders an input's name in the colour that input always gets.
func (p *Printer) source(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	return p.st.sources[h.Sum32()%uint32(len(p.st.sources))].Render("[" + name + "]")
}

// siteText is "file:line (function)".
func siteText(s *patterns.Site) string {
	t := s.File
	if s.Line > 0 {
		t += fmt.Sprintf(":%d", s.Line)
	}
	if s.Function != "" {
		t += " (" + s.Function + ")"
	}
	return t
}

// remedy writes the Why / Fix part of a finding.
func (p *Printer) remedy(w io.Writer, f *diagnose.Finding) {
	st := &p.st
	rem := safeRemedy(For(f))
	const gutter = indent + "     "
	if rem.Cause != "" {
		fmt.Fprintln(w)
		p.labelled(w, "Why", "", rem.Cause)
	}
	for _, line := range rem.Worked {
		p.labelled(w, "", "", line)
	}
	if len(rem.Steps) > 0 {
		fmt.Fprintln(w)
	}
	for i, step := range rem.Steps {
		label := ""
		if i == 0 {
			label = "Fix"
		}
		p.labelled(w, label, fmt.Sprintf("%d. ", i+1), step)
	}
	if rem.Before != "" || rem.After != "" {
		before, after := diffFlags(rem.Before, rem.After, st)
		fmt.Fprintln(w)
		if rem.Example {
			fmt.Fprintf(w, "%s%s\n", gutter, st.meta.Render("e.g. (not all your server's values):"))
		}
		fmt.Fprintf(w, "%s%s %s\n", gutter, st.minus.Render("-"), before)
		fmt.Fprintf(w, "%s%s %s\n", gutter, st.plus.Render("+"), after)
	}
}

// labelled writes "   Why  text…" with the text wrapped under itself;
// continuation lines hang under the text after a "1. " style prefix.
func (p *Printer) labelled(w io.Writer, label, prefix, text string) {
	head := indent + p.st.label.Render(fmt.Sprintf("%-4s", label)) + " " + prefix
	hang := strings.Repeat(" ", len(indent)+5+len(prefix))
	lines := wrapWords(p.code(text), p.opt.Width-len(hang))
	for i, line := range lines {
		if i == 0 {
			fmt.Fprintf(w, "%s%s\n", head, line)
			continue
		}
		fmt.Fprintf(w, "%s%s\n", hang, line)
	}
}

// code renders `code spans` in the code style, without their backticks.
func (p *Printer) code(s string) string {
	if !strings.Contains(s, "`") {
		return s
	}
	parts := strings.Split(s, "`")
	for i := 1; i < len(parts); i += 2 {
		if i == len(parts)-1 { // unbalanced: keep the backtick
			parts[i] = "`" + parts[i]
			break
		}
		parts[i] = p.st.code.Render(parts[i])
	}
	return strings.Join(parts, "")
}

// wrapWords breaks text at spaces into lines of at most width cells
// (escape sequences take none). A word longer than width gets a line of its
// own; words are never split.
func wrapWords(text string, width int) []string {
	var lines []string
	var cur strings.Builder
	curW := 0
	for _, word := range strings.Fields(text) {
		ww := ansi.StringWidth(word)
		if curW > 0 && curW+1+ww > width {
			lines = append(lines, cur.String())
			cur.Reset()
			curW = 0
		}
		if curW > 0 {
			cur.WriteByte(' ')
			curW++
		}
		cur.WriteString(word)
		curW += ww
	}
	if curW > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

func (p *Printer) wrapped(w io.Writer, prefix string, st interface{ Render(...string) string }, text string) {
	body := ansi.Wrap(text, p.opt.Width-len(prefix), "")
	for _, line := range strings.Split(body, "\n") {
		fmt.Fprintf(w, "%s%s\n", prefix, st.Render(line))
	}
}

// flagGroups splits a command-line fragment into groups: "--flag value…",
// a label such as "prefill:", or a lone word.
func flagGroups(s string) []string {
	var groups []string
	for _, tok := range strings.Fields(s) {
		starts := strings.HasPrefix(tok, "-") || strings.HasSuffix(tok, ":") || len(groups) == 0 ||
			strings.HasSuffix(groups[len(groups)-1], ":")
		if starts {
			groups = append(groups, tok)
		} else {
			groups[len(groups)-1] += " " + tok
		}
	}
	return groups
}

// remarkRE finds a remark set off after a command line: "…   (check the
// head counts)".
var remarkRE = regexp.MustCompile(`^(.*?\S)\s{2,}(\([^()]*\))$`)

// splitRemark separates a command line from a remark after it.
func splitRemark(s string) (cmd, remark string) {
	if m := remarkRE.FindStringSubmatch(s); m != nil {
		return m[1], m[2]
	}
	return s, ""
}

// diffFlags renders before and after with the groups that differ marked;
// a remark after either is shown as a remark, not as a change.
func diffFlags(before, after string, st *styles) (string, string) {
	before, bRemark := splitRemark(before)
	after, aRemark := splitRemark(after)
	withRemark := func(s, remark string) string {
		if remark == "" {
			return s
		}
		return s + "   " + st.meta.Render(remark)
	}
	b, a := diffGroups(before, after, st)
	return withRemark(b, bRemark), withRemark(a, aRemark)
}

// diffGroups renders two command lines with the groups that differ marked.
func diffGroups(before, after string, st *styles) (string, string) {
	bg, ag := flagGroups(before), flagGroups(after)
	mark := func(groups, other []string, changed interface{ Render(...string) string }) string {
		in := make(map[string]int, len(other))
		for _, g := range other {
			in[g]++
		}
		out := make([]string, len(groups))
		for i, g := range groups {
			if in[g] > 0 {
				in[g]--
				out[i] = st.kept.Render(g)
			} else {
				out[i] = changed.Render(g)
			}
		}
		return strings.Join(out, " ")
	}
	return mark(bg, ag, st.removed), mark(ag, bg, st.added)
}

// markdown writes one finding as a Markdown section.
func (p *Printer) markdown(w io.Writer, f *diagnose.Finding) {
	fmt.Fprintf(w, "## %s: %s\n\n", strings.ToUpper(f.Severity.String()), mdText(f.Title))
	fmt.Fprintf(w, "- id: `%s`\n", mdCode(f.ID))
	msg := f.Message
	if f.Exception != "" {
		msg = f.Exception + ": " + msg
	}
	fmt.Fprintf(w, "- message: %s\n", mdSpan(msg))
	fmt.Fprintf(w, "- at: `%s`", mdCode(location(f)))
	if f.Count > 1 || len(f.Ranks) > 0 {
		fmt.Fprintf(w, ", ×%d", f.Count)
		if len(f.Ranks) > 0 {
			fmt.Fprintf(w, " on %s", FormatRanks(f.Ranks))
		}
	}
	if f.Folded > 0 {
		fmt.Fprintf(w, ", %s", foldedNote(f))
	}
	fmt.Fprintln(w)
	if !f.RootCause && f.SymptomOf != "" {
		fmt.Fprintf(w, "- symptom of: `%s`\n", mdCode(f.SymptomOf))
	}
	if r := f.Record; r != nil && r.Where != nil {
		fmt.Fprintf(w, "- raised in: `%s`\n", mdCode(Safe(siteText(r.Where))))
	}
	if p.opt.Excerpt != nil && f.Line > 0 {
		if lines := p.opt.Excerpt(f.Source, f.Line, max(f.EndLine, f.Line)); len(lines) > 0 {
			to := f.Line + int64(len(lines)) - 1
			fmt.Fprintf(w, "\n<details><summary>The log's lines %s</summary>\n\n", lineRange(f.Line, to))
			mdBlock(w, "text", lines)
			fmt.Fprint(w, "\n</details>\n")
		}
	}
	if sa := diagnose.ServerArgs(f.Config); sa != nil && sa != p.flagsShown {
		if flags := nonDefaultFlags(sa); len(flags) > 0 {
			p.flagsShown = sa
			fmt.Fprintf(w, "\n<details><summary>The server's flags that are not sglang's defaults (%d)</summary>\n\n", len(flags))
			lines := make([]string, len(flags))
			for i, fl := range flags {
				lines[i] = "  " + fl + " \\"
			}
			lines[0] = strings.TrimPrefix(lines[0], "  ")
			lines[len(lines)-1] = strings.TrimSuffix(lines[len(lines)-1], " \\")
			mdBlock(w, "sh", lines)
			fmt.Fprint(w, "\n</details>\n")
		}
	}
	rem := safeRemedy(For(f))
	if rem.Cause != "" {
		fmt.Fprintf(w, "\n%s\n", rem.Cause)
	}
	for _, line := range rem.Worked {
		fmt.Fprintf(w, "\n%s\n", line)
	}
	if len(rem.Steps) > 0 {
		fmt.Fprintln(w)
		for i, s := range rem.Steps {
			fmt.Fprintf(w, "%d. %s\n", i+1, s)
		}
	}
	if rem.Before != "" || rem.After != "" {
		fmt.Fprintf(w, "\n```diff\n- %s\n+ %s\n```\n", rem.Before, rem.After)
	}
	fmt.Fprintln(w)
}

// Record writes what tailfix knows about one record: for text and
// Markdown a description with its remedy, for JSON the record itself.
func (p *Printer) Record(r *patterns.Record) error {
	bw := bufio.NewWriter(p.w)
	if p.opt.Format == JSON {
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			return err
		}
		return bw.Flush()
	}
	r = safeRecord(r)
	f := &diagnose.Finding{ID: r.ID, Title: r.Title, Severity: r.Severity, Record: r,
		Exception: r.Match.Exception, RootCause: r.Role != patterns.RoleSymptom}
	if p.opt.Format == Markdown {
		p.markdown(bw, f)
		return bw.Flush()
	}
	st := &p.st
	fmt.Fprintf(bw, "%s %s\n", p.badge(r.Severity), st.title.Render(r.Title))
	fmt.Fprintf(bw, "%s%s%s%s\n", indent, st.id.Render(r.ID), st.meta.Render(" · "), st.meta.Render(r.Role.String()))
	m := r.Match.Message
	if m == "" {
		m = "/" + r.Match.Regex + "/"
	}
	if r.Match.Exception != "" {
		m = r.Match.Exception + ": " + m
	}
	p.wrapped(bw, indent, st.message, m)
	if r.Where != nil {
		fmt.Fprintf(bw, "%s%s\n", indent, st.meta.Render("raised in "+siteText(r.Where)))
	}
	p.remedy(bw, f)
	if len(r.Related) > 0 {
		fmt.Fprintln(bw)
		p.labelled(bw, "See", "", strings.Join(r.Related, ", "))
	}
	return bw.Flush()
}

// Brief writes one line per finding and the summary line: what the live
// modes print at the end, after the full hints went by. JSON writes every
// finding again, marked final, with its final counts: the errors were
// written as they appeared, warnings and notes only here.
func (p *Printer) Brief(findings []*diagnose.Finding, sum Summary) error {
	bw := bufio.NewWriter(p.w)
	if p.opt.Format == JSON {
		// The live modes' last word: every finding, with its final
		// counts, after the views written as they came.
		for _, f := range findings {
			j := toJSON(f)
			j.Final = true
			if err := encodeJSON(bw, j); err != nil {
				return err
			}
		}
		return bw.Flush()
	}
	sum.Sources = safeAll(sum.Sources)
	for _, f := range findings {
		f = safeFinding(f)
		switch p.opt.Format {
		case Markdown:
			line := briefMeta(f)
			fmt.Fprintf(bw, "- **%s** %s: `%s`\n", strings.ToUpper(f.Severity.String()), mdText(f.Title), mdCode(line))
		case Brief:
			p.compilerLine(bw, f)
		default:
			p.briefLine(bw, f)
		}
	}
	p.summary(bw, findings, sum)
	return bw.Flush()
}

// briefMeta is a finding's id, count, ranks, line and cause, on one line.
func briefMeta(f *diagnose.Finding) string {
	line := f.ID
	if f.Count > 1 || len(f.Ranks) > 0 {
		line += fmt.Sprintf(" ×%d", f.Count)
		if len(f.Ranks) > 0 {
			line += " on " + FormatRanks(f.Ranks)
		}
	}
	if f.Folded > 0 {
		line += " · " + foldedNote(f)
	}
	line += fmt.Sprintf(" · line %d", f.Line)
	if !f.RootCause && f.SymptomOf != "" {
		line += " · symptom of " + f.SymptomOf
	}
	return line
}

// briefLine writes a finding on one line of text.
func (p *Printer) briefLine(w io.Writer, f *diagnose.Finding) {
	var head strings.Builder
	if p.opt.Sources {
		fmt.Fprintf(&head, "%s ", p.source(f.Source))
	}
	fmt.Fprintf(&head, "%s %s", p.badge(f.Severity), f.Title)
	meta := briefMeta(f)
	if ansi.StringWidth(head.String())+2+ansi.StringWidth(meta) <= p.opt.Width {
		fmt.Fprintf(w, "%s  %s\n", head.String(), p.st.meta.Render(meta))
		return
	}
	// Too long for one line: the facts go under the title, as in a hint,
	// rather than wherever the terminal breaks the line.
	fmt.Fprintf(w, "%s\n", head.String())
	for _, l := range wrapWords(meta, p.opt.Width-len(indent)) {
		fmt.Fprintf(w, "%s%s\n", indent, p.st.meta.Render(l))
	}
}

// nonDefaultFlags writes a server's settings that are not sglang's defaults
// as launch flags, in the order its ServerArgs line gives them: the
// configuration to report with an issue. Settings that are no flag, or
// whose value is not a plain one (a nested config), are left out.
func nonDefaultFlags(sa *pyrepr.ServerArgs) []string {
	table, err := patterns.Flags()
	if sa == nil || err != nil {
		return nil
	}
	model := sa.Fields["model_path"]
	var out []string
	for _, name := range sa.Order {
		fl := table.Lookup(name)
		v := sa.Fields[name]
		if fl == nil || fl.Dest != name || sameAsDefault(v, fl.Default) || autoChosen[name] ||
			name != "model_path" && fl.Default == "" && v == model {
			// Not a setting: sglang's own choice at start-up (a port,
			// a seed), or the model path again (the tokenizer's and the
			// served name's when not given).
			continue
		}
		switch x := v.(type) {
		case bool:
			if x && !fl.TakesValue() {
				out = append(out, fl.Names[0])
			} else if fl.TakesValue() {
				out = append(out, fl.Names[0]+" "+pyrepr.FlagText(x))
			}
		case nil:
			// None where the default is a value: no flag sets it.
		case string, int64, float64:
			out = append(out, fl.Names[0]+" "+launch.Quote(pyrepr.FlagText(x)))
		}
	}
	return out
}

// autoChosen are the settings sglang picks at start-up when they are not
// given, so that their value in ServerArgs says nothing of the command.
var autoChosen = map[string]bool{"random_seed": true, "nccl_port": true}

// sameAsDefault compares a ServerArgs value with a flag's default, written
// as JSON ("" for None).
func sameAsDefault(v any, def string) bool {
	if def == "" {
		def = "null"
	}
	var d any
	if json.Unmarshal([]byte(def), &d) != nil {
		return false
	}
	switch x := v.(type) {
	case int64:
		f, ok := d.(float64)
		return ok && f == float64(x)
	case float64:
		f, ok := d.(float64)
		return ok && f == x
	case string, bool, nil:
		return d == v
	}
	return false
}

// maxExcerpt bounds the log lines a Markdown finding shows.
const maxExcerpt = 60

// lineRange writes a range of line numbers.
func lineRange(from, to int64) string {
	if from == to {
		return fmt.Sprint(from)
	}
	return fmt.Sprintf("%d–%d", from, to)
}

// mdBlock writes lines as a fenced code block, the fence longer than any
// run of backticks in them, each line made safe for a terminal.
func mdBlock(w io.Writer, lang string, lines []string) {
	fence := "```"
	for _, l := range lines {
		for strings.Contains(l, fence) {
			fence += "`"
		}
	}
	fmt.Fprintf(w, "%s%s\n", fence, lang)
	for _, l := range lines {
		fmt.Fprintln(w, Safe(l))
	}
	fmt.Fprintln(w, fence)
}

// mdSpan writes s as a Markdown code span that shows it unchanged: the
// delimiter longer than any run of backticks in it, padded when s starts
// or ends with one.
func mdSpan(s string) string {
	run, longest := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	d := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return d + " " + s + " " + d
	}
	return d + s + d
}

// Package remedies turns findings into what the user reads: the cause, the
// steps to take, and the change to the command line, rendered as styled text,
// JSON Lines (the finding contract) or Markdown.
//
// cmd/tailfix decides colour and width once and hands them to NewPrinter;
// nothing here reads the environment.
package remedies

import (
	"cmp"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tailfix/tailfix/patterns"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/matcher"
)

// Remedy is the advice attached to a finding.
type Remedy struct {
	Cause string `json:"cause"`
	// Worked is the arithmetic behind the numbers of the fix, one line
	// each, worked from the figures the log states; or why a number could
	// not be worked out and what that says.
	Worked []string `json:"worked,omitempty"`
	Steps  []string `json:"steps"`
	Before string   `json:"before"`
	After  string   `json:"after"`
	// Example is set when before and after are not all the user's own
	// values (the log gave no configuration, or not every value): an
	// example of the change, not a diff of their command.
	Example bool `json:"example,omitempty"`
}

// For returns the remedy of a finding: the record's own, or for an error no
// record knows, how to read and report it.
func For(f *diagnose.Finding) Remedy {
	if r := f.Record; r != nil && r.Gen != nil {
		return generated(f, r)
	}
	if r := f.Record; r != nil {
		// The user's own values where the log gave its configuration; a
		// template's defaults otherwise.
		var cfg Config
		if f.Config != nil {
			cfg = f.Config
		}
		vals := &workedValues{Values: Values{Captures: f.Captures, Config: cfg}, ownFrame: f.OwnFrame}
		change := patterns.Change{Before: r.Fix.Before, After: r.Fix.After}
		before, ownBefore := Render(change.Before, vals)
		after, ownAfter := Render(change.After, vals)
		steps := make([]string, 0, len(r.Fix.Steps))
		for _, step := range r.Fix.Steps {
			s, _ := Render(step, vals)
			if !vals.refuses(step) {
				steps = append(steps, s)
			}
		}
		if r.HasTag(patterns.TagRaisedHere) {
			// Known by the class of the error and where it was raised:
			// the line itself says what, and the part of sglang it is
			// in is what to run without, before any other step.
			var first []string
			if _, code := raisedIn(f.Frame); code != "" {
				first = append(first, "Read the code that raised it (on sglang's main branch; your release may differ): "+code)
			}
			if step := componentStep(f.OwnFrame); step != "" {
				first = append(first, step)
			}
			steps = append(first, steps...)
		} else if r.HasTag(patterns.TagIsolate) {
			if step := componentStep(f.OwnFrame); step != "" {
				steps = append(steps, step)
			}
		}
		if vals.refuses(change.Before + change.After) {
			// The log's own figures say this change would not help: the
			// record's other change, if it has one and they allow it.
			before, after = "", ""
			if o := r.Fix.Otherwise; o != nil && !vals.refuses(o.Before+o.After) {
				change = *o
				before, ownBefore = Render(change.Before, vals)
				after, ownAfter = Render(change.After, vals)
				if vals.refuses(change.Before + change.After) {
					before, after = "", ""
				}
			}
		}
		ownBefore = ownBefore && !strangerFlags(change.Before, cfg) || literalOwn(change.Before, before, cfg)
		// An after with no placeholder is the change itself ("--attention-backend
		// triton"): the user's own once the before it replaces is.
		ownAfter = ownAfter || cfg != nil && !strings.Contains(change.After, "{")
		example := (before != "" || after != "") && !(ownBefore && ownAfter) && !fromCheck(f)
		if b, a, ok := rejudged(f); ok {
			before, after, example = b, a, false
		}
		if !example && cfg != nil && after != "" {
			// Checked before shown: what the change alone would make
			// sglang stop with, judged by the check rules on this
			// server's own settings.
			vals.notes = append(vals.notes, stopsWith(cfg, before, after)...)
		}
		if lacking := lackedFlags(after, f.Flags); len(lacking) > 0 {
			// The user's release cannot take this change: say which
			// release can, rather than show a command it refuses.
			vals.notes = append(vals.notes, lacking...)
			before, after, example = "", "", false
		}
		before, after = respell(before, cfg), respell(after, cfg)
		// A cause may name the message's own figures too ("K = {k|K}").
		cause, _ := Render(strings.TrimSpace(r.Cause), &vals.Values)
		return Remedy{Cause: cause, Worked: vals.notes, Steps: steps, Before: before, After: after, Example: example}
	}
	if f.Partial {
		return cutTraceback(f)
	}
	what := "error line"
	switch f.ID {
	case matcher.UnknownTraceback:
		what = "traceback"
	case matcher.UnknownWarning:
		what = "warning, which its logger printed at warning level but which says something failed,"
	}
	query := f.Message
	if query == "" {
		query = f.Exception
	}
	cause := fmt.Sprintf("No pattern knows this %s yet. The exception and message are the log's own words; "+
		"in a chained traceback the first exception is the original error and the later ones wrap it.", what)
	steps := []string{fmt.Sprintf("Read the %s at %s", what, location(f))}
	if where, code := raisedIn(f.Frame); where != "" {
		cause += " It was raised " + where + "."
		if code != "" {
			steps = append(steps, "Read the code that raised it (on sglang's main branch; your release may differ): "+code)
		}
	}
	if step := componentStep(f.OwnFrame); step != "" {
		steps = append(steps, step)
	}
	steps = append(steps,
		"Search sglang's issues for the message: https://github.com/sgl-project/sglang/issues?q="+
			url.QueryEscape(`"`+truncate(query, 80)+`"`),
		"Teach tailfix the error: add a record for it to a pattern directory and pass --patterns DIR")
	return Remedy{Cause: cause, Steps: steps}
}

// frameRE reads a traceback frame line.
var frameRE = regexp.MustCompile(`^File "([^"]+)", line (\d+), in (\S+)`)

// raisedIn says where a traceback's innermost frame is: in sglang's own
// code (with a link to it), or in a library installed beside it. code is
// the link, or "".
func raisedIn(frame string) (where, code string) {
	m := frameRE.FindStringSubmatch(strings.TrimSpace(frame))
	if m == nil {
		return "", ""
	}
	path, line, fn := m[1], m[2], m[3]
	if i := strings.LastIndex(path, "/sglang/"); i >= 0 {
		rel := path[i+1:]
		if !strings.HasPrefix(rel, "sglang/srt/") && !strings.Contains(path, "/python/sglang/") && !strings.Contains(path, "-packages/sglang/") {
			rel = ""
		}
		if rel != "" {
			return fmt.Sprintf("in sglang's %s (%s:%s)", fn, rel, line),
				fmt.Sprintf("https://github.com/sgl-project/sglang/blob/main/python/%s#L%s", rel, line)
		}
	}
	for _, marker := range []string{"site-packages/", "dist-packages/"} {
		if i := strings.LastIndex(path, marker); i >= 0 {
			lib, _, _ := strings.Cut(path[i+len(marker):], "/")
			return fmt.Sprintf("inside the %s package (in %s), not in sglang's own code: its version, and whether it is the one your sglang release pins, is the first thing to check", strings.TrimSuffix(lib, ".py"), fn), ""
		}
	}
	return fmt.Sprintf("in %s (%s:%s)", fn, path, line), ""
}

// frameFuncRE takes the function out of a traceback frame line.
var frameFuncRE = regexp.MustCompile(`, in (\S+)$`)

// cutTraceback is the remedy of a traceback whose exception line is not in
// the log: the frames say where it failed, not what failed.
func cutTraceback(f *diagnose.Finding) Remedy {
	steps := []string{
		fmt.Sprintf("Read the frames at %s: the last one is where the error was raised.", location(f)),
		"Get the rest of the traceback: rerun with both streams captured (`2>&1 | tee server.log`), or look in the full log if this is an excerpt; its last line names the exception.",
	}
	if m := frameFuncRE.FindStringSubmatch(f.Message); m != nil {
		steps = append(steps, "Search sglang's issues for the function it stopped in: https://github.com/sgl-project/sglang/issues?q="+
			url.QueryEscape(m[1]))
	}
	return Remedy{
		Cause: "The traceback ends before its exception line: the log was cut, the process was killed while " +
			"printing it, or another process's output took its place. It shows where the error happened " +
			"but not what it was. If a symptom such as a SIGQUIT line is reported with it, this traceback is " +
			"the failure that symptom points back to.",
		Steps: steps,
	}
}

// kindPhrase says how a generated record's message comes out.
var kindPhrase = map[string]string{
	"raise":           "sglang raises this error",
	"assert":          "an assertion in sglang fails with this message",
	"logger.error":    "sglang logs this error",
	"logger.critical": "sglang logs this critical error",
	"logger.warning":  "sglang logs this warning",
}

// rejudged returns the before and after of a finding that is sglang's
// argparse rejecting the user's flags, in the user's own flags: the
// arguments its message names, judged again as check judges a command.
func rejudged(f *diagnose.Finding) (before, after string, ok bool) {
	var args []string
	switch f.ID {
	case "sglang/unrecognized-arguments":
		args = strings.Fields(f.Captures["args"])
	case "sglang/invalid-choice":
		if fl, v := f.Captures["flag"], f.Captures["value"]; fl != "" && v != "" {
			args = []string{fl, strings.Trim(v, `'"`)}
		}
	}
	if len(args) == 0 || fromCheck(f) {
		return "", "", false
	}
	table, err := patterns.Flags()
	if err != nil {
		return "", "", false
	}
	var bs, as []string
	for _, is := range launch.Judge(args, table) {
		if is.ID == f.ID && is.Before != "" && is.After != "" {
			bs, as = append(bs, is.Before), append(as, is.After)
		}
	}
	if len(bs) == 0 {
		return "", "", false
	}
	return strings.Join(bs, " "), strings.Join(as, " "), true
}

// stopsWith says what a fix, applied to a server's settings, would make
// the check rules predict at error level that its command when the error
// happened does not: the change needs another one with it.
func stopsWith(cfg Config, before, after string) []string {
	if servers.MatchString(after) {
		return nil // two servers' flags, not one command's
	}
	table, err := patterns.Flags()
	if err != nil {
		return nil
	}
	pack, err := curated()
	if err != nil {
		return nil
	}
	var notes []string
	for _, is := range launch.Rejudge(cfg, launch.FixArgs(before, table), launch.FixArgs(after, table), table) {
		sev := is.Severity
		if rec := pack.Lookup(is.ID); sev == 0 && rec != nil {
			sev = rec.Severity
		}
		if sev >= patterns.SeverityError {
			notes = append(notes, "This change alone is not enough: "+is.Message+".")
		}
	}
	return notes
}

// servers finds the labels of an example that shows more than one server
// or node ("prefill: … decode: …", "node 0: … node 1: …").
var servers = regexp.MustCompile(`(?:^|\s)(?:prefill|decode|router|node \d+|rank \d+):\s`)

// curated is the hand-written records, for the severity of a check rule.
var curated = sync.OnceValues(patterns.Curated)

// lackedFlags says, for each flag a fix's command line passes that the
// user's release (table) lacks, which releases have it. It says nothing
// when the release is not known.
func lackedFlags(cmdline string, table *patterns.FlagTable) []string {
	if table == nil {
		return nil
	}
	newest, err := patterns.Flags()
	if err != nil {
		return nil
	}
	var notes []string
	for _, w := range launch.FixArgs(cmdline, newest) {
		name, _, _ := strings.Cut(w, "=")
		if !strings.HasPrefix(name, "--") {
			continue // a flag's value
		}
		span, lacks := table.Lacks(name)
		if !lacks {
			continue
		}
		rel := "The installed sglang"
		if table.Release != "" {
			rel = "sglang " + table.Release
		}
		note := fmt.Sprintf("%s does not have %s, which this fix passes", rel, name)
		if span != "" {
			note += fmt.Sprintf(" (a flag of %s): upgrade sglang to make this change", span)
		}
		notes = append(notes, note+".")
	}
	return notes
}

// respell writes the sglang flags of a fix's command line in the
// spelling the user's command gave them ("--tp" for --tp-size), where the
// configuration is a command that says.
func respell(cmdline string, cfg Config) string {
	if cfg == nil || cmdline == "" {
		return cmdline
	}
	table, err := patterns.Flags()
	if err != nil {
		return cmdline
	}
	names := map[string]string{}
	for _, w := range launch.FixArgs(cmdline, table) {
		name, _, _ := strings.Cut(w, "=")
		fl := table.Lookup(name)
		if fl == nil || !strings.HasPrefix(name, "--") {
			continue
		}
		if v, ok := cfg.Lookup(launch.SpellingOf + fl.Dest); ok {
			if s, _ := v.(string); s != "" && s != name {
				names[name] = s
			}
		}
	}
	if len(names) == 0 {
		return cmdline
	}
	words := strings.Split(cmdline, " ")
	for i, w := range words {
		name, rest, eq := strings.Cut(w, "=")
		if s, ok := names[name]; ok {
			if eq {
				s += "=" + rest
			}
			words[i] = s
		}
	}
	return strings.Join(words, " ")
}

// literalOwn reports whether a before written without placeholders is the
// server's own: nothing, or sglang flags each of which the configuration
// sets to the value written (a switch to True).
func literalOwn(tmpl, rendered string, cfg Config) bool {
	if cfg == nil || strings.Contains(tmpl, "{") {
		return false
	}
	if strings.TrimSpace(rendered) == "" {
		return true
	}
	table, err := patterns.Flags()
	if err != nil {
		return false
	}
	args := launch.FixArgs(rendered, table)
	if len(args) == 0 || len(strings.Fields(commentRE.ReplaceAllString(rendered, " "))) != len(args) {
		return false // another program's command, or words that are not flags
	}
	for i := 0; i < len(args); i++ {
		name, value, eq := strings.Cut(args[i], "=")
		fl := table.Lookup(name)
		if fl == nil {
			return false
		}
		v, ok := cfg.Lookup(fl.Dest)
		if !ok {
			return false
		}
		if !fl.TakesValue() {
			if v != true {
				return false
			}
			continue
		}
		if !eq {
			if i+1 >= len(args) {
				return false
			}
			i++
			value = args[i]
		}
		if !sameValue(value, v) {
			return false
		}
	}
	return true
}

// commentRE finds a comment in parentheses in a fix's command line
// ("(mooncake over TCP, 0.3.7)"): words about it, not part of it.
var commentRE = regexp.MustCompile(`\([^()]*\)`)

// strangerFlags reports whether a before template writes a flag's value
// as a literal that is not the server's own: the configuration knows the
// flag and says another value. Such a before is an example, whatever its
// placeholders.
func strangerFlags(tmpl string, cfg Config) bool {
	if cfg == nil {
		return false
	}
	table, err := patterns.Flags()
	if err != nil {
		return false
	}
	for _, lv := range table.LiteralValues(tmpl) {
		if v, ok := cfg.Lookup(lv.Flag.Dest); ok && !sameValue(lv.Value, v) {
			return true
		}
	}
	// A switch the server has off.
	for _, w := range launch.FixArgs(placeholderSpanRE.ReplaceAllString(tmpl, "x"), table) {
		fl := table.Lookup(w)
		if fl == nil || fl.TakesValue() || !strings.Contains(fl.Action, "store_true") {
			continue
		}
		if v, ok := cfg.Lookup(fl.Dest); ok && v == false {
			return true
		}
	}
	return false
}

// sameValue reports whether a flag's value as written is the value a
// configuration holds: the same text, or the same number.
func sameValue(lit string, v any) bool {
	if v == nil {
		return lit == "None"
	}
	s := fmt.Sprint(v)
	if s == lit || strings.Trim(s, `'"`) == strings.Trim(lit, `'"`) {
		return true
	}
	a, err1 := strconv.ParseFloat(lit, 64)
	b, err2 := strconv.ParseFloat(s, 64)
	return err1 == nil && err2 == nil && a == b
}

// fromCheck reports whether a finding comes from a launch command (tailfix
// check): its before and after are the command's own flags.
func fromCheck(f *diagnose.Finding) bool {
	_, ok := f.Captures["before"]
	return f.Line == 0 && ok
}

// generated is the remedy of a record generated from sglang's source:
// where the message comes from, under what condition, and what each flag
// it names means.
func generated(f *diagnose.Finding, r *patterns.Record) Remedy {
	g := r.Gen
	if g.Template == "" {
		return bare(r)
	}
	var cause strings.Builder
	phrase := cmp.Or(kindPhrase[g.Kind], "sglang reports this")
	lib := r.Library()
	if lib != "" {
		// A library sglang runs on: its code, not sglang's, raised it.
		phrase = strings.Replace(phrase, "sglang", fmt.Sprintf("%s (%s)", lib, r.Where.Repo), 1)
	}
	fmt.Fprintf(&cause, "%s in %s", phrase, cmp.Or(g.Qualname, r.Where.Function))
	fmt.Fprintf(&cause, " (%s:%d)", r.Where.File, r.Where.Line)
	switch {
	case g.Sites == 2:
		cause.WriteString(", and from 1 other place with the same message")
	case g.Sites > 2:
		fmt.Fprintf(&cause, ", and from %d other places with the same message", g.Sites-1)
	}
	cause.WriteString(".")
	cause.WriteString(releases(g))
	if g.Guard != "" {
		fmt.Fprintf(&cause, " It happens when `%s` holds.", truncate(g.Guard, 200))
	}
	cause.WriteString(" tailfix has no hand-written advice for it yet: the message, the code around it and the flags it names are the lead.")
	var steps []string
	if table, err := patterns.Flags(); err == nil {
		for _, name := range g.Flags {
			if fl := table.Lookup(name); fl != nil {
				if step := flagStep(fl); step != "" {
					steps = append(steps, step)
				}
			}
		}
	}
	switch {
	case g.Source != "":
		// Learnt from the user's own copy: the code as it runs here.
		steps = append(steps, fmt.Sprintf("Read the code that raises it: %s:%d", g.Source, r.Where.Line))
	case g.Commit != "":
		steps = append(steps, fmt.Sprintf("Read the code that raises it: https://github.com/%s/blob/%s/%s#L%d",
			r.Where.Repo, g.Commit, r.Where.File, r.Where.Line))
	}
	q := url.QueryEscape(`"` + truncate(literalPrefix(g.Template), 80) + `"`)
	if lib != "" {
		steps = append(steps, fmt.Sprintf("Search %s's issues for the message: https://github.com/%s/issues?q=%s", lib, r.Where.Repo, q),
			"Check that the installed "+lib+" is the version your sglang release was built against (`pip list` shows it): a newer or older one may raise what sglang does not expect.")
	}
	steps = append(steps, "Search sglang's issues for the message: https://github.com/sgl-project/sglang/issues?q="+q)
	return Remedy{Cause: cause.String(), Steps: steps}
}

// bare is the remedy of a place in sglang's source that raises an
// exception with no message: an assert whose condition was false, or a
// path not implemented.
func bare(r *patterns.Record) Remedy {
	g := r.Gen
	var cause strings.Builder
	if g.Kind == "assert" {
		fmt.Fprintf(&cause, "An assertion in sglang's %s (%s:%d) failed: `%s` was false.",
			g.Qualname, r.Where.File, r.Where.Line, truncate(g.Guard, 200))
	} else {
		fmt.Fprintf(&cause, "sglang's %s (%s:%d) raised NotImplementedError: it has no implementation for this case (the model, the backend, or a combination of features this release does not support together).",
			g.Qualname, r.Where.File, r.Where.Line)
	}
	ref := "main"
	if g.LastRelease != "" {
		fmt.Fprintf(&cause, " Only sglang %s to %s have it, so this server runs one of them; later releases changed this code.", g.FirstRelease, g.LastRelease)
		if !strings.HasPrefix(g.LastRelease, "main") {
			ref = "v" + g.LastRelease
		}
	}
	cause.WriteString(" tailfix has no hand-written advice for it yet: the frames above it say what the server was doing.")
	steps := []string{
		"Read the frames above the exception: the sglang function that called this one says which feature (a cache, a backend, speculative decoding, a parser) took this path; start once without that feature to confirm.",
		fmt.Sprintf("Read the code: https://github.com/%s/blob/%s/%s (%s)", r.Where.Repo, ref, r.Where.File, g.Qualname),
		"Search sglang's issues for it: https://github.com/sgl-project/sglang/issues?q=" + url.QueryEscape(`"`+searchName(g.Qualname)+`" `+r.Match.Exception),
	}
	if g.LastRelease != "" {
		steps = append(steps, "Upgrade sglang: releases after "+g.LastRelease+" no longer have this check.")
	}
	return Remedy{Cause: cause.String(), Steps: steps}
}

// searchName is the part of a qualified name worth searching for: the
// function, or its class for a dunder method ("MambaRadixCache.__init__").
func searchName(qualname string) string {
	parts := strings.Split(qualname, ".")
	name := parts[len(parts)-1]
	if strings.HasPrefix(name, "__") && len(parts) > 1 {
		return parts[len(parts)-2]
	}
	return name
}

// releases says which sglang releases print a generated record's message,
// as a sentence, or "".
func releases(g *patterns.Generated) string {
	switch {
	case g.FirstRelease == "":
		return ""
	case g.LastRelease == "":
		return fmt.Sprintf(" sglang prints it since %s.", g.FirstRelease)
	}
	s := fmt.Sprintf(" sglang printed it from %s to %s", g.FirstRelease, g.LastRelease)
	if g.RemovedIn != "" {
		s += fmt.Sprintf("; %s no longer does", g.RemovedIn)
		if hash, subject, ok := strings.Cut(g.RemovedBy, " "); ok {
			s += fmt.Sprintf(" (commit %s, %q)", hash, truncate(subject, 90))
		}
	}
	return s + ": this server runs an older release, and upgrading changes this check."
}

// flagStep explains a flag from sglang's flag table: its help, default and
// choices, or "" when the table says nothing of it.
func flagStep(fl *patterns.Flag) string {
	var parts []string
	if help := strings.TrimSuffix(strings.TrimSpace(fl.Help), "."); help != "" {
		parts = append(parts, help)
	}
	if fl.Default != "" && fl.Default != "null" {
		parts = append(parts, "default "+fl.Default)
	}
	if len(fl.Choices) > 0 {
		parts = append(parts, "one of "+strings.Join(fl.Choices, ", "))
	}
	if fl.Deprecated {
		parts = append(parts, "deprecated")
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("`%s`: %s.", fl.Names[0], strings.Join(parts, "; "))
}

// literalPrefix is a message template up to its first placeholder: the part
// every occurrence shares.
func literalPrefix(tmpl string) string {
	if i := strings.IndexAny(tmpl, "{%"); i > 12 {
		return strings.TrimSpace(tmpl[:i])
	}
	return tmpl
}

// location is "file:line" or "file:line-end".
func location(f *diagnose.Finding) string {
	if f.Line <= 0 {
		return f.Source // a command line, not a log
	}
	if f.EndLine > f.Line {
		return fmt.Sprintf("%s:%d-%d", f.Source, f.Line, f.EndLine)
	}
	return fmt.Sprintf("%s:%d", f.Source, f.Line)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// FormatRanks writes rank tags compactly: consecutive ranks of one kind as a
// range ("TP0–TP7"), others listed.
func FormatRanks(ranks []string) string {
	if len(ranks) == 0 {
		return ""
	}
	var parts []string
	for i := 0; i < len(ranks); {
		name, n, ok := splitRank(ranks[i])
		j := i + 1
		for ok && j < len(ranks) {
			name2, n2, ok2 := splitRank(ranks[j])
			if !ok2 || name2 != name || n2 != n+(j-i) {
				break
			}
			j++
		}
		switch {
		case j-i >= 3:
			parts = append(parts, ranks[i]+"–"+ranks[j-1])
		default:
			parts = append(parts, ranks[i:j]...)
		}
		i = j
	}
	return strings.Join(parts, ", ")
}

// splitRank splits "DP1 TP3" into "DP1 TP" and 3: the last token's number.
func splitRank(r string) (string, int, bool) {
	i := len(r)
	for i > 0 && r[i-1] >= '0' && r[i-1] <= '9' {
		i--
	}
	if i == len(r) {
		return r, 0, false
	}
	n := 0
	for _, c := range r[i:] {
		n = n*10 + int(c-'0')
		if n > 1<<20 {
			return r, 0, false
		}
	}
	return r[:i], n, true
}

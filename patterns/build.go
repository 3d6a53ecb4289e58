package patterns

// One builder for generated records. The pack embedded in the binary (go
// generate, from the messages of every sglang release the history read)
// and a pack `tailfix patterns learn` writes (from one source tree, such as
// the installed sglang) are made by the same code: the same rules for what
// is too generic, the same ids, titles, samples and near misses, and the
// same table, read back by the same parser.

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// Message is one distinct message of sglang's source: the first line of
// what a raise, an assert or a logging call says, where it is raised, and,
// from the history, the releases that print it.
type Message struct {
	// Kind is raise, assert, logger.error (logger.exception too),
	// logger.warning or logger.critical; Class the exception class, if any.
	Kind, Class string
	// Regex and Template are the message's first line, as a regular
	// expression and as written.
	Regex, Template string
	// File (its path in the repository, python/sglang/…), Line and
	// Function (the qualified name) are where it is raised; Guard is the
	// condition it is raised under ("not (cond)" for an assert).
	File     string
	Line     int
	Function string
	Guard    string
	// Sites counts the places that raise it.
	Sites int
	// First and Last are the first and last release that print it, Last
	// empty when the newest release read still does; RemovedIn and
	// RemovedBy are the release that no longer does and the subject of
	// the commit that dropped it; Commit is the last printing release's
	// commit.
	First, Last, RemovedIn, RemovedBy, Commit string
}

// MessageOf is the message a site says, as a Message of one site in file
// (its path in the repository). ok is false for a site with no message
// (not a string in the source) or whose message starts with a line break.
func MessageOf(s RaiseSite, file string) (m Message, ok bool) {
	if s.Regex == "" || s.Message == "" {
		return Message{}, false
	}
	tmpl, re := messageLine(s.Message), firstLineRegex(s.Regex)
	if tmpl == "" || re == "" {
		return Message{}, false
	}
	kind := s.Kind
	if kind == "logger.exception" {
		kind = "logger.error"
	}
	guard := s.Guard
	if s.Kind == "assert" && s.Condition != "" {
		guard = "not (" + s.Condition + ")"
	}
	return Message{Kind: kind, Class: s.Class, Regex: re, Template: tmpl, File: file, Line: s.Line,
		Function: s.Function, Guard: guard, Sites: 1}, true
}

// MessageKey identifies a message across sites and releases.
func MessageKey(kind, class, template string) string {
	return kind + "\x00" + class + "\x00" + template
}

// Messages collects the distinct messages of one source tree's sites, as
// the history does for each release. prefix is put before each site's
// file to make its path in the repository ("python/sglang/" for the
// installed package). A message raised at several sites names the first,
// or the first of the server's when the diffusion runtime raises it too.
// The messages are in the order the builder takes them: by template,
// kind and class.
func Messages(sites []RaiseSite, prefix string) (msgs []Message, noMessage int) {
	byKey := map[string]int{}
	for _, s := range sites {
		m, ok := MessageOf(s, prefix+s.File)
		if !ok {
			noMessage++
			continue
		}
		k := MessageKey(m.Kind, m.Class, m.Template)
		i, seen := byKey[k]
		if !seen {
			byKey[k] = len(msgs)
			msgs = append(msgs, m)
			continue
		}
		prev := &msgs[i]
		m.Sites = prev.Sites + 1
		if DiffusionFile(prev.File) && !DiffusionFile(m.File) {
			m.Regex = prev.Regex
			*prev = m
		} else {
			prev.Sites = m.Sites
		}
	}
	slices.SortStableFunc(msgs, func(a, b Message) int {
		return cmp.Or(cmp.Compare(a.Template, b.Template), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Class, b.Class))
	})
	return msgs, noMessage
}

// BuildStats says what the builder made and what it left out.
type BuildStats struct {
	// Records counts the records, Kinds them by kind, and Old those of
	// messages only older releases print.
	Records int
	Kinds   map[string]int
	Old     int
	// Current counts the sites of the newest release with a message.
	Current int
	// Skipped counts the messages that made no record of their own, by
	// reason.
	Skipped map[string]int
}

// MinLiteral is the rule for messages too generic to recognise safely: a
// message is kept only when its regex has a run of literal text of at
// least this many bytes, such as "Not enough memory. Please" in a message
// with placeholders. "{e}", "Unknown {x}" or "Invalid value: {v}" are left
// out: they would match a great many lines that are not this error.
const MinLiteral = 12

// Reasons a message makes no record of its own.
var (
	skipGeneric = fmt.Sprintf("too generic: no literal text of %d bytes", MinLiteral)
	skipPython  = "Python's own message, repeated by a __getattr__ (names no site)"
	skipMerged  = "the same message at another site (merged)"
	skipNoMiss  = "no near miss can be made (the regex matches its own variations)"
	skipNeedle  = fmt.Sprintf("too generic: no literal text of %d bytes", MinNeedle)
)

// pythonsOwnRE matches the messages of Python itself that some
// __getattr__ methods repeat word for word ("'{type}' object has no
// attribute '{name}'", "module {name!r} has no attribute {attr!r}"): a line
// with one of them was raised by any code at all, and a record of the
// site that repeats it would claim every AttributeError in a log.
var pythonsOwnRE = regexp.MustCompile(`^(?:'\.\*\?' object|module \.\*\?) has no attribute '?\.\*\?'?$`)

// built is one record in the making.
type built struct {
	id, severity, regex, template, title, sample, nearMiss string
	m                                                      Message
	sites                                                  int
	flags, needles                                         []string
}

// SitesHeader is the first line of a table of generated records.
const SitesHeader = "# id\tseverity\tkind\tclass\tregex\ttemplate\tfile\tline\tfunction\tqualname\tsites\tflags\tguard\tcommit\tsample\tneedles\tnear_miss\ttitle\tfirst_release\tlast_release\tremoved_in\tremoved_by"

// repoLine names, in a table, the repository its records' sites are in;
// a table without one is of sgl-project/sglang. sourceLine names the
// directory on this machine the table was learnt from, and the prefix its
// sites' paths have that the directory's do not.
const (
	repoLine   = "# repo\t"
	sourceLine = "# source\t"
)

// TableSource says where a table's sites are: Repo is the repository
// they are in ("sgl-project/sglang"); Dir, for a table learnt from a tree
// on this machine, is that tree, and Prefix what a site's path has before
// the path in Dir ("python/sglang/" for the installed package). Family is
// the first part of the records' ids, "sglang-src" unless it says another
// ("flashinfer-src" for flashinfer's own messages).
type TableSource struct {
	Repo, Dir, Prefix, Family string
}

// BuildTable makes the records of msgs, in the order given (the first of
// two messages with one regex wins; messages the newest release prints
// come before older ones), and writes them as a table ReadSites reads:
// one record per line, sorted by id. flags is the flag table the messages
// are read against (the flags a message names). The table names src's
// repository when it is not sgl-project/sglang, and its directory.
func BuildTable(msgs []Message, flags *FlagTable, src TableSource) ([]byte, BuildStats) {
	flagOf := map[string]string{} // a flag or dest → the flag's first name
	if flags != nil {
		for _, fl := range flags.Flags {
			for _, n := range fl.Names {
				flagOf[n] = fl.Names[0]
			}
			flagOf[fl.Dest] = fl.Names[0]
		}
	}
	st := BuildStats{Kinds: map[string]int{}, Skipped: map[string]int{}}
	byRegex := map[string]*built{}
	var recs []*built
	for _, m := range msgs {
		if m.Last == "" {
			st.Current += max(1, m.Sites)
		}
		re := firstLineRegex(m.Regex)
		switch {
		case longestLiteral(re) < MinLiteral:
			st.Skipped[skipGeneric]++
			continue
		case pythonsOwnRE.MatchString(re):
			st.Skipped[skipPython]++
			continue
		}
		if r := byRegex[re]; r != nil {
			r.sites += max(1, m.Sites)
			st.Skipped[skipMerged]++
			if DiffusionFile(r.m.File) && !DiffusionFile(m.File) {
				// The diffusion runtime copied the message from the
				// server, and sorts before it: a line of either is
				// shown as the server's.
				r.setSite(m, flagOf)
			}
			continue
		}
		r := &built{regex: re, sites: max(1, m.Sites)}
		r.setSite(m, flagOf)
		r.m.First, r.m.Last, r.m.RemovedIn, r.m.RemovedBy = m.First, m.Last, m.RemovedIn, m.RemovedBy
		if m.Last != "" && r.severity == "warning" {
			// A warning only older releases print: known, and no finding
			// (the newest release says nothing, or says it at info level).
			r.severity = "info"
		}
		r.sample = sampleOf(re)
		needles, err := (&Record{Match: Match{Regex: re}}).Needles()
		if err != nil {
			st.Skipped[skipNeedle]++
			continue
		}
		r.needles = needles
		if r.nearMiss = nearMissOf(re, r.sample, needles); r.nearMiss == "" {
			st.Skipped[skipNoMiss]++
			continue
		}
		byRegex[re] = r
		recs = append(recs, r)
	}
	assignIDs(recs, cmp.Or(src.Family, "sglang-src"), cmp.Or(src.Prefix, "python/sglang/"))
	slices.SortFunc(recs, func(a, b *built) int { return cmp.Compare(a.id, b.id) })

	var b bytes.Buffer
	if src.Repo != "sgl-project/sglang" {
		b.WriteString(repoLine + tsv(src.Repo) + "\n")
	}
	if src.Dir != "" {
		b.WriteString(sourceLine + tsv(src.Dir) + "\t" + tsv(src.Prefix) + "\n")
	}
	b.WriteString(SitesHeader + "\n")
	for _, r := range recs {
		st.Records++
		st.Kinds[r.m.Kind]++
		if r.m.Last != "" {
			st.Old++
		}
		fn := r.m.Function
		if i := strings.LastIndexByte(fn, '.'); i >= 0 {
			fn = fn[i+1:]
		}
		fields := []string{r.id, r.severity, r.m.Kind, r.m.Class, r.regex, r.template, r.m.File,
			fmt.Sprint(r.m.Line), fn, r.m.Function, fmt.Sprint(r.sites),
			strings.Join(r.flags, " "), r.m.Guard, r.m.Commit, r.sample, strings.Join(r.needles, "\x1f"), r.nearMiss, r.title,
			r.m.First, r.m.Last, r.m.RemovedIn, r.m.RemovedBy}
		for i, f := range fields {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(tsv(f))
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), st
}

// setSite makes m the site the record names: where it is raised, how,
// and the message as written there. The releases stay the first
// message's.
func (r *built) setSite(m Message, flagOf map[string]string) {
	first, last, in, by := r.m.First, r.m.Last, r.m.RemovedIn, r.m.RemovedBy
	r.m = m
	r.m.First, r.m.Last, r.m.RemovedIn, r.m.RemovedBy = first, last, in, by
	r.template = messageLine(m.Template)
	r.severity = map[string]string{"raise": "error", "assert": "error", "logger.error": "error",
		"logger.critical": "fatal", "logger.warning": "warning"}[m.Kind]
	r.flags = flagsNamed(r.template, flagOf)
	r.title = titleOf(m.Class, r.template)
}

// messageLine is a message's first line: a log shows each line on its own,
// and the first is the one a record matches.
func messageLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// firstLineRegex cuts a message regex at the first escaped line break.
func firstLineRegex(re string) string {
	if i := strings.Index(re, `\n`); i >= 0 {
		re = re[:i]
	}
	return strings.TrimSpace(re)
}

// longestLiteral is the length of the longest run of literal text a regex
// requires.
func longestLiteral(re string) int {
	p, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return 0
	}
	best := 0
	var walk func(*syntax.Regexp)
	walk = func(x *syntax.Regexp) {
		if x.Op == syntax.OpConcat {
			run := 0
			for _, s := range x.Sub {
				if s.Op == syntax.OpLiteral {
					run += len(string(s.Rune))
					best = max(best, run)
					continue
				}
				run = 0
				walk(s)
			}
			return
		}
		if x.Op == syntax.OpLiteral {
			best = max(best, len(string(x.Rune)))
		}
		for _, s := range x.Sub {
			walk(s)
		}
	}
	walk(p.Simplify())
	return best
}

// sampleOf writes a line the regex matches: its literal text with "x" for
// each placeholder.
func sampleOf(re string) string {
	p, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return ""
	}
	var b strings.Builder
	var walk func(*syntax.Regexp)
	walk = func(x *syntax.Regexp) {
		switch x.Op {
		case syntax.OpLiteral:
			b.WriteString(string(x.Rune))
		case syntax.OpConcat, syntax.OpCapture:
			for _, s := range x.Sub {
				walk(s)
			}
		case syntax.OpQuest:
		default:
			b.WriteString("x")
		}
	}
	walk(p)
	return b.String()
}

// nearMissOf writes a line close to the sample that the regex must not
// match: the sample with one letter of its prefilter literal changed, as a
// different message that shares most words would read.
func nearMissOf(re, sample string, needles []string) string {
	rx, err := regexp.Compile(re)
	if err != nil || !rx.MatchString(sample) {
		return ""
	}
	for _, n := range needles {
		i := strings.Index(sample, n)
		if i < 0 {
			continue
		}
		for j := i; j < i+len(n); j++ {
			c := sample[j]
			var alt byte
			switch {
			case c >= 'a' && c <= 'z':
				alt = c - 'a' + 'A'
			case c >= 'A' && c <= 'Z':
				alt = c - 'A' + 'a'
			default:
				continue
			}
			miss := sample[:j] + string(alt) + sample[j+1:]
			if !rx.MatchString(miss) {
				return miss
			}
		}
	}
	return ""
}

// placeholderRE finds the values a message template leaves to run time:
// f-string and format fields, %-style conversions.
var placeholderRE = regexp.MustCompile(`\{[^{}]*\}|%\(\w+\)[sdrfxi]|%[-#0 +]?\d*(?:\.\d+)?[sdrfxi]`)

// titleOf is a generated record's title: its message as written, with "…"
// for each placeholder, cut short.
func titleOf(class, tmpl string) string {
	t := placeholderRE.ReplaceAllString(tmpl, "…")
	if r := []rune(t); len(r) > 90 {
		t = string(r[:89]) + "…"
	}
	if class != "" {
		return class + ": " + t
	}
	return t
}

var (
	flagNameRE = regexp.MustCompile(`--[a-z][a-z0-9-]*[a-z0-9]`)
	destWordRE = regexp.MustCompile(`[a-z][a-z0-9]*(?:_[a-z0-9]+)+`)
)

// flagsNamed lists the launch flags a message names, as --flags or by the
// server argument they set (tp_size).
func flagsNamed(msg string, flagOf map[string]string) []string {
	var out []string
	add := func(f string) {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, m := range flagNameRE.FindAllString(msg, -1) {
		add(flagOf[m])
	}
	for _, m := range destWordRE.FindAllString(msg, -1) {
		add(flagOf[m])
	}
	return out
}

// assignIDs names each record by its family, the module that raises it
// (its file after prefix) and the first words of its message:
// sglang-src/srt.server_args/tp-size-must-be-divisible.
func assignIDs(recs []*built, family, prefix string) {
	seen := map[string]int{}
	for _, r := range recs {
		mod := strings.TrimSuffix(strings.TrimPrefix(r.m.File, prefix), ".py")
		mod = strings.ToLower(strings.ReplaceAll(mod, "/", "."))
		mod = strings.Map(func(c rune) rune {
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
				return c
			}
			return '-'
		}, mod)
		id := family + "/" + strings.Trim(mod, ".-_") + "/" + slug(r.template)
		seen[id]++
		if n := seen[id]; n > 1 {
			id = fmt.Sprintf("%s-%d", id, n)
		}
		r.id = id
	}
}

var slugPlaceholderRE = regexp.MustCompile(`\{[^}]*\}|%\(?\w*\)?[sdrfxi]`)

// slug is the first words of a message template, placeholders left out.
func slug(tmpl string) string {
	tmpl = slugPlaceholderRE.ReplaceAllString(tmpl, " ")
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(tmpl), func(c rune) bool {
		return !unicode.IsLetter(c) && !unicode.IsDigit(c) || c > unicode.MaxASCII
	}) {
		words = append(words, w)
		if len(words) == 6 {
			break
		}
	}
	if len(words) == 0 {
		return "message"
	}
	return strings.Join(words, "-")
}

// tsv escapes a table's field: backslash, tab and line breaks.
func tsv(s string) string {
	return tsvEscaper.Replace(s)
}

// EscapeTSV escapes a field of the generated tables (backslash, tab and
// line breaks); UnescapeTSV undoes it.
func EscapeTSV(s string) string { return tsv(s) }

// UnescapeTSV undoes EscapeTSV.
func UnescapeTSV(s string) string { return untsv(s) }

var tsvEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

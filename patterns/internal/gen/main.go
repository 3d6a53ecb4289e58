// Command gen writes tailfix's generated pattern pack from the facts about
// sglang's source: every raise, assert and logger call with its message
// (raise-sites.jsonl) and every launch_server flag (server-args.jsonl).
//
//	go generate ./patterns
//
// It writes patterns/generated/curated.gob (the hand-written records,
// parsed), patterns/generated/sites.tsv (one record per distinct message),
// patterns/generated/flags.tsv (the flag table) and
// patterns/generated/README.md (what was left out, and why).
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/tailfix/tailfix/patterns"
)

// minLiteral is the rule for messages too generic to recognise safely: a
// message is kept only when its regex has a run of literal text of at least
// this many bytes, such as "Not enough memory. Please" in a message with
// placeholders. "{e}", "Unknown {x}" or "Invalid value: {v}" are left out:
// they would match a great many lines that are not this error.
const minLiteral = 12

type site struct {
	File      string  `json:"file"`
	Line      int     `json:"line"`
	Function  string  `json:"function"`
	Qualname  string  `json:"qualname"`
	Kind      string  `json:"kind"`
	Class     *string `json:"class"`
	Message   *string `json:"message"`
	Regex     *string `json:"message_regex"`
	Condition *string `json:"condition"`
	Guard     *string `json:"guard"`
	Commit    string  `json:"commit"`

	hist  *histFact // for a site read from the history
	count int       // the sites the history counts for it, when it stands for several
}

type serverArg struct {
	Flag       []string `json:"flag"`
	Action     string   `json:"action"`
	Nargs      any      `json:"nargs"`
	Dest       string   `json:"dest"`
	Type       *string  `json:"type"`
	Default    any      `json:"default"`
	Choices    []any    `json:"choices"`
	Help       string   `json:"help"`
	Deprecated bool     `json:"deprecated"`
	DefinedAt  string   `json:"defined_at"`
}

// pythonsOwnRE matches the messages of Python itself that some
// __getattr__ methods repeat word for word ("'{type}' object has no
// attribute '{name}'", "module {name!r} has no attribute {attr!r}"): a line
// with one of them was raised by any code at all, and a record of the
// site that repeats it would claim every AttributeError in a log.
var pythonsOwnRE = regexp.MustCompile(`^(?:'\.\*\?' object|module \.\*\?) has no attribute '?\.\*\?'?$`)

// record is one generated record: a distinct message and where it is raised.
type record struct {
	id, severity, kind, class, regex, template string
	first                                      site
	sites                                      int
	flags                                      []string
	sample, nearMiss, title                    string
	needles                                    []string
	hist                                       *histFact // the releases that print it, when the history knows
}

// histFact is one line of the history (patterns/internal/history): a
// message, the first and last release that print it ("" for last: still
// printed at the newest commit read), and the release and commit that
// dropped it.
type histFact struct {
	kind, class, regex, template      string
	first, last, removedIn, removedBy string
	file, function, guard             string
	line, sites                       int
	commit                            string // of the last release that prints it
}

func main() {
	sitesPath := flag.String("sites", "", "a table of the newest release's sites (raise-sites.jsonl); none: the history's facts of the newest release stand for it")
	argsPath := flag.String("args", "generated/flags-newest.jsonl", "the newest release's flag table (flags-newest.jsonl, written by patterns/internal/history)")
	histPath := flag.String("history", "", "history.tsv written by patterns/internal/history (none: no release ranges)")
	out := flag.String("out", "generated", "output directory")
	flag.Parse()
	if err := writeCurated(filepath.Join(*out, "curated.gob")); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := run(*sitesPath, *argsPath, *histPath, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// writeCurated parses and validates the hand-written records (the YAML
// files of the current directory, the patterns package) and writes them in
// the form the binary embeds.
func writeCurated(path string) error {
	pack, err := patterns.LoadSources(os.DirFS("."))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := patterns.EncodeCurated(&b, pack); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func run(sitesPath, argsPath, histPath, out string) error {
	args, err := readJSONL[serverArg](argsPath)
	if err != nil {
		return err
	}
	var sites []site
	if sitesPath != "" {
		if sites, err = readJSONL[site](sitesPath); err != nil {
			return err
		}
	}
	var facts []*histFact
	newest := "" // the newest release the history read: the one the flag table is of
	if histPath != "" {
		if facts, newest, err = readHistory(histPath); err != nil {
			return err
		}
	}
	factOf := map[string]*histFact{} // kind, class and template → fact; template alone too
	for _, f := range facts {
		factOf[histKey(f.kind, f.class, f.template)] = f
		if _, ok := factOf[f.template]; !ok || f.last == "" {
			factOf[f.template] = f
		}
	}
	current := len(sites)
	// Without a table of the newest release's sites, the history's facts
	// of the messages it prints stand for them. Messages older releases
	// print and the newest no longer does come after the newest's, so that
	// a message both print is the newest's.
	fromFact := func(f *histFact) site {
		fn := f.function
		if i := strings.LastIndexByte(fn, '.'); i >= 0 {
			fn = fn[i+1:]
		}
		class, msg, re := f.class, f.template, f.regex
		s := site{File: f.file, Line: f.line, Function: fn, Qualname: f.function, Kind: f.kind,
			Class: &class, Message: &msg, Regex: &re, Commit: f.commit, hist: f, count: f.sites}
		if f.guard != "" {
			g := f.guard
			s.Guard = &g
		}
		return s
	}
	if sitesPath == "" {
		for _, f := range facts {
			if f.last == "" {
				sites = append(sites, fromFact(f))
				current += max(1, f.sites)
			}
		}
	}
	for _, f := range facts {
		if f.last != "" {
			sites = append(sites, fromFact(f))
		}
	}
	flagOf := map[string]string{} // a flag or dest → the flag's first name
	for _, a := range args {
		for _, f := range a.Flag {
			flagOf[f] = a.Flag[0]
		}
		flagOf[a.Dest] = a.Flag[0]
	}

	skipped := map[string]int{}
	byRegex := map[string]*record{}
	var recs []*record
	for _, s := range sites {
		switch {
		case s.Message == nil || s.Regex == nil:
			skipped["no message in the source (a variable, or none)"]++
			continue
		case longestLiteral(*s.Regex) < minLiteral:
			skipped[fmt.Sprintf("too generic: no literal text of %d bytes", minLiteral)]++
			continue
		case strings.Contains(*s.Regex, "\n") || strings.Contains(*s.Message, "\n") && firstLine(*s.Message) == "":
			skipped["starts with a line break"]++
			continue
		}
		re := firstLineRegex(*s.Regex)
		if longestLiteral(re) < minLiteral {
			skipped[fmt.Sprintf("too generic: no literal text of %d bytes", minLiteral)]++
			continue
		}
		if pythonsOwnRE.MatchString(re) {
			skipped["Python's own message, repeated by a __getattr__ (names no site)"]++
			continue
		}
		if r := byRegex[re]; r != nil {
			r.sites += max(1, s.count)
			skipped["the same message at another site (merged)"]++
			if patterns.DiffusionFile(r.first.File) && !patterns.DiffusionFile(s.File) {
				// The diffusion runtime copied the message from the
				// server, and sorts before it: a line of either is
				// shown as the server's.
				r.setSite(s, flagOf)
			}
			continue
		}
		r := &record{regex: re, sites: max(1, s.count), hist: s.hist}
		r.setSite(s, flagOf)
		if r.hist == nil {
			r.hist = factOf[histKey(histKind(s.Kind), deref(s.Class), r.template)]
		}
		if r.hist == nil {
			r.hist = factOf[r.template]
		}
		if s.hist != nil && s.hist.last != "" && r.severity == "warning" {
			// A warning only older releases print: known, and no finding
			// (the newest release says nothing, or says it at info level).
			r.severity = "info"
		}
		r.sample = sample(re)
		needles, err := (&patterns.Record{Match: patterns.Match{Regex: re}}).Needles()
		if err != nil {
			skipped[fmt.Sprintf("too generic: no literal text of %d bytes", patterns.MinNeedle)]++
			continue
		}
		r.needles = needles
		if r.nearMiss = nearMiss(re, r.sample, needles); r.nearMiss == "" {
			skipped["no near miss can be made (the regex matches its own variations)"]++
			continue
		}
		byRegex[re] = r
		recs = append(recs, r)
	}
	assignIDs(recs)
	slices.SortFunc(recs, func(a, b *record) int { return cmp.Compare(a.id, b.id) })

	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeSites(filepath.Join(out, "sites.tsv"), recs); err != nil {
		return err
	}
	if err := writeFlags(filepath.Join(out, "flags.tsv"), args, newest); err != nil {
		return err
	}
	return writeReadme(filepath.Join(out, "README.md"), current, len(recs), skipped, recs)
}

func histKey(kind, class, template string) string { return kind + "\x00" + class + "\x00" + template }

// histKind is the kind the history files a site's kind under.
func histKind(kind string) string {
	if kind == "logger.exception" {
		return "logger.error"
	}
	return kind
}

// readHistory reads the history's facts, with each removed message's last
// release's commit from the release lines.
func readHistory(path string) ([]*histFact, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	newest := ""
	commitOf := map[string]string{}
	var facts []*histFact
	for n, line := range strings.Split(string(b), "\n") {
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "#release\t"):
			f := strings.Split(line, "\t")
			if len(f) >= 3 {
				commitOf[f[1]] = f[2]
				newest = f[1]
			}
			continue
		case line[0] == '#':
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 13 {
			return nil, "", fmt.Errorf("%s:%d: %d fields, want 13", path, n+1, len(f))
		}
		for i := range f {
			f[i] = untsv(f[i])
		}
		lineNo, _ := strconv.Atoi(f[9])
		nsites, _ := strconv.Atoi(f[12])
		h := &histFact{kind: f[0], class: f[1], regex: f[2], template: f[3], first: f[4], last: f[5],
			removedIn: f[6], removedBy: f[7], file: f[8], line: lineNo, function: f[10], guard: f[11], sites: nsites}
		if h.last != "" {
			h.commit = commitOf[h.last]
		} else {
			h.commit = commitOf[newest]
		}
		facts = append(facts, h)
	}
	return facts, newest, nil
}

// untsv undoes tsv.
func untsv(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// setSite makes s the site the record names: where it is raised, how,
// and the message as written there.
func (r *record) setSite(s site, flagOf map[string]string) {
	r.first, r.kind, r.template = s, s.Kind, firstLine(*s.Message)
	r.class = deref(s.Class)
	r.severity = map[string]string{"raise": "error", "assert": "error", "logger.error": "error",
		"logger.critical": "fatal", "logger.warning": "warning"}[s.Kind]
	r.flags = flagsNamed(r.template, flagOf)
	r.title = titleOf(r.class, r.template)
}

func readJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// firstLine is a message's first line: a log shows each line on its own,
// and the first is the one a record matches.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}

// firstLineRegex cuts a message regex at the first escaped line break.
func firstLineRegex(re string) string {
	if i := strings.Index(re, `\n`); i >= 0 {
		return strings.TrimSpace(re[:i])
	}
	return re
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

// sample writes a line the regex matches: its literal text with "x" for
// each placeholder.
func sample(re string) string {
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

// nearMiss writes a line close to the sample that the regex must not
// match: the sample with one letter of its prefilter literal changed, as a
// different message that shares most words would read.
func nearMiss(re, sample string, needles []string) string {
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

var flagRE = regexp.MustCompile(`--[a-z][a-z0-9-]*[a-z0-9]`)
var wordRE = regexp.MustCompile(`[a-z][a-z0-9]*(?:_[a-z0-9]+)+`)

// flagsNamed lists the launch flags a message names, as --flags or by the
// server argument they set (tp_size).
func flagsNamed(msg string, flagOf map[string]string) []string {
	var out []string
	add := func(f string) {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	for _, m := range flagRE.FindAllString(msg, -1) {
		add(flagOf[m])
	}
	for _, m := range wordRE.FindAllString(msg, -1) {
		add(flagOf[m])
	}
	return out
}

// assignIDs names each record by the module that raises it and the first
// words of its message: sglang-src/srt.server_args/tp-size-must-be-divisible.
func assignIDs(recs []*record) {
	seen := map[string]int{}
	for _, r := range recs {
		mod := strings.TrimSuffix(strings.TrimPrefix(r.first.File, "python/sglang/"), ".py")
		mod = strings.ToLower(strings.ReplaceAll(mod, "/", "."))
		mod = strings.Map(func(c rune) rune {
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
				return c
			}
			return '-'
		}, mod)
		id := "sglang-src/" + strings.Trim(mod, ".-_") + "/" + slug(r.template)
		seen[id]++
		if n := seen[id]; n > 1 {
			id = fmt.Sprintf("%s-%d", id, n)
		}
		r.id = id
	}
}

// slug is the first words of a message template, placeholders left out.
func slug(tmpl string) string {
	tmpl = regexp.MustCompile(`\{[^}]*\}|%\(?\w*\)?[sdrfxi]`).ReplaceAllString(tmpl, " ")
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

// tsv escapes a field: backslash, tab and line breaks.
func tsv(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(s)
}

func writeSites(path string, recs []*record) error {
	var b strings.Builder
	b.WriteString("# id\tseverity\tkind\tclass\tregex\ttemplate\tfile\tline\tfunction\tqualname\tsites\tflags\tguard\tcommit\tsample\tneedles\tnear_miss\ttitle\tfirst_release\tlast_release\tremoved_in\tremoved_by\n")
	for _, r := range recs {
		guard := deref(r.first.Guard)
		if r.kind == "assert" && r.first.Condition != nil {
			guard = "not (" + *r.first.Condition + ")"
		}
		fields := []string{r.id, r.severity, r.kind, r.class, r.regex, r.template, r.first.File,
			fmt.Sprint(r.first.Line), r.first.Function, r.first.Qualname, fmt.Sprint(r.sites),
			strings.Join(r.flags, " "), guard, r.first.Commit, r.sample, strings.Join(r.needles, "\x1f"), r.nearMiss, r.title,
			"", "", "", ""}
		if h := r.hist; h != nil {
			fields[18], fields[19], fields[20], fields[21] = h.first, h.last, h.removedIn, h.removedBy
		}
		for i, f := range fields {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(tsv(f))
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func writeFlags(path string, args []serverArg, release string) error {
	var b strings.Builder
	if release != "" {
		fmt.Fprintf(&b, "# release\t%s\n", release)
	}
	b.WriteString("# flags\tdest\ttype\tdefault\tchoices\tdeprecated\tdefined_at\thelp\taction\tnargs\n")
	for _, a := range args {
		def := ""
		if a.Default != nil {
			d, _ := json.Marshal(a.Default)
			def = string(d)
		}
		var choices []string
		for _, c := range a.Choices {
			choices = append(choices, fmt.Sprint(c))
		}
		nargs := ""
		if a.Nargs != nil {
			nargs = fmt.Sprint(a.Nargs)
		}
		fields := []string{strings.Join(a.Flag, " "), a.Dest, deref(a.Type), def,
			strings.Join(choices, "|"), fmt.Sprint(a.Deprecated), a.DefinedAt, a.Help, a.Action, nargs}
		for i, f := range fields {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(tsv(f))
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func writeReadme(path string, sites, recs int, skipped map[string]int, all []*record) error {
	kinds := map[string]int{}
	for _, r := range all {
		kinds[r.kind]++
	}
	var b strings.Builder
	b.WriteString("# generated\n\nWritten by `go generate ./patterns` (patterns/internal/gen); do not edit.\n\n")
	b.WriteString("- `history.tsv`, `flag-history.tsv` and `flags-newest.jsonl` are written by patterns/internal/history from sglang's\n")
	b.WriteString("  git history (run it with `-repo` pointing at a clone with history): every release, each\n")
	b.WriteString("  Python file read with the project's own reader (the one `tailfix patterns learn` uses).\n")
	b.WriteString("- `curated.gob` is the hand-written records (`patterns/*/*.yaml`), parsed and validated, as\n")
	b.WriteString("  the binary embeds them: decoding it is quicker than parsing the YAML at start-up.\n")
	b.WriteString("- `sites.tsv` holds one record per distinct message sglang raises or logs in any release,\n")
	b.WriteString("  with the releases that print it, generated from `history.tsv`.\n")
	b.WriteString("- `flags.tsv` is every `launch_server` flag of the newest release, with its type, default\n")
	b.WriteString("  and help, from `flags-newest.jsonl` (argparse calls and the declarative ServerArgs fields,\n")
	b.WriteString("  read from the source); `flag-history.tsv` gives each flag and literal choice the releases\n")
	b.WriteString("  that accept it.\n\n")
	old := 0
	for _, r := range all {
		if r.hist != nil && r.hist.last != "" {
			old++
		}
	}
	fmt.Fprintf(&b, "- sites of the newest release with a message: %d\n- records: %d, of which %d are of messages only older releases print (", sites, recs, old)
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, kinds[k])
	}
	b.WriteString(")\n- left out or merged:\n")
	var reasons []string
	for k := range skipped {
		reasons = append(reasons, k)
	}
	slices.Sort(reasons)
	for _, k := range reasons {
		fmt.Fprintf(&b, "  - %s: %d\n", k, skipped[k])
	}
	fmt.Fprintf(&b, "\nThe rule for messages too generic to recognise safely: a message is kept only when its\n"+
		"regex has a run of literal text of at least %d bytes. A message of several lines is matched\n"+
		"by its first line.\n", minLiteral)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// Command history reads sglang's git history and writes, for every message
// sglang has raised or logged in a release, the releases that print it:
//
//	go run ./internal/history -repo PATH-TO-SGLANG-GIT -out generated/history.tsv
//
// A release is the commit that set a new __version__ (python/sglang/
// version.py, earlier python/sglang/__init__.py); releases tagged after the
// version file stopped being bumped are found from the release index sglang
// published (docs/release_lookup/release_index.json), at the last main
// commit before the tag's date; after those, main is sampled on the first
// day of each month up to -until, the commit the rest of the generated pack
// is built from. Each tree is read with the project's own Python reader
// (patterns.ParsePython), each distinct file once.
//
// One line per distinct first message line (the key generated records are
// merged on): its kind, class, regex, template, the first and last release
// that print it, and for a message no longer printed at -until, the release
// that dropped it and the commit that did, found with git's pickaxe.
//
// Beside it, bare.tsv holds the sites that raise an exception with no
// message (an assert without one, raise NotImplementedError): where they
// are, the assert's condition, and the first and last release that have
// them. A traceback ending in such an exception is known by its innermost
// frame.
//
// The output is committed: go generate ./patterns reads it, so that the
// pack can be regenerated, and checked, without the history.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tailfix/tailfix/patterns"
)

// defaultUntil is the commit the generated pack is built from.
const defaultUntil = "cce0a1244b5a3ee60411fb403f65f856a1d012f0"

func main() {
	repo := flag.String("repo", "", "sglang's git directory (a bare clone with history)")
	until := flag.String("until", defaultUntil, "the newest commit to read")
	out := flag.String("out", "generated/history.tsv", "output file")
	flag.Parse()
	if *repo == "" {
		fmt.Fprintln(os.Stderr, "history: -repo is required")
		os.Exit(2)
	}
	if err := run(*repo, *until, *out); err != nil {
		fmt.Fprintln(os.Stderr, "history:", err)
		os.Exit(1)
	}
}

// release is one point of the history that is read.
type release struct {
	label  string // "0.4.3.post2", or "main 2026-05" for a sample of main
	commit string
	date   time.Time
}

// fact is what the history says of one message.
type fact struct {
	kind, class, regex, template string
	first, last                  int // indices of the first and last release that print it
	// The site named for the last release that prints it (the server's
	// over the diffusion runtime's copy), the condition it is raised
	// under, and how many sites print it in that release.
	file, function, guard string
	line, sites           int
}

// flagFact is what the history says of a flag, or of one of its choices.
type flagFact struct {
	name, choice string // choice is "" for the flag itself
	first, last  int
	switched     bool   // the flag takes no value (store_true…), as of its last release
	replacedBy   string // the flag its help names in its place, as of its last release
}

func run(repo, until, out string) error {
	g := &gitRepo{dir: repo}
	full, err := g.lines("rev-parse", "--verify", until+"^{commit}")
	if err != nil || len(full) == 0 {
		return fmt.Errorf("no commit %s in %s: %v", until, repo, err)
	}
	until = full[0]
	rels, err := releases(g, until)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "history: %d releases, %s (%s) to %s\n", len(rels), rels[0].label, rels[0].commit[:9], rels[len(rels)-1].label)
	cat, err := g.catFile()
	if err != nil {
		return err
	}
	defer cat.close()
	cache := map[string][]patterns.RaiseSite{} // blob → sites, File relative to python/sglang
	flagCache := map[string][]patterns.FlagSite{}
	facts := map[string]*fact{}
	bare := map[string]*bareFact{}
	flags := map[string]*flagFact{}
	var newest []patterns.FlagSite // the flags of the newest release, in source order
	var skipped int
	for i, r := range rels {
		files, err := g.pyFiles(r.commit)
		if err != nil {
			return err
		}
		for _, f := range files {
			sites, ok := cache[f.blob]
			var src []byte
			if !ok {
				if src, err = cat.read(f.blob); err != nil {
					return err
				}
				sites, err = patterns.ParsePython(f.path, src)
				if err != nil {
					skipped++ // a file the reader cannot read: its sites are not known
					sites = nil
				}
				cache[f.blob] = sites
			}
			for _, s := range sites {
				note(facts, s, f.path, i)
				noteBare(bare, s, f.path, i)
			}
			if !patterns.FlagFile(f.path) {
				continue
			}
			fl, ok := flagCache[f.blob]
			if !ok {
				if src == nil {
					if src, err = cat.read(f.blob); err != nil {
						return err
					}
				}
				fl, _ = patterns.LearnFlags(f.path, src)
				flagCache[f.blob] = fl
			}
			if i == len(rels)-1 {
				newest = append(newest, fl...)
			}
			for _, s := range fl {
				for _, n := range s.Names {
					ff := noteFlag(flags, n, "", i)
					ff.switched = s.Switch()
					ff.replacedBy = patterns.Replacement(s.Help, s.Names)
					for _, c := range s.Choices {
						noteFlag(flags, n, c, i)
					}
				}
			}
		}
	}
	fmt.Fprintf(os.Stderr, "history: %d files read, %d unreadable, %d messages\n", len(cache), skipped, len(facts))
	list := make([]*fact, 0, len(facts))
	for _, f := range facts {
		list = append(list, f)
	}
	slices.SortFunc(list, func(a, b *fact) int {
		return cmp.Or(cmp.Compare(a.template, b.template), cmp.Compare(a.kind, b.kind), cmp.Compare(a.class, b.class))
	})
	removedBy := map[string]string{}
	d := &dropFinder{g: g, cat: cat, commits: map[string][]string{}, has: map[string]bool{}}
	for _, f := range list {
		if f.last < len(rels)-1 {
			removedBy[key(f.kind, f.class, f.template)] = d.dropper(f, rels[f.last].commit, rels[f.last+1].commit)
		}
	}
	if err := write(out, rels, list, removedBy); err != nil {
		return err
	}
	if err := writeBare(filepath.Join(filepath.Dir(out), "bare.tsv"), rels, bare); err != nil {
		return err
	}
	if err := writeFlags(filepath.Join(filepath.Dir(out), "flag-history.tsv"), rels, flags); err != nil {
		return err
	}
	return writeNewestFlags(filepath.Join(filepath.Dir(out), "flags-newest.jsonl"), rels[len(rels)-1].commit, newest)
}

// writeNewestFlags writes the newest release's flag table, one flag a
// line, in the form the generator reads: spellings, dest, type, default,
// literal choices, action, nargs, the help's first sentence, whether it is
// deprecated, and where it is defined.
func writeNewestFlags(out, commit string, sites []patterns.FlagSite) error {
	var b bytes.Buffer
	seen := map[string]bool{}
	for _, f := range sites {
		if seen[f.Names[0]] {
			continue
		}
		seen[f.Names[0]] = true
		action := f.Action
		if action == "" {
			action = "store"
		}
		var typ, def, nargs any
		if f.Type != "" {
			typ = f.Type
		}
		if f.Default != "" {
			_ = json.Unmarshal([]byte(f.Default), &def)
		}
		switch {
		case f.Nargs != "":
			nargs = f.Nargs
		case f.Switch():
			nargs = 0 // as argparse records a flag that takes no value
		}
		choices := []any{}
		for _, c := range f.Choices {
			choices = append(choices, c)
		}
		if len(choices) == 0 {
			choices = nil
		}
		line, err := json.Marshal(map[string]any{
			"flag": f.Names, "dest": f.Dest, "type": typ, "default": def, "choices": choices,
			"action": action, "nargs": nargs, "help": patterns.FirstSentence(f.Help), "deprecated": f.Deprecated,
			"defined_at": fmt.Sprintf("python/sglang/%s:%d", f.File, f.Line), "commit": commit,
		})
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// noteFlag adds a flag, or a choice of it, seen in release i.
func noteFlag(flags map[string]*flagFact, name, choice string, i int) *flagFact {
	k := name + "\x00" + choice
	f := flags[k]
	if f == nil {
		f = &flagFact{name: name, choice: choice, first: i}
		flags[k] = f
	}
	f.last = i
	return f
}

// writeFlags writes the flags of every release: each spelling, and each
// literal choice, with the first and last release that accept it ("" for
// last: the newest still does).
func writeFlags(out string, rels []release, flags map[string]*flagFact) error {
	list := make([]*flagFact, 0, len(flags))
	for _, f := range flags {
		list = append(list, f)
	}
	slices.SortFunc(list, func(a, b *flagFact) int { return cmp.Or(cmp.Compare(a.name, b.name), cmp.Compare(a.choice, b.choice)) })
	var b bytes.Buffer
	b.WriteString("# Written by patterns/internal/history from sglang's git history; do not edit.\n")
	b.WriteString("# The launch flags of every release, and their literal choices: flag, choice (none: the flag),\n")
	b.WriteString("# first release that accepts it, last (none: the newest still does), and \"switch\" for a flag\n")
	b.WriteString("# that takes no value, and for a flag a later release removed, the flag its help named in its\n")
	b.WriteString("# place (\"use --attention-backend\"). Releases, oldest first:\n")
	for _, r := range rels {
		fmt.Fprintf(&b, "#release\t%s\n", r.label)
	}
	for _, f := range list {
		last := ""
		if f.last < len(rels)-1 {
			last = rels[f.last].label
		}
		kind := ""
		if f.switched && f.choice == "" {
			kind = "switch"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s", patterns.EscapeTSV(f.name), patterns.EscapeTSV(f.choice), rels[f.first].label, last, kind)
		if last != "" && f.choice == "" && f.replacedBy != "" {
			fmt.Fprintf(&b, "\t%s", patterns.EscapeTSV(f.replacedBy))
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// key is what merges sites into one message: a generated record stands for
// a first message line.
func key(kind, class, template string) string { return patterns.MessageKey(kind, class, template) }

// note adds a site of release i, as patterns.Messages reads one tree.
func note(facts map[string]*fact, s patterns.RaiseSite, file string, i int) {
	m, ok := patterns.MessageOf(s, "python/sglang/"+file)
	if !ok {
		return
	}
	k := patterns.MessageKey(m.Kind, m.Class, m.Template)
	f := facts[k]
	if f == nil {
		f = &fact{kind: m.Kind, class: m.Class, regex: m.Regex, template: m.Template, first: i}
		facts[k] = f
	}
	if f.last != i || f.sites == 0 {
		f.sites = 0 // a new release: its sites are counted afresh
	}
	f.last = i
	f.sites++
	if f.sites == 1 || patterns.DiffusionFile(f.file) && !patterns.DiffusionFile(m.File) {
		f.file, f.line, f.function, f.guard = m.File, m.Line, m.Function, m.Guard
	}
}

// bareFact is what the history says of a site that raises an exception
// with no message: the newest release's place for it.
type bareFact struct {
	file, function, class, condition string
	line, first, last                int
}

// bareClasses are the exceptions raised without a message that a
// traceback shows bare ("AssertionError", "NotImplementedError"): what
// raised them is all there is to know.
var bareClasses = map[string]bool{"AssertionError": true, "NotImplementedError": true}

// noteBare adds a message-less site of release i.
func noteBare(bare map[string]*bareFact, s patterns.RaiseSite, file string, i int) {
	if s.Message != "" || s.Kind != "assert" && s.Kind != "raise" || !bareClasses[strings.TrimSuffix(s.Class, "()")] {
		return
	}
	class := strings.TrimSuffix(s.Class, "()")
	file = "python/sglang/" + file
	k := file + "\x00" + s.Function + "\x00" + class + "\x00" + s.Condition
	f := bare[k]
	if f == nil {
		f = &bareFact{file: file, function: s.Function, class: class, condition: s.Condition, first: i}
		bare[k] = f
	}
	f.last, f.line = i, s.Line
}

// writeBare writes the message-less sites, by file, function and line.
func writeBare(out string, rels []release, bare map[string]*bareFact) error {
	list := make([]*bareFact, 0, len(bare))
	for _, f := range bare {
		list = append(list, f)
	}
	slices.SortFunc(list, func(a, b *bareFact) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.function, b.function), cmp.Compare(a.line, b.line),
			cmp.Compare(a.class, b.class), cmp.Compare(a.condition, b.condition))
	})
	var b bytes.Buffer
	b.WriteString("# Written by patterns/internal/history from sglang's git history; do not edit.\n")
	b.WriteString(patterns.BareHeader + "\n")
	for _, f := range list {
		last := rels[f.last].label
		if f.last == len(rels)-1 {
			last = ""
		}
		fields := []string{f.file, fmt.Sprint(f.line), f.function, f.class, f.condition, rels[f.first].label, last}
		for i, x := range fields {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(patterns.EscapeTSV(x))
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// releases finds the release points, oldest first, up to until.
func releases(g *gitRepo, until string) ([]release, error) {
	var rels []release
	seen := map[string]bool{}
	for _, file := range []string{"python/sglang/__init__.py", "python/sglang/version.py"} {
		lines, err := g.lines("log", "--first-parent", "--reverse", "--format=%H %cI", "-G", `__version__ = `, until, "--", file)
		if err != nil {
			return nil, err
		}
		for _, l := range lines {
			commit, date, _ := strings.Cut(l, " ")
			src, err := g.output("show", commit+":"+file)
			if err != nil {
				continue
			}
			m := versionRE.FindSubmatch(src)
			if m == nil || strings.HasPrefix(string(m[1]), "0.0.0") || seen[string(m[1])] {
				continue
			}
			seen[string(m[1])] = true
			t, _ := time.Parse(time.RFC3339, date)
			rels = append(rels, release{label: string(m[1]), commit: commit, date: t})
		}
	}
	slices.SortStableFunc(rels, func(a, b release) int { return a.date.Compare(b.date) })
	// Releases tagged after the version file stopped being bumped.
	last := rels[len(rels)-1].date
	for _, t := range g.taggedReleases(until) {
		if !t.date.After(last) || seen[t.label] {
			continue
		}
		c, err := g.before(until, t.date)
		if err != nil || c == "" {
			continue
		}
		seen[t.label] = true
		rels = append(rels, release{label: t.label, commit: c, date: t.date})
		last = t.date
	}
	// Then main, on the first day of each month, and until itself.
	end, err := g.commitDate(until)
	if err != nil {
		return nil, err
	}
	for m := time.Date(last.Year(), last.Month()+1, 1, 0, 0, 0, 0, time.UTC); m.Before(end); m = m.AddDate(0, 1, 0) {
		c, err := g.before(until, m)
		if err != nil || c == "" {
			continue
		}
		rels = append(rels, release{label: "main " + m.AddDate(0, 0, -1).Format("2006-01"), commit: c, date: m})
	}
	rels = append(rels, release{label: "main " + end.Format("2006-01-02"), commit: until, date: end})
	return rels, nil
}

var versionRE = regexp.MustCompile(`__version__ = ["']([^"']+)["']`)

// taggedReleases reads the newest copy of sglang's release index: tag names
// ("v0.5.8") and dates.
func (g *gitRepo) taggedReleases(until string) []release {
	c, err := g.lines("log", "-1", "--format=%H", until, "--", "docs/release_lookup/release_index.json")
	if err != nil || len(c) == 0 {
		return nil
	}
	// The file was emptied when the docs moved; read the last copy with tags.
	for _, commit := range []string{c[0], c[0] + "^"} {
		src, err := g.output("show", commit+":docs/release_lookup/release_index.json")
		if err != nil {
			continue
		}
		var idx struct {
			T [][]any `json:"t"`
		}
		if json.Unmarshal(src, &idx) != nil || len(idx.T) == 0 {
			continue
		}
		var out []release
		for _, e := range idx.T {
			if len(e) < 2 {
				continue
			}
			name, _ := e[0].(string)
			date, _ := e[1].(string)
			if !strings.HasPrefix(name, "v") {
				continue // another product's tags (gateway-v…)
			}
			t, err := time.Parse("2006-01-02 15:04:05 -0700", date)
			if err != nil {
				continue
			}
			out = append(out, release{label: strings.TrimPrefix(name, "v"), date: t})
		}
		return out
	}
	return nil
}

// dropFinder finds the commit that dropped a message: among the commits
// between the last release that printed it and the next, those that
// touched the file it was in, the first after which the file no longer
// holds the message's longest literal (found by bisection, each version
// of the file read once).
type dropFinder struct {
	g       *gitRepo
	cat     *catFile
	commits map[string][]string // "from..to path" → "hash subject", oldest first
	has     map[string]bool     // "hash:path\x00literal" → the file holds it
}

func (d *dropFinder) dropper(f *fact, from, to string) string {
	lit := longestLiteral(f.template)
	if len(lit) < 8 {
		return ""
	}
	k := from + ".." + to + " " + f.file
	cs, ok := d.commits[k]
	if !ok {
		cs, _ = d.g.lines("log", "--first-parent", "--reverse", "--format=%H %s", from+".."+to, "--", f.file)
		d.commits[k] = cs
	}
	holds := func(c string) bool {
		hash, _, _ := strings.Cut(c, " ")
		hk := hash + ":" + f.file + "\x00" + lit
		if v, ok := d.has[hk]; ok {
			return v
		}
		src, _ := d.cat.read(hash + ":" + f.file)
		v := bytes.Contains(src, []byte(lit))
		d.has[hk] = v
		return v
	}
	i, _ := slices.BinarySearchFunc(cs, true, func(c string, _ bool) int {
		if holds(c) {
			return -1
		}
		return 1
	})
	if i >= len(cs) {
		return ""
	}
	hash, subject, _ := strings.Cut(cs[i], " ")
	return hash[:9] + " " + subject
}

// longestLiteral is the longest run of a template's text between its
// run-time parts.
func longestLiteral(tmpl string) string {
	best := ""
	for _, part := range placeholderRE.Split(tmpl, -1) {
		if len(part) > len(best) {
			best = part
		}
	}
	return strings.TrimSpace(best)
}

var placeholderRE = regexp.MustCompile(`\{[^{}]*\}|%\(\w+\)[sdrfxi]|%[-#0 +]?\d*(?:\.\d+)?[sdrfxi]`)

func write(out string, rels []release, list []*fact, removedBy map[string]string) error {
	var b bytes.Buffer
	b.WriteString("# Written by patterns/internal/history from sglang's git history; do not edit.\n")
	b.WriteString("# releases read, oldest first: label, commit, date\n")
	for _, r := range rels {
		fmt.Fprintf(&b, "#release\t%s\t%s\t%s\n", r.label, r.commit[:12], r.date.UTC().Format("2006-01-02"))
	}
	b.WriteString("# kind\tclass\tregex\ttemplate\tfirst\tlast\tremoved_in\tremoved_by\tfile\tline\tfunction\tguard\tsites\n")
	for _, f := range list {
		removedIn, by := "", ""
		last := rels[f.last].label
		if f.last < len(rels)-1 {
			removedIn = rels[f.last+1].label
			by = removedBy[key(f.kind, f.class, f.template)]
		} else {
			last = ""
		}
		fields := []string{f.kind, f.class, f.regex, f.template, rels[f.first].label, last, removedIn, by,
			f.file, fmt.Sprint(f.line), f.function, f.guard, fmt.Sprint(f.sites)}
		for i, x := range fields {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(patterns.EscapeTSV(x))
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}

// gitRepo runs git on a repository.
type gitRepo struct{ dir string }

func (g *gitRepo) output(args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"--git-dir", g.dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}

func (g *gitRepo) lines(args ...string) ([]string, error) {
	out, err := g.output(args...)
	if err != nil {
		return nil, err
	}
	var ls []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			ls = append(ls, l)
		}
	}
	return ls, nil
}

// before returns the last first-parent commit of until made before t.
func (g *gitRepo) before(until string, t time.Time) (string, error) {
	ls, err := g.lines("rev-list", "-1", "--first-parent", "--before="+t.Format(time.RFC3339), until)
	if err != nil || len(ls) == 0 {
		return "", err
	}
	return ls[0], nil
}

func (g *gitRepo) commitDate(c string) (time.Time, error) {
	ls, err := g.lines("log", "-1", "--format=%cI", c)
	if err != nil || len(ls) == 0 {
		return time.Time{}, fmt.Errorf("no date for %s: %v", c, err)
	}
	return time.Parse(time.RFC3339, ls[0])
}

type pyFile struct{ blob, path string }

// pyFiles lists a commit's Python files under python/sglang, test code left
// out as patterns.LearnSites leaves it out; paths are relative to
// python/sglang.
func (g *gitRepo) pyFiles(commit string) ([]pyFile, error) {
	ls, err := g.lines("ls-tree", "-r", commit, "--", "python/sglang")
	if err != nil {
		return nil, err
	}
	var out []pyFile
	for _, l := range ls {
		meta, p, ok := strings.Cut(l, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue
		}
		rel := strings.TrimPrefix(p, "python/sglang/")
		if !patterns.LearnsFile(rel) {
			continue
		}
		out = append(out, pyFile{blob: f[2], path: rel})
	}
	return out, nil
}

// catFile reads blobs through one git cat-file --batch.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (g *gitRepo) catFile() (*catFile, error) {
	cmd := exec.Command("git", "--git-dir", g.dir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// read returns an object's content; nil for an object that does not
// exist (a path a commit does not have).
func (c *catFile) read(obj string) ([]byte, error) {
	if _, err := fmt.Fprintln(c.in, obj); err != nil {
		return nil, err
	}
	head, err := c.out.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(head, " missing\n") || strings.HasSuffix(head, " ambiguous\n") {
		return nil, nil
	}
	var name, typ string
	var size int
	if _, err := fmt.Sscanf(head, "%s %s %d", &name, &typ, &size); err != nil {
		return nil, fmt.Errorf("cat-file: %q: %v", head, err)
	}
	buf := make([]byte, size+1) // the content and its newline
	if _, err := io.ReadFull(c.out, buf); err != nil {
		return nil, err
	}
	return buf[:size], nil
}

func (c *catFile) close() {
	c.in.Close()
	c.cmd.Wait()
}

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/remedies"
)

type patternsCmd struct {
	List  patternsListCmd  `cmd:"" help:"List the pattern records: id, severity and title (JSON: one record per line)."`
	Test  patternsTestCmd  `cmd:"" help:"Run every record's own tests: lines it must match and near misses it must not."`
	Lint  patternsLintCmd  `cmd:"" help:"Check the pack: every regex compiles, every record has a literal to prefilter on, no record at error level matches a line of the healthy logs given."`
	Learn patternsLearnCmd `cmd:"" help:"Learn records from a Python source tree: every message it can raise or log. Load them with --patterns OUTDIR."`
}

type patternsListCmd struct {
	HandWritten bool     `name:"hand-written" help:"Only the records written by hand, not those generated from sglang's source."`
	Tag         []string `name:"tag" placeholder:"TAG" help:"Only records with this tag (mooncake, nccl, pd-disaggregation, install…). Repeatable: a record with any of the tags is listed."`
	Severity    string   `name:"severity" placeholder:"LEVEL" default:"info" enum:"info,warning,error,fatal" help:"Only records at or above this severity: ${enum}."`
	Family      []string `name:"family" placeholder:"FAMILY" help:"Only records of this family: the first part of their id (sglang, torch, nccl, vllm…) or the file they are written in (memory, pd-disagg, quantization…). Repeatable: a record of any of them is listed."`
}

// listFilter is what patterns list shows of a pack.
type listFilter struct {
	handWritten bool
	tags        []string          // any of them; none: any record
	families    []string          // any of them; none: any record
	minSeverity patterns.Severity // 0: any
}

// keep reports whether the filter lets r through.
func (f listFilter) keep(r *patterns.Record) bool {
	if f.handWritten && r.Gen != nil {
		return false
	}
	if r.Severity < f.minSeverity {
		return false
	}
	if len(f.families) > 0 && !slices.ContainsFunc(f.families, func(fam string) bool { return inFamily(r, fam) }) {
		return false
	}
	if len(f.tags) == 0 {
		return true
	}
	for _, t := range f.tags {
		if r.HasTag(t) {
			return true
		}
	}
	return false
}

// inFamily reports whether a record is of a family: the first part of
// its id, or the name of the file it is written in.
func inFamily(r *patterns.Record, family string) bool {
	if first, _, _ := strings.Cut(r.ID, "/"); first == family {
		return true
	}
	return r.Gen == nil && strings.TrimSuffix(path.Base(r.Origin), path.Ext(r.Origin)) == family
}

// filterRecords returns the records f keeps, in their order.
func filterRecords(recs []*patterns.Record, f listFilter) []*patterns.Record {
	var out []*patterns.Record
	for _, r := range recs {
		if f.keep(r) {
			out = append(out, r)
		}
	}
	return out
}

func (c patternsListCmd) Run(e *env) error {
	// The records alone: listing them needs no automaton.
	e.whole = true
	pack, err := e.pack(patterns.Builtin)
	if err != nil {
		return err
	}
	f := listFilter{handWritten: c.HandWritten, tags: c.Tag, families: c.Family}
	f.minSeverity, _ = patterns.ParseSeverity(c.Severity) // kong checked the enum
	recs := filterRecords(pack.Records, f)
	if err := patterns.LoadRecords(recs); err != nil {
		return err
	}
	if e.format == remedies.JSON {
		p := e.printer(e.stdout)
		for _, r := range recs {
			if err := p.Record(r); err != nil {
				return err
			}
		}
		return nil
	}
	return writeRecordList(e.stdout, recs, listWidth(e.stdout, e.getenv))
}

// listWidth is the width patterns list fits its lines to: the terminal's
// (COLUMNS when set) when w is a terminal; 0, no limit, when it is not, so
// that a pipe or a file gets whole titles.
func listWidth(w io.Writer, getenv func(string) string) int {
	if !isTerminal(w) {
		return 0
	}
	if n, ok := columns(w, getenv); ok {
		return n
	}
	return 80
}

// writeRecordList writes one line per record: id, severity and title in
// columns. With a width, the id column takes at most half of it (a longer
// id runs into the next column) and each title is clipped with … to fit
// the line; an id is never clipped, since explain needs it whole.
func writeRecordList(w io.Writer, recs []*patterns.Record, width int) error {
	idW, sevW := 0, 0
	for _, r := range recs {
		idW = max(idW, ansi.StringWidth(r.ID))
		sevW = max(sevW, len(r.Severity.String()))
	}
	if width > 0 {
		idW = min(idW, width/2)
	}
	bw := bufio.NewWriter(w)
	var line []byte
	for _, r := range recs {
		line = append(line[:0], r.ID...)
		line = pad(line, max(idW-ansi.StringWidth(r.ID), 0)+2)
		sev := r.Severity.String()
		line = append(line, sev...)
		line = pad(line, sevW-len(sev)+2)
		title := r.Title
		if width > 0 {
			title = ansi.Truncate(title, max(width-ansi.StringWidth(string(line)), 0), "…")
		}
		line = append(line, title...)
		line = bytes.TrimRight(line, " ")
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// pad appends n spaces.
func pad(b []byte, n int) []byte {
	for range n {
		b = append(b, ' ')
	}
	return b
}

type patternsTestCmd struct{}

// Run checks each record's tests against the whole compiled pack, so a
// test also proves the automaton proposes the line.
func (patternsTestCmd) Run(e *env) error {
	e.whole = true
	m, err := e.load()
	if err != nil {
		return err
	}
	failures, lines := m.TestRecords()
	for _, f := range failures {
		fmt.Fprintf(e.stderr, "tailfix: fail: %s\n", f)
	}
	recs := len(m.Pack().Records)
	if len(failures) > 0 {
		fmt.Fprintf(e.stdout, "%d of %d test lines failed in %d records\n", len(failures), lines, recs)
		return silentError{errors.New("pattern tests failed")}
	}
	fmt.Fprintf(e.stdout, "ok: %d records, %d test lines\n", recs, lines)
	return nil
}

type patternsLearnCmd struct {
	Dir  string `arg:"" placeholder:"DIR" help:"Python source tree to read, such as the installed sglang package: python -c 'import importlib.util as u; print(u.find_spec(\"sglang\").submodule_search_locations[0])'. Test code is skipped."`
	Out  string `short:"o" placeholder:"OUTDIR" help:"Write the records to OUTDIR/learned/sites.tsv, a table in the form of the built-in one, for --patterns OUTDIR. Without it, print them as JSON lines."`
	Repo string `placeholder:"NAME" help:"Repository named in each record's source location, such as sgl-project/sglang."`
}

// learnedTable is the file learn writes under OUTDIR/learned.
const learnedTable = "sites.tsv"

func (c patternsLearnCmd) Run(e *env) error {
	st, err := os.Stat(c.Dir)
	if err != nil {
		return fmt.Errorf("cannot read %q: %w", c.Dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("cannot read %q: not a directory", c.Dir)
	}
	flags, err := patterns.Flags()
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return fmt.Errorf("learn from %q: %w", c.Dir, err)
	}
	table, stats, n, err := patterns.LearnTable(os.DirFS(c.Dir), flags, patterns.TableSource{Repo: c.Repo, Dir: filepath.ToSlash(dir)})
	if err != nil {
		return fmt.Errorf("learn from %q: %w", c.Dir, err)
	}
	for _, err := range stats.Unreadable {
		fmt.Fprintf(e.stderr, "tailfix: warning: skipped %s/%v\n", filepath.ToSlash(c.Dir), err)
	}
	summary := learnSummary(stats, n)
	if c.Out == "" {
		recs, err := patterns.ReadSites(c.Dir, table)
		if err != nil {
			return fmt.Errorf("learn from %q: %w", c.Dir, err)
		}
		p := remedies.NewPrinter(e.stdout, remedies.Options{Format: remedies.JSON})
		for _, r := range recs {
			if err := p.Record(r); err != nil {
				return err
			}
		}
		fmt.Fprintln(e.stderr, summary)
		return nil
	}
	name, err := writeLearned(filepath.Join(c.Out, "learned"), table)
	if err != nil {
		return err
	}
	e.log.Debug().Str("file", name).Msg("pack written")
	fmt.Fprintf(e.stdout, "%s; wrote %s\n", summary, name)
	return nil
}

// learnSummary is the one-line account of a learn run.
func learnSummary(stats patterns.LearnStats, records int) string {
	s := fmt.Sprintf("learned %d %s from %d %s, %d %s", records, learnPlural(records, "record", "records"),
		stats.Files, learnPlural(stats.Files, "file", "files"), stats.Sites, learnPlural(stats.Sites, "site", "sites"))
	reasons := make([]string, 0, len(stats.Skipped))
	for r := range stats.Skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for i, r := range reasons {
		if i == 0 {
			s += "; left out:"
		} else {
			s += ","
		}
		s += fmt.Sprintf(" %d %s", stats.Skipped[r], r)
	}
	if n := len(stats.Unreadable); n > 0 {
		s += fmt.Sprintf("; %d unreadable %s skipped", n, learnPlural(n, "file", "files"))
	}
	return s
}

func learnPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeLearned writes a learned table to dir/sites.tsv, replacing the one
// an earlier run wrote, and removes the YAML files older releases of learn
// wrote there, so that no stale records stay behind. It returns the
// table's name.
func writeLearned(dir string, table []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	old, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, d := range old {
		name := filepath.Join(dir, d.Name())
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".yaml") && fileStartsWith(name, learnedHeader) {
			if err := os.Remove(name); err != nil {
				return "", err
			}
		}
	}
	name := filepath.Join(dir, learnedTable)
	if err := os.WriteFile(name, table, 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	return name, nil
}

// learnedHeader starts every YAML pack file that learn wrote before it
// wrote tables.
const learnedHeader = "# Learned by tailfix patterns learn"

func fileStartsWith(name, prefix string) bool {
	if st, err := os.Stat(name); err != nil || !st.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, len(prefix))
	_, err = f.Read(buf)
	return err == nil && string(buf) == prefix
}

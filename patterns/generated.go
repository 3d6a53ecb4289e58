package patterns

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

//go:generate go run ./internal/gen -args generated/flags-newest.jsonl -history generated/history.tsv -out generated

// The generated pack: one record per distinct message sglang raises or
// logs, and sglang's flag table. See generated/README.md.
var (
	//go:embed generated/sites.tsv
	generatedSites string
	//go:embed generated/flags.tsv
	generatedFlags string
	// The errors the libraries sglang runs on raise (generated/deps,
	// written by patterns/internal/deps).
	//go:embed generated/deps/*.tsv
	depTables embed.FS
)

// generatedOrigin names the generated records' file in errors and Origin.
const generatedOrigin = "patterns/generated/sites.tsv"

// Generated returns the records generated from sglang's source. They are
// parsed from a table written at generate time, with their prefilter
// literals worked out there, so that loading them costs little; their
// regexps are compiled only when a line proposes them.
func GeneratedRecords() ([]*Record, error) {
	return parseSites(generatedOrigin, generatedSites)
}

// Libraries returns the Python packages of the libraries sglang runs on
// whose errors the binary knows (generated/deps): their records are read
// only when a traceback passes through one (LibraryRecords).
func Libraries() []string { return libraries() }

var libraries = sync.OnceValue(func() []string {
	names, _ := fs.Glob(depTables, "generated/deps/*.tsv")
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimSuffix(path.Base(n), ".tsv")
	}
	return out
})

// libraryTables caches each library's records once read.
var libraryTables sync.Map // package → func() ([]*Record, error)

// LibraryRecords returns the generated records of a library's errors
// ("flashinfer"), read on first use.
func LibraryRecords(pkg string) ([]*Record, error) {
	f, _ := libraryTables.LoadOrStore(pkg, sync.OnceValues(func() ([]*Record, error) {
		name := "generated/deps/" + pkg + ".tsv"
		data, err := depTables.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("no table of %s's errors: %w", pkg, err)
		}
		return parseSites("patterns/"+name, string(data))
	}))
	return f.(func() ([]*Record, error))()
}

// LookupLibrary finds a library's record by id ("flashinfer-src/…"), or
// returns nil.
func LookupLibrary(id string) *Record {
	family, _, ok := strings.Cut(id, "/")
	pkg, lib := strings.CutSuffix(family, "-src")
	if !ok || !lib || pkg == "sglang" {
		return nil
	}
	recs, err := LibraryRecords(pkg)
	if err != nil {
		return nil
	}
	for _, r := range recs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// Library returns the Python package a generated record of a library
// sglang runs on is raised in ("flashinfer" for flashinfer-src/…), or ""
// for sglang's own.
func (r *Record) Library() string {
	if r.Gen == nil || r.Where == nil || r.Where.Repo == "" || r.Where.Repo == "sgl-project/sglang" {
		return ""
	}
	family, _, _ := strings.Cut(r.ID, "/")
	if family == "sglang-src" {
		return "" // a table learnt from a fork of sglang
	}
	return strings.TrimSuffix(family, "-src")
}

// ReadSites reads a table of generated records, as BuildTable writes it:
// the built-in one, or one `patterns learn` wrote. origin names it in
// errors and in each record's Origin. Each record's regexp is compiled only
// when a line first proposes it.
func ReadSites(origin string, table []byte) ([]*Record, error) {
	if !IsSitesTable(table) {
		return nil, fmt.Errorf("%s: not a table of generated records (its first line is not %q)", origin, SitesHeader)
	}
	return parseSites(origin, string(table))
}

// IsSitesTable reports whether data starts as a table of generated records.
func IsSitesTable(data []byte) bool {
	for bytes.HasPrefix(data, []byte(repoLine)) || bytes.HasPrefix(data, []byte(sourceLine)) {
		_, data, _ = bytes.Cut(data, []byte("\n"))
	}
	return bytes.HasPrefix(data, []byte(SitesHeader+"\n"))
}

// settingNote reports whether a warning site is one of ServerArgs's notes
// on a setting it chose or changed for the user ("Cuda graph is disabled
// because …", "DSA with TP mode is active …"): every start-up of that
// configuration prints it, healthy or not, so it is known at info level.
// A deprecated flag stays a warning: it asks for a change.
func settingNote(file, qualname, template string) bool {
	return strings.HasSuffix(file, "server_args.py") && strings.HasPrefix(qualname, "ServerArgs.") &&
		!strings.Contains(strings.ToLower(template), "deprecat")
}

func parseSites(origin, text string) ([]*Record, error) {
	n := strings.Count(text, "\n") + 1
	// One allocation each for the records and their parts: a table of
	// thousands of records is on every command's start-up path.
	recs := make([]*Record, 0, n)
	slab := make([]Record, 0, n)
	gens := make([]Generated, 0, n)
	sites := make([]Site, 0, n)
	var f [22]string
	repo := "sgl-project/sglang"
	var dir, strip string // the tree a learnt table was read from, and what its sites' paths have before it
	for lineNo := 1; text != ""; lineNo++ {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		if r, ok := strings.CutPrefix(line, repoLine); ok {
			repo = untsv(r)
			continue
		}
		if d, ok := strings.CutPrefix(line, sourceLine); ok {
			d, prefix, _ := strings.Cut(d, "\t")
			dir, strip = untsv(d), untsv(prefix)
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		if c := strings.Count(line, "\t") + 1; c != len(f) {
			return nil, &RecordError{File: origin, Line: lineNo, Err: fmt.Errorf("%d fields, want %d", c, len(f))}
		}
		for k := range f {
			f[k], line, _ = strings.Cut(line, "\t")
			f[k] = untsv(f[k])
		}
		sev, err := ParseSeverity(f[1])
		if err != nil {
			return nil, &RecordError{File: origin, Line: lineNo, ID: f[0], Field: "severity", Err: err}
		}
		if sev == SeverityWarning && settingNote(f[6], f[9], f[5]) {
			sev = SeverityInfo
		}
		srcLine, _ := strconv.Atoi(f[7])
		nsites, _ := strconv.Atoi(f[10])
		gens = append(gens, Generated{Kind: f[2], Template: f[5], Qualname: f[9], Sites: nsites, Guard: f[12], Commit: f[13],
			Needles:      strings.Split(f[15], "\x1f"),
			FirstRelease: f[18], LastRelease: f[19], RemovedIn: f[20], RemovedBy: f[21]})
		g := &gens[len(gens)-1]
		if dir != "" {
			g.Source = path.Join(dir, strings.TrimPrefix(f[6], strip))
		}
		if f[11] != "" {
			g.Flags = strings.Fields(f[11])
		}
		sample, miss := f[14], f[16]
		if f[3] != "" && (g.Kind == "raise" || g.Kind == "assert") {
			sample, miss = f[3]+": "+sample, f[3]+": "+miss
		}
		role := RoleCause
		switch {
		case endsInPlaceholder(f[5]), announcesException(f[5]):
			// "Scheduler hit an exception: {traceback}", "Failed: %s": the
			// real error is what fills the placeholder.
			role = RoleWrapper
		case childExited(g.Guard):
			// "Server process terminated unexpectedly.": raised because
			// another process ended; its own output says why.
			role = RoleSymptom
		}
		sites = append(sites, Site{Repo: repo, File: f[6], Line: srcLine, Function: f[8]})
		slab = append(slab, Record{
			ID:       f[0],
			Title:    f[17],
			Severity: sev,
			Role:     role,
			Match:    Match{Exception: f[3], Regex: anchorLeadingPlaceholder(f[4])},
			Where:    &sites[len(sites)-1],
			Tests:    Tests{Match: []string{sample}, NoMatch: []string{miss}},
			Origin:   origin,
			Line:     lineNo,
			Gen:      g,
		})
		recs = append(recs, &slab[len(slab)-1])
	}
	return recs, nil
}

// DiffusionFile reports whether a file of sglang's source belongs to its
// diffusion runtime (python/sglang/multimodal_gen, behind `sglang
// generate` and the diffusion server) rather than to the language-model
// server (python/sglang/srt). The two share many messages, copied from
// one to the other ("{} is not divisible by {}", "Rank {i} scheduler is
// dead…"); a line that both could have printed is the server's.
func DiffusionFile(file string) bool {
	return strings.HasPrefix(file, "python/sglang/multimodal_gen/")
}

// Diffusion reports whether a generated record's message is raised in
// sglang's diffusion runtime (see DiffusionFile).
func (r *Record) Diffusion() bool {
	return r.Gen != nil && r.Where != nil && DiffusionFile(r.Where.File)
}

// childExitedRE is a guard that holds when another process or thread has
// ended: `not p.is_alive()`, `proc.poll() is not None`, `returncode != 0`.
var childExitedRE = regexp.MustCompile(`^not \(?[\w.\[\]]+\.is_alive\(\)\)?$|^[\w.\[\]]+\.poll\(\) is not None$|^[\w.\[\]]*\b(?:returncode|exitcode) != 0$`)

// childExited reports whether a message is raised under a guard that
// says another process ended: it follows from that process's own failure.
func childExited(guard string) bool {
	// Most guards name neither: the test is on every generated record.
	if !strings.Contains(guard, "is_alive()") && !strings.Contains(guard, ".poll()") && !strings.Contains(guard, "code != 0") {
		return false
	}
	return childExitedRE.MatchString(guard)
}

// endsInPlaceholder reports whether a message template ends with a value
// filled in at run time: "{e}", "{e!r}.", "%s".
func endsInPlaceholder(tmpl string) bool {
	t := strings.TrimRight(tmpl, ".:;,!)'\" ")
	return strings.HasSuffix(t, "}") || strings.HasSuffix(t, "%s") || strings.HasSuffix(t, "%r")
}

// anchorLeadingPlaceholder anchors at the end of the line a message
// regexp that begins with its placeholder ("{field} is required"): its
// literal part alone is a common phrase, and another program's longer
// sentence that contains it ("x is required in rollout_data when …") is
// not this message.
func anchorLeadingPlaceholder(re string) string {
	if !strings.HasPrefix(re, ".*?") || strings.HasSuffix(re, "$") {
		return re
	}
	return re + `\s*$`
}

// announcesException reports whether a message only announces the
// traceback logged after it ("Exception in ControllerSingle:", "error in
// SGLang:", "Error raised in subprocess:"): its first line names where,
// and the exception that follows is what.
func announcesException(tmpl string) bool {
	t := strings.ToLower(strings.TrimSpace(tmpl))
	if !strings.HasSuffix(t, ":") {
		return false
	}
	for _, p := range []string{"exception in ", "error in ", "error raised in ", "exception raised in "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// untsv undoes the generator's escaping of a field.
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

// Flag is one of sglang's launch_server flags.
type Flag struct {
	// Names are the flag's spellings, the first the usual one.
	Names      []string
	Dest       string // the ServerArgs field it sets
	Type       string
	Default    string // as JSON, or "" for none
	Choices    []string
	Deprecated bool
	DefinedAt  string // file:line in sglang
	Help       string
	// Action is argparse's action: store, store_true, store_false, append…
	Action string
	// Nargs is argparse's nargs ("", "?", "*", "+", or a count).
	Nargs string
}

// TakesValue reports whether the flag is followed by a value on the
// command line.
func (f *Flag) TakesValue() bool {
	switch f.Action {
	case "store_true", "store_false", "store_const", "count", "help", "version":
		return false
	}
	for _, kind := range []string{"StoreTrue", "StoreFalse", "StoreConst", "BooleanOptional"} {
		if strings.Contains(f.Action, kind) {
			return false
		}
	}
	return f.Nargs != "0"
}

// FlagTable is sglang's flag table, by every spelling and by dest.
type FlagTable struct {
	Flags []*Flag
	// Release is the sglang release the table is of ("main 2026-08-23"),
	// or "" when the generator did not know it.
	Release string
	// History, for a table of an older release (FlagTable.At), says which
	// releases accept each flag.
	History *FlagHistory
	// Newer is the user's sglang version when it is newer than every
	// release the table knows (FlagTable.ForNewer): what the table does not
	// know it may accept.
	Newer string
	// Source is the directory the table was read from (LearnFlagTable):
	// the user's own sglang, so a flag it lacks is one the server lacks.
	Source string
	byName map[string]*Flag
}

// NewFlagTable makes a flag table of the flags of one release.
func NewFlagTable(flags []*Flag, release string) *FlagTable {
	t := &FlagTable{Release: release, byName: map[string]*Flag{}}
	for _, fl := range flags {
		t.add(fl)
	}
	return t
}

func (t *FlagTable) add(fl *Flag) {
	t.Flags = append(t.Flags, fl)
	for _, name := range fl.Names {
		t.byName[name] = fl
	}
	if _, ok := t.byName[fl.Dest]; !ok {
		t.byName[fl.Dest] = fl
	}
}

// ForNewer returns the table as the one to judge a command of sglang
// version v by, v newer than every release the table knows.
func (t *FlagTable) ForNewer(v string) *FlagTable {
	c := *t
	c.Newer = v
	return &c
}

// Lookup returns the flag with a name ("--tp-size") or dest ("tp_size").
func (t *FlagTable) Lookup(name string) *Flag { return t.byName[name] }

var flagTable = sync.OnceValues(func() (*FlagTable, error) {
	t := &FlagTable{byName: map[string]*Flag{}}
	for n, line := range strings.Split(generatedFlags, "\n") {
		if rel, ok := strings.CutPrefix(line, "# release\t"); ok {
			t.Release = rel
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 10 {
			return nil, fmt.Errorf("patterns/generated/flags.tsv:%d: %d fields, want 10", n+1, len(f))
		}
		for i := range f {
			f[i] = untsv(f[i])
		}
		fl := &Flag{Names: strings.Fields(f[0]), Dest: f[1], Type: f[2], Default: f[3],
			Deprecated: f[5] == "true", DefinedAt: f[6], Help: f[7], Action: f[8], Nargs: f[9]}
		if f[4] != "" {
			fl.Choices = strings.Split(f[4], "|")
		}
		t.Flags = append(t.Flags, fl)
		for _, name := range fl.Names {
			t.byName[name] = fl
		}
		t.byName[fl.Dest] = fl
	}
	return t, nil
})

// Flags returns sglang's launch_server flag table, embedded at generate
// time.
func Flags() (*FlagTable, error) { return flagTable() }

package patterns

import (
	"bytes"
	_ "embed"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/tailfix/tailfix/internal/regular"
	"regexp/syntax"
)

// curatedGob is the hand-written records (the YAML files beside this
// package, one directory per family), parsed and validated at generate
// time: decoding it takes a few milliseconds where parsing the YAML takes
// tens, on the start-up path of every command.
//
//go:embed generated/curated.gob
var curatedGob []byte

// SourcePattern names the hand-written pattern files inside the package's
// directory.
const SourcePattern = "*/*.yaml"

// Pack is a validated set of records with unique ids.
type Pack struct {
	Records []*Record
	byID    map[string]*Record
}

// RecordError is returned when a record is malformed. It names the file, the
// line where the record starts (0 when unknown), the record id (empty when the
// record has none) and the field at fault.
type RecordError struct {
	File  string
	Line  int
	ID    string
	Field string
	Err   error
}

func (e *RecordError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.ID != "" {
		fmt.Fprintf(&b, ": record %q", e.ID)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": %s", e.Field)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *RecordError) Unwrap() error { return e.Err }

// Builtin returns the pack embedded in the binary: the hand-written
// records and those generated from sglang's source.
func Builtin() (*Pack, error) {
	// The two halves load at the same time: start-up is on the path of
	// every command.
	var gen []*Record
	var genErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		gen, genErr = GeneratedRecords()
	}()
	hand, err := Curated()
	<-done
	if err != nil {
		return nil, err
	}
	if genErr != nil {
		return nil, genErr
	}
	return index(append(hand.Records, gen...), true)
}

// Curated returns only the hand-written records embedded in the binary.
func Curated() (*Pack, error) {
	var recs []*Record
	if err := gob.NewDecoder(bytes.NewReader(curatedGob)).Decode(&recs); err != nil {
		return nil, fmt.Errorf("patterns/generated/curated.gob: %w (run go generate ./patterns)", err)
	}
	// Validated when the file was written; the matcher compiles each
	// expression once.
	return index(recs, false)
}

// LoadSources reads the hand-written records from the package's own
// directory (fsys), as go generate does to write the embedded copy.
func LoadSources(fsys fs.FS) (*Pack, error) {
	names, err := fs.Glob(fsys, SourcePattern)
	if err != nil {
		return nil, err
	}
	return loadFiles(fsys, "patterns", names, false)
}

// EncodeCurated writes the hand-written records as Curated reads them.
func EncodeCurated(w io.Writer, p *Pack) error {
	return gob.NewEncoder(w).Encode(p.Records)
}

// LoadDir loads every .yaml, .yml and .json file under dir, and every
// .tsv file that is a table of generated records (patterns learn's).
func LoadDir(dir string) (*Pack, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	return Load(os.DirFS(dir), dir)
}

// Load reads every pattern file in fsys. Names in errors and in each record's
// Origin are prefixed with prefix.
func Load(fsys fs.FS, prefix string) (*Pack, error) {
	var names []string
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := path.Ext(name); !d.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json" || ext == ".tsv") {
			names = append(names, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return loadFiles(fsys, prefix, names, true)
}

// loadFiles reads the named pattern files of fsys; user says they are a
// user's pack rather than the package's own sources.
func loadFiles(fsys fs.FS, prefix string, names []string, user bool) (*Pack, error) {
	// Files are parsed and checked in parallel, and their records kept
	// in file order.
	parsed := make([][]*Record, len(names))
	errs := make([]error, len(names))
	// As many at a time as there are processors: a file's text is held
	// only while it is parsed.
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, name := range names {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			parsed[i], errs[i] = parseFile(fsys, name, path.Join(prefix, name), user)
		}()
	}
	wg.Wait()
	var recs []*Record
	for i := range names {
		if errs[i] != nil {
			return nil, errs[i]
		}
		recs = append(recs, parsed[i]...)
	}
	// related: and follows: may name records of the pack these join (a
	// user's record pointing at a built-in one): they are checked there.
	return index(recs, false)
}

// maxPackFileBytes bounds one pattern file: a pack of thousands of
// records is a few megabytes.
const maxPackFileBytes = 64 << 20

// parseFile reads one pattern file, YAML or seed JSON, and checks its
// records. A named pipe, a device or a file over maxPackFileBytes is
// refused with an error naming it, never read.
func parseFile(fsys fs.FS, name, display string, user bool) ([]*Record, error) {
	ext := path.Ext(name)
	if user && ext != ".json" && ext != ".tsv" {
		return parseUserYAML(fsys, name, display)
	}
	data, err := regular.ReadFS(fsys, name, maxPackFileBytes)
	if err != nil {
		return nil, err
	}
	var recs []*Record
	switch ext {
	case ".json":
		recs, err = ParseSeed(display, data)
	case ".tsv":
		// A table of generated records, such as patterns learn writes:
		// read as the built-in one is, each regexp compiled when first
		// needed. Any other table is not a pack file.
		if !IsSitesTable(data) {
			return nil, nil
		}
		recs, err = ReadSites(display, data)
	default:
		recs, err = ParseYAML(display, data)
	}
	if err != nil {
		return nil, err
	}
	return recs, check(recs, user)
}

// parseUserYAML reads a YAML file of a user's pack and checks its records.
// In the usual layout they are then kept slim (see slim): what is left of
// them is read again from the file when needed.
func parseUserYAML(fsys fs.FS, name, display string) ([]*Record, error) {
	text, err := regular.ReadFSText(fsys, name, maxPackFileBytes)
	if err != nil {
		return nil, err
	}
	type span struct {
		r           *Record
		off, end, n int
	}
	var spans []span
	recs, ok := []*Record(nil), false
	if printable(text) {
		recs, ok = parseFast(display, text, 1, func(r *Record, off, end, n int) {
			spans = append(spans, span{r, off, end, n})
		})
	}
	if !ok {
		spans = nil
		if recs, err = ParseYAML(display, []byte(text)); err != nil {
			return nil, err
		}
	}
	if err := check(recs, true); err != nil {
		return nil, err
	}
	file := &packFile{fsys, name, display}
	for _, s := range spans {
		slim(s.r, file, text, s.off, s.end, s.n)
	}
	return recs, nil
}

// check validates the records read from a file.
func check(recs []*Record, user bool) error {
	for _, r := range recs {
		r.user = user
		if r.Gen != nil && r.Where != nil && path.Ext(r.Origin) == ".tsv" {
			continue // made by the builder, which checks each record it writes
		}
		if err := r.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// NewPack validates records and indexes them by id. The pack is whole:
// every id its records name is one of them.
func NewPack(recs []*Record) (*Pack, error) {
	for _, r := range recs {
		if err := r.Validate(); err != nil {
			return nil, err
		}
	}
	return index(recs, true)
}

// index checks that ids are unique and, when whole, that the ids records
// name (related, follows) exist; it indexes the records by id.
func index(recs []*Record, whole bool) (*Pack, error) {
	p := &Pack{Records: recs, byID: make(map[string]*Record, len(recs))}
	for _, r := range recs {
		if prev, dup := p.byID[r.ID]; dup {
			return nil, &RecordError{File: r.Origin, Line: r.Line, ID: r.ID, Field: "id",
				Err: fmt.Errorf("duplicate id, first defined in %s", prev.place())}
		}
		p.byID[r.ID] = r
	}
	if !whole {
		return p, nil
	}
	for _, r := range recs {
		for _, id := range r.Related {
			if p.byID[id] == nil {
				return nil, &RecordError{File: r.Origin, Line: r.Line, ID: r.ID, Field: "related",
					Err: fmt.Errorf("unknown id %q", id)}
			}
		}
		for _, id := range r.Follows {
			if p.byID[id] == nil || id == r.ID {
				return nil, &RecordError{File: r.Origin, Line: r.Line, ID: r.ID, Field: "follows",
					Err: fmt.Errorf("unknown id %q", id)}
			}
		}
	}
	return p, nil
}

// place is where the record is written: its file, and line when known.
func (r *Record) place() string {
	if r.Line > 0 {
		return fmt.Sprintf("%s:%d", r.Origin, r.Line)
	}
	return r.Origin
}

// Lookup returns the record with the given id, or nil.
// A slim record is loaded first (see Record.Load).
func (p *Pack) Lookup(id string) *Record {
	r := p.byID[id]
	if r != nil {
		_ = r.Load() // a failure is in the record's cause
	}
	return r
}

// With returns a pack holding p's records and extra's; a record of extra
// replaces the one of p with the same id.
func (p *Pack) With(extra *Pack) (*Pack, error) {
	// A generated record of extra (a learned pack of a newer release)
	// replaces p's generated record of the same message.
	newer := map[string]bool{}
	for _, r := range extra.Records {
		if r.Gen != nil {
			newer[r.Match.Regex] = true
		}
	}
	recs := make([]*Record, 0, len(p.Records)+len(extra.Records))
	for _, r := range p.Records {
		if extra.byID[r.ID] == nil && !(r.Gen != nil && newer[r.Match.Regex]) {
			recs = append(recs, r)
		}
	}
	return index(append(recs, extra.Records...), true)
}

var goTypeRE = regexp.MustCompile(` in type [\w.*\[\]]+`)

var idRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)+$`)

// escapedNewline reports whether a regex can only match across a newline:
// it asks for one literally (`\n`), which no single line holds. A class
// that excludes it (`[^\n]`) is fine.
func escapedNewline(re string) bool {
	if !strings.Contains(re, `\n`) {
		return false
	}
	t, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return false // reported as a bad regex
	}
	var walk func(*syntax.Regexp) bool
	walk = func(n *syntax.Regexp) bool {
		switch n.Op {
		case syntax.OpLiteral:
			return slices.Contains(n.Rune, '\n')
		case syntax.OpCharClass:
			return len(n.Rune) == 2 && n.Rune[0] == '\n' && n.Rune[1] == '\n'
		case syntax.OpAlternate:
			// Only when every branch needs one.
			for _, s := range n.Sub {
				if !walk(s) {
					return false
				}
			}
			return len(n.Sub) > 0
		case syntax.OpConcat, syntax.OpCapture, syntax.OpPlus, syntax.OpRepeat:
			if n.Op == syntax.OpRepeat && n.Min == 0 {
				return false
			}
			for _, s := range n.Sub {
				if walk(s) {
					return true
				}
			}
		}
		return false
	}
	return walk(t)
}

// MaxRecordText bounds the text of one record: its title, match, cause,
// fix, related ids, tags and test lines together. Hand-written records hold
// a few KiB.
const MaxRecordText = 256 << 10

// textSize is the bytes of text a record holds.
func (r *Record) textSize() int {
	n := len(r.ID) + len(r.Title) + len(r.Cause) + len(r.Match.Exception) + len(r.Match.Message) + len(r.Match.Regex) + len(r.Match.Frame) +
		len(r.Fix.Before) + len(r.Fix.After)
	if o := r.Fix.Otherwise; o != nil {
		n += len(o.Before) + len(o.After)
	}
	for _, list := range [][]string{r.Fix.Steps, r.Related, r.Follows, r.Tags, r.Tests.Match, r.Tests.NoMatch} {
		for _, x := range list {
			n += len(x)
		}
	}
	return n
}

// Validate checks one record on its own; NewPack also checks ids across records.
func (r *Record) Validate() error {
	fail := func(field string, err error) error {
		return &RecordError{File: r.Origin, Line: r.Line, ID: r.ID, Field: field, Err: err}
	}
	switch {
	case r.ID == "":
		return fail("id", errors.New("missing"))
	case !idRE.MatchString(r.ID):
		return fail("id", fmt.Errorf("%q is not family/name in lowercase letters, digits, '.', '_' or '-'", r.ID))
	case strings.TrimSpace(r.Title) == "":
		return fail("title", errors.New("missing"))
	case r.Severity == 0:
		return fail("severity", fmt.Errorf("missing (valid: %s)", strings.Join(Severities(), ", ")))
	case r.Match.Frame != "" && (r.Match.Exception == "" || r.Match.Message != ""):
		return fail("match.frame", errors.New("needs the exception class, and a regex rather than a message"))
	case r.Match.Message == "" && r.Match.Regex == "" && r.Match.Frame == "":
		return fail("match", errors.New("needs message, regex or frame"))
	case r.Match.Message != "" && r.Match.Regex != "":
		return fail("match", errors.New("has both message and regex; keep one"))
	case !validUTF8(r.Match.Message, r.Match.Regex):
		return fail("match", errors.New("not valid UTF-8"))
	case strings.ContainsAny(r.Match.Message+r.Match.Regex, "\n"):
		return fail("match", errors.New("matches one line: no newline allowed"))
	case r.Match.Next != "" && r.Match.Regex == "" && r.Match.Message == "":
		return fail("match.next", errors.New("goes on with a line matched by message or regex"))
	case escapedNewline(r.Match.Regex):
		return fail("match.regex", errors.New("matches one line: a \\n in the regex can never match"))
	case len(r.Tests.Match) == 0:
		return fail("tests.match", errors.New("needs at least one line the record must match"))
	case r.textSize() > MaxRecordText:
		// YAML aliases can repeat one large string many times over.
		return fail("", fmt.Errorf("holds more than %d KiB of text (%d KiB, aliases counted each time they are used)", MaxRecordText>>10, r.textSize()>>10))
	}
	if r.Match.Message != "" && len(r.Match.Message) < MinNeedle {
		return fail("match.message", fmt.Errorf("%q is shorter than %d bytes", r.Match.Message, MinNeedle))
	}
	// Each expression is parsed, which is all that can fail in compiling
	// it; the matcher compiles it when a line first proposes the record.
	var trees [3]*syntax.Regexp
	for i, e := range []struct{ field, expr string }{
		{"match.frame", r.Match.Frame}, {"match.next", r.Match.Next}, {"match.regex", r.Match.Regex},
	} {
		if e.expr == "" {
			continue
		}
		t, err := syntax.Parse(e.expr, syntax.Perl)
		if err != nil {
			return fail(e.field, err)
		}
		trees[i] = t
	}
	c := &checkedMatch{of: r.Match}
	if r.Match.Message == "" {
		field, tree := "match.regex", trees[2]
		if r.Match.Frame != "" {
			field, tree = "match.frame", trees[0]
		}
		var err error
		if c.needles, err = needlesOf(tree); err != nil {
			return fail(field, err)
		}
	}
	r.needles = c
	return nil
}

// ParseYAML parses YAML records: a list of them, or several such lists
// in documents separated by `---`. name is used in errors and Origin; each
// record keeps the line it starts on.
func ParseYAML(name string, data []byte) ([]*Record, error) {
	if recs, ok := parseYAMLFast(name, data); ok {
		return recs, nil
	}
	return parseYAMLStd(name, data)
}

// parseYAMLStd is ParseYAML through the YAML parser.
func parseYAMLStd(name string, data []byte) ([]*Record, error) {
	// The whole file strictly in one pass; only when that fails is each
	// record decoded on its own, to name the record and field at fault.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var fast []*Record
	for {
		var doc []*Record
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || slices.Contains(doc, nil) {
			return parseYAMLSlowly(name, data)
		}
		fast = append(fast, doc...)
	}
	lines := itemLines(data)
	if len(lines) != len(fast) {
		nodes, err := yamlItems(name, data)
		if err != nil {
			return nil, err
		}
		lines = lines[:0]
		for _, n := range nodes {
			lines = append(lines, n.Line)
		}
	}
	for i, r := range fast {
		r.Origin, r.Line = name, lines[i]
		fillNeedles(r)
	}
	return fast, nil
}

// itemLines finds, without parsing, the lines where the records of a pack
// written as block lists at the margin start (`- id: …`). In any other
// layout the count disagrees with the records decoded, and the caller
// asks the YAML parser instead.
func itemLines(data []byte) []int {
	var lines []int
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) > 0 && line[0] == '-' && (len(line) == 1 || line[1] == ' ' || line[1] == '\r') {
			lines = append(lines, n)
		}
	}
	return lines
}

// yamlItems parses every document of data as a list and returns its
// items, each with the line it starts on.
func yamlItems(name string, data []byte) ([]*yaml.Node, error) {
	var items []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return items, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		list := &doc
		if list.Kind == yaml.DocumentNode && len(list.Content) == 1 {
			list = list.Content[0]
		}
		switch {
		case list.Kind == yaml.SequenceNode:
			items = append(items, list.Content...)
		case list.Kind == yaml.ScalarNode && list.Tag == "!!null":
			// An empty document.
		default:
			return nil, &RecordError{File: name, Line: list.Line, Err: errors.New("want a list of records")}
		}
	}
}

// parseYAMLSlowly decodes each record on its own, to name the record,
// line and field at fault.
func parseYAMLSlowly(name string, data []byte) ([]*Record, error) {
	nodes, err := yamlItems(name, data)
	if err != nil {
		return nil, err
	}
	recs := make([]*Record, 0, len(nodes))
	for _, n := range nodes {
		id := nodeField(n, "id")
		// Decode each record strictly, so a misspelt field is an error
		// that names the record, not a silently missing remedy.
		raw, err := yaml.Marshal(n)
		if err != nil {
			return nil, &RecordError{File: name, Line: n.Line, ID: id, Err: err}
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		r := new(Record)
		if err := dec.Decode(r); err != nil {
			return nil, &RecordError{File: name, Line: n.Line, ID: id, Err: cleanYAMLError(err)}
		}
		r.Origin, r.Line = name, n.Line
		fillNeedles(r)
		recs = append(recs, r)
	}
	return recs, nil
}

// fillNeedles works out the prefilter literals of a record a pack file
// says was generated from source (a learned pack), as the generator does
// for the built-in ones.
func fillNeedles(r *Record) {
	if r.Gen != nil && len(r.Gen.Needles) == 0 {
		r.Gen.Needles, _ = r.Needles()
	}
}

func nodeField(n *yaml.Node, key string) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1].Value
		}
	}
	return ""
}

// cleanYAMLError drops yaml's line numbers, which count from the record's
// start once it is decoded on its own, and its Go type names.
func cleanYAMLError(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		if _, rest, ok := strings.Cut(m, ": "); ok && strings.HasPrefix(m, "line ") {
			m = rest
		}
		msgs[i] = goTypeRE.ReplaceAllString(m, "")
	}
	return errors.New(strings.Join(msgs, "; "))
}

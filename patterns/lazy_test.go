package patterns

import (
	"io"
	"io/fs"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
)

// slimPacks are pack files in the usual layout, in the shapes users write:
// folded and literal causes, fixes with and without a command line, flow
// and block maps, comments between records.
var slimPacks = map[string]string{
	"acme/a.yaml": `# The acme plugin's errors.

- id: acme/frobnicator-jammed
  title: 'The frobnicator jammed: it holds ''{count}'' widgets'
  severity: error
  match:
    exception: RuntimeError
    regex: 'frobnicator jammed with (?P<count>\d+) widgets'
  where: {repo: acme/serving, file: 'acme/frob.py', function: frob, line: 42}
  cause: >-
    The frobnicator takes at most eight widgets
    at a time; more jam it.
  fix:
    steps:
      - 'Lower --widgets.'
      - Restart the server.
    before: python -m sglang.launch_server --model-path m --widgets 16
    after: python -m sglang.launch_server --model-path m --widgets 8
  tags: [acme, widgets]
  tests:
    match:
      - 'RuntimeError: frobnicator jammed with 16 widgets'
    no_match:
      - 'frobnicator idle'

# A warning of the same plugin.
- id: acme/gadget-slow
  title: The gadget is slow
  severity: warning
  role: symptom
  match: {message: "the gadget took longer than expected"}
  cause: |
    A gadget waits on the disk.
    It is harmless.
  fix: {steps: [Wait]}
  related: [acme/frobnicator-jammed]
  tests: {match: ["the gadget took longer than expected (3 s)"]}
`,
	"acme/b.yml": `- id: acme/widget-lost
  title: A widget was lost
  severity: fatal
  match: {regex: 'widget \d+ lost'}
  cause: "A widget went missing.\nCount them."
  fix:
    steps: [Count the widgets]
    otherwise: {before: --widgets 2, after: --widgets 1}
  tests: {match: [widget 3 lost]}
`,
}

// loadSlim loads slimPacks as --patterns DIR does, from fsys.
func loadSlim(t *testing.T, fsys fs.FS) *Pack {
	t.Helper()
	p, err := Load(fsys, "packs")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func slimFS() fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, text := range slimPacks {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	return fsys
}

// A user's record in the usual layout keeps only what matching needs
// until it is loaded, and is then the record the YAML parser reads.
func TestSlimRecordLoadsAsParsed(t *testing.T) {
	p := loadSlim(t, slimFS())
	if len(p.Records) != 3 {
		t.Fatalf("%d records, want 3", len(p.Records))
	}
	for _, r := range p.Records {
		if !r.Slim() {
			t.Fatalf("%s is not slim", r.ID)
		}
		if r.Title != "" || r.Cause != "" || r.Where != nil || len(r.Fix.Steps) > 0 || len(r.Tests.Match) > 0 {
			t.Errorf("%s keeps its text before Load: %+v", r.ID, r)
		}
		if r.Match.Regex == "" && r.Match.Message == "" || r.Severity == 0 || r.Match.Message == "" && len(r.needles.needles) == 0 {
			t.Errorf("%s lost what matching needs: %+v", r.ID, r)
		}
	}
	for name, text := range slimPacks {
		want, err := parseYAMLStd("packs/"+name, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			r := p.byID[w.ID]
			if err := r.Load(); err != nil {
				t.Fatal(err)
			}
			got := *r
			got.rest, got.user, got.needles = nil, false, nil
			if !reflect.DeepEqual(got, *w) {
				t.Errorf("%s loaded:\n %+v\nwant\n %+v", w.ID, got, *w)
			}
		}
	}
}

// Lookup loads the record it returns.
func TestLookupLoads(t *testing.T) {
	p := loadSlim(t, slimFS())
	if r := p.Lookup("acme/widget-lost"); r.Title != "A widget was lost" || r.Fix.Otherwise == nil {
		t.Fatalf("Lookup gave %+v", r)
	}
}

// A pack file changed after it was loaded is not read as the record:
// Load says so, naming the file and line, and the record's title is its
// id.
func TestSlimRecordOfChangedFile(t *testing.T) {
	fsys := slimFS()
	p := loadSlim(t, fsys)
	// The same length and the same id: only the cause differs.
	fsys["acme/a.yaml"].Data = []byte(strings.Replace(slimPacks["acme/a.yaml"], "eight widgets", "seven widgets", 1))
	r := p.byID["acme/frobnicator-jammed"]
	err := r.Load()
	if err == nil || !strings.Contains(err.Error(), "packs/acme/a.yaml changed since the pack was loaded") || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("Load: %v", err)
	}
	if r.Title != r.ID || !strings.Contains(r.Cause, "could not read this record again") {
		t.Fatalf("record of a changed file: %q, %q", r.Title, r.Cause)
	}
	// The file's other records are as they were.
	if g := p.byID["acme/gadget-slow"]; g.Load() != nil || g.Title != "The gadget is slow" {
		t.Fatalf("gadget: %q", g.Title)
	}
}

// countingFS counts the files of it that are read: opened and read from,
// whole or in part (an open to learn a file's size is not counted).
type countingFS struct {
	fs.FS
	reads atomic.Int32
}

func (c *countingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if _, dir := f.(fs.ReadDirFile); err != nil || dir {
		return f, err
	}
	return &countedFile{File: f, fs: c}, nil
}

type countedFile struct {
	fs.File
	fs   *countingFS
	read bool
}

func (f *countedFile) count() {
	if !f.read {
		f.read = true
		f.fs.reads.Add(1)
	}
}

func (f *countedFile) Read(b []byte) (int, error) {
	f.count()
	return f.File.Read(b)
}

func (f *countedFile) ReadAt(b []byte, off int64) (int, error) {
	f.count()
	return f.File.(io.ReaderAt).ReadAt(b, off)
}

// LoadRecords reads each file once, and Load one record's bytes.
func TestLoadRecordsReadsEachFileOnce(t *testing.T) {
	fsys := &countingFS{FS: slimFS()}
	p := loadSlim(t, fsys)
	fsys.reads.Store(0)
	if err := p.LoadAll(); err != nil {
		t.Fatal(err)
	}
	if n := fsys.reads.Load(); n != 2 {
		t.Fatalf("%d files read for 2", n)
	}
	for _, r := range p.Records {
		if r.Title == "" || len(r.Tests.Match) == 0 {
			t.Fatalf("%s not loaded", r.ID)
		}
	}
	if err := p.LoadAll(); err != nil || fsys.reads.Load() != 2 {
		t.Fatalf("a second LoadAll read again (%d reads): %v", fsys.reads.Load(), err)
	}
}

// Records are loaded from many goroutines at once, each once.
func TestSlimLoadConcurrent(t *testing.T) {
	fsys := &countingFS{FS: slimFS()}
	p := loadSlim(t, fsys)
	fsys.reads.Store(0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, r := range p.Records {
				if err := r.Load(); err != nil || r.Title == "" {
					t.Errorf("%s: %v", r.ID, err)
				}
			}
		})
	}
	wg.Wait()
	if n := fsys.reads.Load(); n != 3 {
		t.Fatalf("%d reads for 3 records", n)
	}
}

// What is not in the usual layout, a built-in record and a seed record
// are whole from the start.
func TestNotSlim(t *testing.T) {
	fsys := fstest.MapFS{
		"docs.yaml": {Data: []byte("- id: acme/one\n  title: one\n  severity: error\n  match: {message: one thing failed}\n  tests: {match: [one thing failed]}\n---\n- id: acme/two\n  title: two\n  severity: error\n  match: {message: two things failed}\n  tests: {match: [two things failed]}\n")},
	}
	p := loadSlim(t, fsys)
	for _, r := range p.Records {
		if r.Slim() || r.Title == "" {
			t.Errorf("%s of a file the YAML parser reads is slim", r.ID)
		}
	}
	b, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range b.Records {
		if r.Slim() {
			t.Fatalf("built-in %s is slim", r.ID)
		}
	}
}

package patterns_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/internal/packgen"
	"github.com/tailfix/tailfix/patterns"
)

// agree fails t unless the fast reading of data, when it has one, is the
// YAML parser's; it reports whether there was one.
func agree(t testing.TB, name string, data []byte) bool {
	t.Helper()
	fast, ok := patterns.ParseYAMLFast(name, data)
	if !ok {
		return false
	}
	std, err := patterns.ParseYAMLStd(name, data)
	if err != nil {
		t.Fatalf("%s: read fast, but the YAML parser says: %v\n%s", name, err, data)
	}
	if !reflect.DeepEqual(fast, std) {
		for i := range min(len(fast), len(std)) {
			if !reflect.DeepEqual(fast[i], std[i]) {
				t.Fatalf("%s: record %d read fast:\n%+v\nby the YAML parser:\n%+v", name, i, *fast[i], *std[i])
			}
		}
		t.Fatalf("%s: %d records read fast, %d by the YAML parser", name, len(fast), len(std))
	}
	return true
}

// The hand-written packs are read fast, as the YAML parser reads them.
func TestParseYAMLFastAgreesOnBuiltin(t *testing.T) {
	names, err := filepath.Glob(patterns.SourcePattern)
	if err != nil || len(names) == 0 {
		t.Fatalf("no pattern files: %v", err)
	}
	fast := 0
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if agree(t, name, data) {
			fast++
		}
	}
	if fast != len(names) {
		t.Errorf("%d of %d pattern files read fast, want all", fast, len(names))
	}
}

// A pack generated as users' are (scripts/genpack) reads fast, each file,
// as the YAML parser reads it.
func TestParseYAMLFastAgreesOnGeneratedPack(t *testing.T) {
	dir := t.TempDir()
	if err := packgen.Write(dir, 3000, 1000, 7); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "ext", "*.yaml"))
	if len(names) != 3 {
		t.Fatalf("%d files written, want 3", len(names))
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !agree(t, name, data) {
			t.Errorf("%s: not read fast", name)
		}
	}
}

// yamlCases are layouts the fast reading takes (fast) or leaves to the
// YAML parser; either way the records are the same.
var yamlCases = []struct {
	name string
	text string
	fast bool
}{
	{"record", "- id: a/b\n  title: T\n  severity: error\n  match: {exception: E, regex: 'x+y'}\n  tests:\n    match: [\"E: xy\"]\n", true},
	{"comments and blank lines", "# head\n\n- id: a/b # the id\n  # a comment\n  title: 'T' # quoted\n\n  tags: [a, b]  # two\n", true},
	{"folded", "- id: a/b\n  cause: >-\n    one\n    two\n\n    three\n  title: T\n", true},
	{"folded clip", "- id: a/b\n  cause: >\n    one\n    two\n", true},
	{"literal", "- id: a/b\n  cause: |\n    one\n    two\n\n    three\n", true},
	{"literal strip", "- id: a/b\n  cause: |-\n    one\n", true},
	{"more indented folded", "- id: a/b\n  cause: >-\n    one\n      two\n", false},
	{"keep", "- id: a/b\n  cause: |+\n    one\n\n", false},
	{"block list at key indent", "- id: a/b\n  tags:\n  - a\n  - b\n", true},
	{"block list deeper", "- id: a/b\n  fix:\n    steps:\n      - 'one'\n      - \"two \\\"2\\\" \\u00e9\\x41\"\n    before: --x 1\n", true},
	{"quote doubled", "- id: a/b\n  title: 'it''s'\n", true},
	{"double-quoted escapes", "- id: a/b\n  title: \"a\\tb\\\\c\\'d\\e[0m\"\n", true},
	{"escaped slash", "- id: a/b\n  title: \"a\\/b\"\n", false},
	{"unknown escape", "- id: a/b\n  title: \"a\\qb\"\n", false},
	{"multi-line plain", "- id: a/b\n  title: one\n    two\n", false},
	{"multi-line quoted", "- id: a/b\n  title: 'one\n    two'\n", false},
	{"null", "- id: a/b\n  title: ~\n", false},
	{"empty value", "- id: a/b\n  title:\n  cause: c\n", false},
	{"int", "- id: a/b\n  where: {repo: r, file: f.py, line: 12, function: g}\n", true},
	{"int quoted", "- id: a/b\n  where: {repo: r, line: '12'}\n", false},
	{"plain that looks typed", "- id: a/b\n  title: true\n  cause: 1e3\n  tags: [yes, 0x1F, 2026-01-01]\n", true},
	{"empty flow list", "- id: a/b\n  tags: []\n", true},
	{"unknown key", "- id: a/b\n  titel: T\n", false},
	{"duplicate key", "- id: a/b\n  title: T\n  title: U\n", false},
	{"anchor", "- id: a/b\n  title: &t T\n  cause: *t\n", false},
	{"documents", "- id: a/b\n---\n- id: c/d\n", false},
	{"two records", "- id: a/b\n  severity: warning\n  role: symptom\n\n- id: c/d\n  severity: fatal\n", true},
	{"bad severity", "- id: a/b\n  severity: bad\n", false},
	{"generated", "- id: a/b\n  match: {regex: 'Failed to load \\d+ shards'}\n  generated:\n    kind: raise\n    template: 'Failed to load {n} shards'\n    sites: 2\n    flags: [--tp-size]\n", true},
	{"generated plain", "- id: a/b\n  match: {regex: 'Failed to load \\d+ shards'}\n  generated:\n    kind: raise\n    template: 'Failed to load {n} shards'\n    sites: 2\n    flags: [tp_size]\n", true},
	{"otherwise", "- id: a/b\n  fix:\n    otherwise: {before: '--a 1', after: '--a 2'}\n", true},
	{"not a list", "id: a/b\n", false},
	{"empty", "# nothing\n", true},
	{"colon in plain", "- id: a/b\n  title: a: b\n", false},
	{"comment glued", "- id: a/b\n  title: 'T'#x\n", false},
	{"trailing comma", "- id: a/b\n  tags: [a, b, ]\n", false},
	{"list of maps", "- id: a/b\n  tags:\n    - a: b\n", false},
	{"tab", "- id: a/b\n  title:\tT\n", false},
	{"CRLF", "- id: a/b\r\n  title: T\r\n", false},
	{"nested item", "- - id: a/b\n", false},
	{"flow map of a list", "- id: a/b\n  where: {repo: [a]}\n", false},
	{"flow map of lists", "- id: a/b\n  tests: {match: [a, 'b: c'], no_match: []}\n  fix: {steps: [x], before: --a 1}\n", true},
	{"flow list unclosed in a map", "- id: a/b\n  tests: {match: [a, b}\n", false},
}

func TestParseYAMLFast(t *testing.T) {
	for _, c := range yamlCases {
		t.Run(c.name, func(t *testing.T) {
			if got := agree(t, "x.yaml", []byte(c.text)); got != c.fast {
				t.Errorf("read fast: %v, want %v", got, c.fast)
			}
		})
	}
}

// FuzzParseYAMLFast: whatever the bytes, a file the fast reading takes is
// one the YAML parser reads, to the same records.
func FuzzParseYAMLFast(f *testing.F) {
	for _, c := range yamlCases {
		f.Add(c.text)
	}
	if data, err := os.ReadFile("sglang/pd-disagg.yaml"); err == nil {
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, text string) {
		if strings.Count(text, "\n") > 2000 {
			return
		}
		agree(t, "x.yaml", []byte(text))
	})
}

package patterns

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

const goodRecord = `
- id: t/one
  title: one
  severity: error
  match: {message: "something broke"}
  tests: {match: ["something broke here"]}
`

func TestParseYAMLErrorsNameFileRecordAndField(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // substrings of the error
	}{
		{"unknown field", "- id: t/x\n  title: x\n  severity: error\n  match: {message: abcd}\n  tests: {match: [abcd]}\n  cuase: typo\n",
			[]string{"p.yaml:1", `record "t/x"`, "field cuase not found"}},
		{"unknown nested field", "- id: t/x\n  title: x\n  severity: error\n  match: {mesage: abcd}\n  tests: {match: [abcd]}\n",
			[]string{`record "t/x"`, "field mesage not found"}},
		{"bad severity", "- id: t/x\n  title: x\n  severity: bad\n  match: {message: abcd}\n  tests: {match: [abcd]}\n",
			[]string{`record "t/x"`, `invalid severity "bad"`, "info, warning, error, fatal"}},
		{"bad role", "- id: t/x\n  title: x\n  severity: error\n  role: cuase\n  match: {message: abcd}\n  tests: {match: [abcd]}\n",
			[]string{`record "t/x"`, `invalid role "cuase"`}},
		{"not a list", "id: t/x\n", []string{"p.yaml:1", "want a list of records"}},
		{"second document not a list", goodRecord + "---\nid: t/x\n", []string{"p.yaml:8", "want a list of records"}},
		{"unknown field in the second document", goodRecord + "---\n- id: t/x\n  title: x\n  severity: error\n  match: {message: abcd}\n  tests: {match: [abcd]}\n  cuase: typo\n",
			[]string{"p.yaml:8", `record "t/x"`, "field cuase not found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseYAML("p.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestValidate(t *testing.T) {
	base := func() *Record {
		return &Record{ID: "t/x", Title: "x", Severity: SeverityError, Origin: "p.yaml",
			Match: Match{Message: "boom!"}, Tests: Tests{Match: []string{"boom!"}}}
	}
	tests := []struct {
		name  string
		edit  func(r *Record)
		field string // "" means valid
	}{
		{"valid", func(r *Record) {}, ""},
		{"no id", func(r *Record) { r.ID = "" }, "id"},
		{"id without family", func(r *Record) { r.ID = "nofamily" }, "id"},
		{"id in capitals", func(r *Record) { r.ID = "T/X" }, "id"},
		{"no title", func(r *Record) { r.Title = " " }, "title"},
		{"no severity", func(r *Record) { r.Severity = 0 }, "severity"},
		{"no match", func(r *Record) { r.Match.Message = "" }, "match"},
		{"both", func(r *Record) { r.Match.Regex = "boom" }, "match"},
		{"short literal", func(r *Record) { r.Match.Message = "ab" }, "match.message"},
		{"bad regex", func(r *Record) { r.Match = Match{Regex: "boom("} }, "match.regex"},
		{"regex without literal", func(r *Record) { r.Match = Match{Regex: `\d+ \w+`} }, "match.regex"},
		{"regex with short literal", func(r *Record) { r.Match = Match{Regex: `ab\d+`} }, "match.regex"},
		{"case-insensitive regex", func(r *Record) { r.Match = Match{Regex: `(?i)out of memory`} }, "match.regex"},
		{"no tests", func(r *Record) { r.Tests.Match = nil }, "tests.match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base()
			tt.edit(r)
			err := r.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var re *RecordError
			if !errors.As(err, &re) {
				t.Fatalf("error %v is not a *RecordError", err)
			}
			if re.Field != tt.field || re.File != "p.yaml" {
				t.Errorf("error names field %q in %q, want %q in p.yaml: %v", re.Field, re.File, tt.field, err)
			}
		})
	}
}

func TestNeedles(t *testing.T) {
	tests := []struct {
		regex string
		want  []string
	}{
		{`Transfer thread failed because of (?P<cause>.+?)\.? Prefill instance`, []string{"Transfer thread failed because of "}},
		{`(?:CUDA out of memory|CUDA error: out of memory)`, []string{"CUDA out of memory", "CUDA error: out of memory"}},
		{`Failed to (?:parse JSON content from|read JSON) file (?P<file>\S+)`, []string{"Failed to parse JSON content from file ", "Failed to read JSON file "}},
		{`(?:^|Error: )cannot import name '(?P<name>\w+)'`, []string{"cannot import name '"}},
		{`module '?(?P<m>\w+)'? has no attribute`, []string{" has no attribute"}},
		{`(?:site-packages/|dist-packages/)(?:flashinfer|triton)/x\.py`, []string{"site-packages/flashinfer/x.py", "site-packages/triton/x.py", "dist-packages/flashinfer/x.py", "dist-packages/triton/x.py"}},
		{`(?:a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q)xyzw`, []string{"xyzw"}},
		{`error: argument (?P<flag>--[\w-]+): invalid choice: '`, []string{": invalid choice: '"}},
		{`(?:abcd|efgh)+ t`, []string{"abcd", "efgh"}},
		{`(?:abcd|efgh)+ tail`, []string{" tail"}},
		{`x{2,}yyyy`, []string{"yyyy"}},
		{`Rank \d+ scheduler died during initialization`, []string{" scheduler died during initialization"}},
	}
	for _, tt := range tests {
		r := &Record{Match: Match{Regex: tt.regex}}
		got, err := r.Needles()
		if err != nil {
			t.Errorf("%s: %v", tt.regex, err)
			continue
		}
		slices.Sort(got)
		slices.Sort(tt.want)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Needles(%s) = %q, want %q", tt.regex, got, tt.want)
		}
	}
}

func TestLoadDuplicateAndRelated(t *testing.T) {
	dup := fstest.MapFS{
		"a/one.yaml": {Data: []byte(goodRecord)},
		"b/two.yaml": {Data: []byte(goodRecord)},
	}
	if _, err := Load(dup, "dir"); err == nil || !strings.Contains(err.Error(), "duplicate id, first defined in dir/a/one.yaml") {
		t.Errorf("duplicate ids: got %v", err)
	}
	// related: and follows: are checked once the records join the pack
	// they are loaded into; they may name its records.
	builtin, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{"related", "follows"} {
		rel := fstest.MapFS{"a/one.yaml": {Data: []byte(goodRecord + "  " + field + ": [t/missing]\n")}}
		extra, err := Load(rel, "dir")
		if err != nil {
			t.Fatalf("%s: a record naming another pack's id does not load: %v", field, err)
		}
		if _, err := builtin.With(extra); err == nil || !strings.Contains(err.Error(), `dir/a/one.yaml:2: record "t/one": `+field+`: unknown id "t/missing"`) {
			t.Errorf("%s: unknown id: got %v", field, err)
		}
		known := fstest.MapFS{"a/one.yaml": {Data: []byte(goodRecord + "  " + field + ": [torch/cuda-oom]\n")}}
		if extra, err = Load(known, "dir"); err != nil {
			t.Fatal(err)
		}
		if _, err := builtin.With(extra); err != nil {
			t.Errorf("%s: naming a built-in record: %v", field, err)
		}
	}
}

// Every record of a file written as several YAML documents is read, and
// every error names the line its record starts on, however the file is
// laid out.
func TestParseYAMLDocumentsAndLines(t *testing.T) {
	const rec = "- id: t/%s\n  title: x\n  severity: error\n  match: {message: %s}\n  tests: {match: [abcd]}\n"
	tests := []struct {
		name      string
		yaml      string
		wantIDs   []string
		wantLines []int
	}{
		{"one list", "# c\n" + fmt.Sprintf(rec, "a", "abcd") + fmt.Sprintf(rec, "b", "abcd"), []string{"t/a", "t/b"}, []int{2, 7}},
		{"two documents", fmt.Sprintf(rec, "a", "abcd") + "---\n" + fmt.Sprintf(rec, "b", "abcd"), []string{"t/a", "t/b"}, []int{1, 7}},
		{"document markers and an empty document", "---\n" + fmt.Sprintf(rec, "a", "abcd") + "...\n---\n---\n" + fmt.Sprintf(rec, "b", "abcd"), []string{"t/a", "t/b"}, []int{2, 10}},
		{"indented list", strings.ReplaceAll("\n"+fmt.Sprintf(rec, "a", "abcd"), "\n", "\n  ")[1:], []string{"t/a"}, []int{1}},
		{"flow list", "[{id: t/a, title: x, severity: error, match: {message: abcd}, tests: {match: [abcd]}},\n {id: t/b, title: x, severity: error, match: {message: abcd}, tests: {match: [abcd]}}]\n",
			[]string{"t/a", "t/b"}, []int{1, 2}},
		{"a block scalar holding a dash line", "- id: t/a\n  title: x\n  severity: error\n  cause: |\n    - not an item\n  match: {message: abcd}\n  tests: {match: [abcd]}\n" + fmt.Sprintf(rec, "b", "abcd"),
			[]string{"t/a", "t/b"}, []int{1, 8}},
		{"CRLF", strings.ReplaceAll(fmt.Sprintf(rec, "a", "abcd")+fmt.Sprintf(rec, "b", "abcd"), "\n", "\r\n"), []string{"t/a", "t/b"}, []int{1, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := ParseYAML("p.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			var lines []int
			for _, r := range recs {
				ids, lines = append(ids, r.ID), append(lines, r.Line)
			}
			if !slices.Equal(ids, tt.wantIDs) || !slices.Equal(lines, tt.wantLines) {
				t.Errorf("records %q on lines %v, want %q on %v", ids, lines, tt.wantIDs, tt.wantLines)
			}
		})
	}
	// A record that parses but is invalid is named by its line.
	bad := fmt.Sprintf(rec, "a", "abcd") + "---\n" + fmt.Sprintf(rec, "b", "ab")
	_, err := Load(fstest.MapFS{"p.yaml": {Data: []byte(bad)}}, "dir")
	if err == nil || !strings.HasPrefix(err.Error(), `dir/p.yaml:7: record "t/b": match.message:`) {
		t.Errorf("invalid record in the second document: got %v", err)
	}
	dup := fmt.Sprintf(rec, "a", "abcd") + fmt.Sprintf(rec, "a", "abcd")
	_, err = Load(fstest.MapFS{"p.yaml": {Data: []byte(dup)}}, "dir")
	if err == nil || !strings.Contains(err.Error(), `dir/p.yaml:6: record "t/a": id: duplicate id, first defined in dir/p.yaml:1`) {
		t.Errorf("duplicate id: got %v", err)
	}
}

// The quick way to find where records start agrees with the YAML parser on
// every built-in file.
func TestItemLinesAgreeWithTheParser(t *testing.T) {
	names, err := fs.Glob(os.DirFS("."), SourcePattern)
	if err != nil || len(names) == 0 {
		t.Fatalf("pattern files: %v %v", names, err)
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := yamlItems(name, data)
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		for _, n := range nodes {
			want = append(want, n.Line)
		}
		if got := itemLines(data); !slices.Equal(got, want) {
			t.Errorf("%s: records start on %v, the parser says %v", name, got, want)
		}
	}
}

// The binary's copy of the hand-written records is the YAML beside this
// package as it is now: a record edited without go generate fails here.
func TestCuratedIsCurrent(t *testing.T) {
	pack, err := LoadSources(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := EncodeCurated(&b, pack); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), curatedGob) {
		t.Fatal("patterns/generated/curated.gob is not the pattern files beside it: run go generate ./patterns")
	}
	cur, err := Curated()
	if err != nil {
		t.Fatal(err)
	}
	if len(cur.Records) != len(pack.Records) || len(cur.Records) < 400 {
		t.Fatalf("Curated: %d records, the files hold %d", len(cur.Records), len(pack.Records))
	}
	for i, r := range cur.Records {
		want := pack.Records[i]
		if r.ID != want.ID || r.Origin != want.Origin || r.Line != want.Line || r.Match != want.Match ||
			!slices.Equal(r.Fix.Steps, want.Fix.Steps) || r.Fix.After != want.Fix.After || !slices.Equal(r.Tests.NoMatch, want.Tests.NoMatch) {
			t.Fatalf("record %d: decoded %+v, parsed %+v", i, r, want)
		}
	}
}

// A seed-schema record written for this test: the schema's fields, our words.
const seedJSON = `{"record":{"id":"0a1b2c3d4e5f6a7b","repo":"sgl-project/sglang","slug":"widget-frobnication-failed",
"errorMessage":"Widget frobnication failed for shard","messagePattern":"Widget frobnication failed for shard",
"errorClass":"RuntimeError","severity":"error","filePath":"python/sglang/srt/widget.py","lineNumber":42,
"documentation":"The widget could not be frobnicated.","solutions":["Use fewer widgets","Upgrade"],
"exampleFix":"# before\n--widgets 8\n# after\n--widgets 4","preventionTips":["Count widgets first"],
"tags":["widget"],"schemaVersion":2},"datasetVersion":"2026-01-01T00:00:00Z"}`

func TestParseSeed(t *testing.T) {
	recs, err := ParseSeed("seed.json", []byte(seedJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("got %d records", len(recs))
	}
	r := recs[0]
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	checks := map[string][2]string{
		"id":        {r.ID, "sglang/widget-frobnication-failed"},
		"exception": {r.Match.Exception, "RuntimeError"},
		"message":   {r.Match.Message, "Widget frobnication failed for shard"},
		"before":    {r.Fix.Before, "--widgets 8"},
		"after":     {r.Fix.After, "--widgets 4"},
		"file":      {r.Where.File, "python/sglang/srt/widget.py"},
		"severity":  {r.Severity.String(), "error"},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %q, want %q", name, c[0], c[1])
		}
	}
	if want := []string{"Use fewer widgets", "Upgrade", "Count widgets first"}; !slices.Equal(r.Fix.Steps, want) {
		t.Errorf("steps = %q, want %q", r.Fix.Steps, want)
	}
	// An array of bare records loads too; a wrong schema version is refused.
	bare := strings.TrimSuffix(strings.TrimPrefix(seedJSON, `{"record":`), `,"datasetVersion":"2026-01-01T00:00:00Z"}`)
	if recs, err := ParseSeed("seeds.json", []byte("["+bare+"]")); err != nil || len(recs) != 1 {
		t.Errorf("array of bare records: %d records, %v", len(recs), err)
	}
	v1 := strings.Replace(seedJSON, `"schemaVersion":2`, `"schemaVersion":1`, 1)
	if _, err := ParseSeed("old.json", []byte(v1)); err == nil || !strings.Contains(err.Error(), "schemaVersion") {
		t.Errorf("schema version 1: got %v", err)
	}
}

func TestBuiltinLoads(t *testing.T) {
	p, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"sglang/pd-minimax-sparse-pp", "sglang/minicpm-sparse-pd"} {
		if p.Lookup(id) == nil {
			t.Errorf("built-in pack lacks %s", id)
		}
	}
	for _, r := range p.Records {
		if len(r.Tests.NoMatch) == 0 {
			t.Errorf("%s: %s has no near misses in tests.no_match", r.Origin, r.ID)
		}
		if r.Gen != nil {
			continue // their remedy is written from the source when shown
		}
		if strings.TrimSpace(r.Cause) == "" || len(r.Fix.Steps) == 0 {
			t.Errorf("%s: %s has no cause or no fix steps", r.Origin, r.ID)
		}
	}
}

// A record known by a traceback frame is proposed by what names its frame,
// not by the syntax and directories every frame repeats.
func TestNeedlesSkipTracebackScaffolding(t *testing.T) {
	tests := []struct{ frame, bad string }{
		{`(?:/outlines/\w+|/xgrammar/\w+)\.py", line \d+, in \w+`, `.py", line `},
		{`sglang/srt/(?:managers/mm_utils|models/\w*vl\w*)\.py", line \d+, in \w+`, `sglang/srt/`},
	}
	for _, tt := range tests {
		r := &Record{Match: Match{Frame: tt.frame}}
		set, err := r.Needles()
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range set {
			if n == tt.bad {
				t.Errorf("%s: proposed by %q", tt.frame, n)
			}
		}
	}
}

func TestChildExited(t *testing.T) {
	tests := []struct {
		guard string
		want  bool
	}{
		{"not p.is_alive()", true},
		{"not (proc.is_alive())", true},
		{"p.poll() is not None", true},
		{"completed.returncode != 0", true},
		{"exitcode != 0", true},
		{"thread.is_alive()", false}, // still running after a wait: a timeout
		{"not (not non_block_thread.is_alive())", false},
		{"returncode == 0", false},
		{"x is None", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := childExited(tt.guard); got != tt.want {
			t.Errorf("childExited(%q) = %v, want %v", tt.guard, got, tt.want)
		}
	}
}

func TestAnchorLeadingPlaceholder(t *testing.T) {
	tests := []struct{ re, line string }{
		{`.*? is required`, "ValueError: port is required"},
		{`.*? has no rounds to fit\.`, "[2026-11-29 10:15:02 TP0] plan has no rounds to fit.  "},
		{`Expected .*? to be set`, "Expected rope_theta to be set, got None"}, // not leading: unanchored
	}
	for _, tt := range tests {
		re := regexp.MustCompile(anchorLeadingPlaceholder(tt.re))
		if !re.MatchString(tt.line) {
			t.Errorf("%q (from %q) does not match %q", re, tt.re, tt.line)
		}
	}
	longer := regexp.MustCompile(anchorLeadingPlaceholder(`.*? is required`))
	if longer.MatchString("ValueError: rollout_routed_experts is required in rollout_data when replay is set.") {
		t.Errorf("%q matches another program's longer sentence", longer)
	}
}

func TestAnnouncesException(t *testing.T) {
	for tmpl, want := range map[string]bool{
		"Exception in ControllerSingle:":  true,
		"error in SGLang:":                true,
		"Error raised in subprocess:":     true,
		"Exception in ControllerSingle":   false,
		"match text not found in source:": false,
		"The 'flashkda' KDA prefill backend requires the flash_kda module, which is not installed. Install it from source:": false,
	} {
		if got := announcesException(tmpl); got != want {
			t.Errorf("announcesException(%q) = %v, want %v", tmpl, got, want)
		}
	}
}

func TestSettingNote(t *testing.T) {
	tests := []struct {
		file, qualname, template string
		want                     bool
	}{
		{"python/sglang/srt/server_args.py", "ServerArgs._handle_a2a_moe", "Cuda graph is disabled because deepep_mode=`normal`", true},
		{"python/sglang/multimodal_gen/runtime/server_args.py", "ServerArgs._adjust_attention_backend", "Overriding %s backend with torch_sdpa", true},
		{"python/sglang/srt/server_args.py", "ServerArgs._handle_deprecated_args", "--disable-fast-image-processor is deprecated; use --image-processor-backend=pil instead.", false},
		{"python/sglang/srt/server_args.py", "prepare_server_args", "Failed to parse the config file", false},
		{"python/sglang/srt/managers/scheduler.py", "Scheduler.__init__", "Cuda graph is disabled", false},
	}
	for _, tt := range tests {
		if got := settingNote(tt.file, tt.qualname, tt.template); got != tt.want {
			t.Errorf("settingNote(%q, %q, %q) = %v, want %v", tt.file, tt.qualname, tt.template, got, tt.want)
		}
	}
	// And the built-in table is read with it.
	recs, err := GeneratedRecords()
	if err != nil {
		t.Fatal(err)
	}
	var notes, warnings int
	for _, r := range recs {
		if r.Gen.Kind != "logger.warning" || !strings.HasPrefix(r.Gen.Qualname, "ServerArgs.") {
			continue
		}
		if r.Severity == SeverityInfo {
			notes++
		} else {
			warnings++
		}
	}
	if notes == 0 || warnings == 0 {
		t.Errorf("ServerArgs's warnings: %d at info, %d at warning; want some of each (notes, deprecations)", notes, warnings)
	}
}

// A pattern file that is a named pipe or a device is refused with an error
// naming it, and nothing blocks or reads without bound.
func TestLoadDirRefusesSpecialFiles(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"pipe", "x.yaml: not a regular file (a named pipe)"},
		{"zero", "x.yaml: not a regular file (a character device)"},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, "x.yaml")
		switch tt.name {
		case "pipe":
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no named pipes here:", err)
			}
		case "zero":
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan error, 1)
		go func() { _, err := LoadDir(dir); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: LoadDir = %v, want %q", tt.name, err, tt.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: LoadDir blocked", tt.name)
		}
	}
}

// A YAML alias repeating one large string many times makes a record too
// large to load, with an error naming it, instead of a finding of a
// gigabyte.
func TestAliasBombIsRefused(t *testing.T) {
	big := strings.Repeat("x", 64<<10)
	var b strings.Builder
	b.WriteString("- id: t/bomb\n  title: bomb\n  severity: error\n  match: {regex: 'boom'}\n  cause: &big " + big + "\n  fix:\n    steps: [")
	for i := 0; i < 1000; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("*big")
	}
	b.WriteString("]\n  tests: {match: ['boom']}\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bomb.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadDir(dir)
	if err == nil || !strings.Contains(err.Error(), "t/bomb") || !strings.Contains(err.Error(), "KiB of text") {
		t.Errorf("LoadDir = %v, want a refusal naming t/bomb", err)
	}
}

func TestEscapedNewline(t *testing.T) {
	tests := []struct {
		re   string
		want bool
	}{
		{`first line\nsecond line`, true},
		{`(?:a|b)\n`, true},
		{`a\n|b`, false},
		{`a[^\n]*b`, false},
		{`a(?:\n)?b`, false},
		{`a\\nb`, false},
		{`plain`, false},
	}
	for _, tt := range tests {
		if got := escapedNewline(tt.re); got != tt.want {
			t.Errorf("escapedNewline(%q) = %v, want %v", tt.re, got, tt.want)
		}
	}
}

func BenchmarkBuiltin(b *testing.B) {
	for b.Loop() {
		if _, err := Builtin(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCurated(b *testing.B) {
	for b.Loop() {
		if _, err := Curated(); err != nil {
			b.Fatal(err)
		}
	}
}

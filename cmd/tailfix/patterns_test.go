package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
)

func TestFilterRecords(t *testing.T) {
	recs := []*patterns.Record{
		{ID: "sglang/mooncake-fatal", Severity: patterns.SeverityFatal, Tags: []string{"mooncake", "pd-disaggregation"}, Origin: "patterns/sglang/pd-disagg.yaml"},
		{ID: "sglang/nccl-error", Severity: patterns.SeverityError, Tags: []string{"nccl"}, Origin: "patterns/sglang/memory.yaml"},
		{ID: "sglang/benign-note", Severity: patterns.SeverityInfo, Tags: []string{"benign"}, Origin: "patterns/sglang/memory.yaml"},
		{ID: "sglang/untagged-warning", Severity: patterns.SeverityWarning},
		{ID: "sglang-src/generated-error", Severity: patterns.SeverityError, Tags: []string{"nccl"}, Gen: &patterns.Generated{}},
	}
	tests := []struct {
		name string
		f    listFilter
		want []string
	}{
		{"no filter", listFilter{}, []string{"sglang/mooncake-fatal", "sglang/nccl-error", "sglang/benign-note", "sglang/untagged-warning", "sglang-src/generated-error"}},
		{"hand-written", listFilter{handWritten: true}, []string{"sglang/mooncake-fatal", "sglang/nccl-error", "sglang/benign-note", "sglang/untagged-warning"}},
		{"one tag", listFilter{tags: []string{"nccl"}}, []string{"sglang/nccl-error", "sglang-src/generated-error"}},
		{"any of two tags", listFilter{tags: []string{"benign", "mooncake"}}, []string{"sglang/mooncake-fatal", "sglang/benign-note"}},
		{"a tag no record has", listFilter{tags: []string{"nope"}}, nil},
		{"warning and above", listFilter{minSeverity: patterns.SeverityWarning}, []string{"sglang/mooncake-fatal", "sglang/nccl-error", "sglang/untagged-warning", "sglang-src/generated-error"}},
		{"fatal only", listFilter{minSeverity: patterns.SeverityFatal}, []string{"sglang/mooncake-fatal"}},
		{"all three", listFilter{handWritten: true, tags: []string{"nccl", "benign"}, minSeverity: patterns.SeverityError}, []string{"sglang/nccl-error"}},
		{"a family by id", listFilter{families: []string{"sglang-src"}}, []string{"sglang-src/generated-error"}},
		{"a family by file", listFilter{families: []string{"memory"}}, []string{"sglang/nccl-error", "sglang/benign-note"}},
		{"either family", listFilter{families: []string{"pd-disagg", "sglang-src"}}, []string{"sglang/mooncake-fatal", "sglang-src/generated-error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range filterRecords(recs, tt.f) {
				got = append(got, r.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWriteRecordList(t *testing.T) {
	recs := []*patterns.Record{
		{ID: "net/address-in-use", Severity: patterns.SeverityFatal, Title: "Port already in use"},
		{ID: "torch/cuda-oom", Severity: patterns.SeverityError, Title: "GPU ran out of memory while the server was serving requests"},
		{ID: "sglang-src/srt.managers.scheduler/a-very-long-generated-id", Severity: patterns.SeverityWarning, Title: "A × counts as one column"},
	}
	tests := []struct {
		name  string
		width int
		want  string
	}{
		{"no limit: whole titles, ids aligned", 0, "" +
			"net/address-in-use                                          fatal    Port already in use\n" +
			"torch/cuda-oom                                              error    GPU ran out of memory while the server was serving requests\n" +
			"sglang-src/srt.managers.scheduler/a-very-long-generated-id  warning  A × counts as one column\n"},
		{"a width: titles clipped, a long id runs over its column and is kept whole", 60, "" +
			"net/address-in-use              fatal    Port already in use\n" +
			"torch/cuda-oom                  error    GPU ran out of mem…\n" +
			"sglang-src/srt.managers.scheduler/a-very-long-generated-id  warning\n"},
		{"room for a title after a long id", 80, "" +
			"net/address-in-use                        fatal    Port already in use\n" +
			"torch/cuda-oom                            error    GPU ran out of memory while …\n" +
			"sglang-src/srt.managers.scheduler/a-very-long-generated-id  warning  A × counts…\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeRecordList(&b, recs, tt.width); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// On a terminal, patterns list fits each line to its width: the window's,
// or COLUMNS when set; titles are clipped with …, never ids.
func TestPatternsListFitsTerminal(t *testing.T) {
	for _, tt := range []struct {
		name    string
		columns string
		width   int
	}{
		{"window size", "", 72},
		{"COLUMNS", "64", 64},
	} {
		t.Run(tt.name, func(t *testing.T) {
			term, read := openTerminal(t)
			if err := unix.IoctlSetWinsize(int(term.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: 72, Row: 24}); err != nil {
				t.Skipf("cannot size the terminal: %v", err)
			}
			getenv := func(k string) string {
				if k == "COLUMNS" {
					return tt.columns
				}
				return ""
			}
			var stderr bytes.Buffer
			if code := run([]string{"patterns", "list", "--hand-written"}, strings.NewReader(""), term, &stderr, getenv); code != 0 {
				t.Fatalf("exit status %d: %s", code, stderr.String())
			}
			out := strings.ReplaceAll(read(), "\r\n", "\n")
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) < 100 {
				t.Fatalf("%d lines, want the hand-written records:\n%s", len(lines), out)
			}
			clipped := 0
			for _, l := range lines {
				id := strings.Fields(l)[0]
				if ansi.StringWidth(l) > tt.width && ansi.StringWidth(id) < tt.width/2 {
					t.Errorf("line wider than %d: %q", tt.width, l)
				}
				if strings.HasSuffix(l, "…") {
					clipped++
				}
			}
			if clipped == 0 {
				t.Errorf("no title clipped with … at width %d:\n%s", tt.width, out)
			}
		})
	}
}

// Commands that show records (patterns list, explain ID) load a user's
// pack without building the automaton; a scan of the same pack builds it
// once.
func TestRecordCommandsBuildNoAutomaton(t *testing.T) {
	dir := t.TempDir()
	pack := `- id: acme/widget-missing
  title: A widget is missing
  severity: error
  match: {exception: ValueError, regex: 'widget (?P<n>\d+) is missing from the rack'}
  tests: {match: ["ValueError: widget 12 is missing from the rack"]}
`
	if err := os.WriteFile(filepath.Join(dir, "acme.yaml"), []byte(pack), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "x.log")
	if err := os.WriteFile(log, []byte("ValueError: widget 12 is missing from the rack\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	built := 0
	defer func(c func(*patterns.Pack) (*matcher.Matcher, error)) { compileMatcher = c }(compileMatcher)
	compileMatcher = func(p *patterns.Pack) (*matcher.Matcher, error) {
		built++
		return matcher.Compile(p)
	}
	for _, c := range []struct {
		args  []string
		code  int
		built int
	}{
		{[]string{"patterns", "list", "--patterns", dir}, exitOK, 0},
		{[]string{"patterns", "list", "--hand-written", "--patterns", dir}, exitOK, 0},
		{[]string{"explain", "--patterns", dir, "acme/widget-missing"}, exitOK, 0},
		{[]string{"explain", "--patterns", dir, "torch/cuda-oom"}, exitOK, 0},
		{[]string{"scan", "--patterns", dir, log}, exitFound, 1},
	} {
		built = 0
		var stdout, stderr strings.Builder
		if code := run(c.args, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }); code != c.code {
			t.Fatalf("%v: exit %d, want %d\n%s", c.args, code, c.code, stderr.String())
		}
		if built != c.built {
			t.Errorf("%v built the automaton %d times, want %d", c.args, built, c.built)
		}
		if !strings.Contains(stdout.String(), "acme/widget-missing") && c.args[0] != "explain" {
			t.Errorf("%v: the user's record is not in\n%s", c.args, stdout.String())
		}
	}
}

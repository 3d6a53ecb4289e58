package matcher

import (
	"bufio"
	"errors"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/patterns"
)

func TestTestRecords(t *testing.T) {
	const pack = `
- id: t/oom
  title: oom
  severity: error
  match: {regex: 'CUDA out of memory'}
  tests:
    match: ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", "no such line here"]
    no_match: ["RuntimeError: CUDA out of memory, said the test"]
`
	m := compileYAML(t, pack)
	failures, lines := m.TestRecords()
	var got []string
	for _, f := range failures {
		got = append(got, f.String())
	}
	want := []string{`test.yaml:2: t/oom: does not match "no such line here"`, `test.yaml:2: t/oom: matches "RuntimeError: CUDA out of memory, said the test"`}
	if lines != 3 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d lines, failures:\n%s\nwant:\n%s", lines, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestTestRecordsBuiltin(t *testing.T) {
	p, err := patterns.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	failures, lines := m.TestRecords()
	if len(failures) > 0 || lines < len(p.Records) {
		t.Errorf("%d lines, %d failures, first %v", lines, len(failures), failures[0])
	}
}

func TestLintHealthy(t *testing.T) {
	m := testMatcher(t)
	long := strings.Repeat("x", 200)
	tests := []struct {
		name, log string
		want      []string
		lines     int
		quiet     int
	}{
		{"quiet", "[2026-11-29 10:15:02 TP0] Load weight begin.\nDecode batch\n", nil, 2, 0},
		{"an error-level record matches, CRLF", "ok\r\ntorch.OutOfMemoryError: CUDA out of memory.\r\n", []string{
			`test.yaml:19: t/oom: matches line 2 of the healthy log h.log: "torch.OutOfMemoryError: CUDA out of memory."`}, 2, 0},
		{"a long line is clipped", "CUDA out of memory " + long + "\n", []string{
			`test.yaml:19: t/oom: matches line 1 of the healthy log h.log: "CUDA out of memory ` + long[:100] + `…"`}, 1, 0},
		{"no final newline", "x\nCUDA out of memory", []string{
			`test.yaml:19: t/oom: matches line 2 of the healthy log h.log: "CUDA out of memory"`}, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			quiet := map[string]bool{}
			ps, n, err := m.LintHealthy(strings.NewReader(tt.log), "h.log", quiet)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range ps {
				got = append(got, p.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") || n != tt.lines || len(quiet) != tt.quiet {
				t.Errorf("problems:\n%s\nwant:\n%s\n%d lines (want %d), quiet %v", strings.Join(got, "\n"), strings.Join(tt.want, "\n"), n, tt.lines, quiet)
			}
		})
	}
}

func TestLintHealthyBelowError(t *testing.T) {
	p, err := patterns.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, r := range p.Records {
		if r.Severity < patterns.SeverityError && r.Gen == nil && len(r.Tests.Match) > 0 {
			line = r.Tests.Match[0]
			break
		}
	}
	quiet := map[string]bool{}
	ps, _, err := m.LintHealthy(strings.NewReader(line+"\n"), "h.log", quiet)
	if err != nil || len(quiet) == 0 {
		t.Errorf("line %q: problems %v, quiet %v, error %v", line, ps, quiet, err)
	}
	for _, p := range ps {
		if p.Record.Severity < patterns.SeverityError {
			t.Errorf("a record below error level is a problem: %v", p)
		}
	}
}

func TestLintHealthyTooLong(t *testing.T) {
	m := testMatcher(t)
	log := "ok\n" + strings.Repeat("x", MaxLine+2) + "\n"
	_, n, err := m.LintHealthy(strings.NewReader(log), "h.log", nil)
	if !errors.Is(err, bufio.ErrTooLong) || err.Error() != "after line 1: "+bufio.ErrTooLong.Error() || n != 1 {
		t.Errorf("%d lines, error %v", n, err)
	}
}

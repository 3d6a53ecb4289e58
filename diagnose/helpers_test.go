package diagnose

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
)

// testPack is a small pack written for these tests, independent of the
// built-in knowledge.
const testPack = `
- id: t/oom
  title: oom
  severity: error
  match: {regex: '(?:CUDA out of memory|CUDA error: out of memory)'}
  tests: {match: ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]}
- id: t/sigquit
  title: sigquit
  severity: error
  role: symptom
  match: {message: "Received sigquit from a child process."}
  tests: {match: ["Received sigquit from a child process. It usually means the child failed."]}
`

func testMatcher(t testing.TB) *matcher.Matcher {
	t.Helper()
	return compileYAML(t, testPack)
}

// compileYAML compiles a pack of records written in YAML for a test.
func compileYAML(t testing.TB, yaml string) *matcher.Matcher {
	t.Helper()
	recs, err := patterns.ParseYAML("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	pack, err := patterns.NewPack(recs)
	if err != nil {
		t.Fatal(err)
	}
	m, err := matcher.Compile(pack)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func builtinMatcher(t testing.TB) *matcher.Matcher {
	t.Helper()
	pack, err := patterns.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	m, err := matcher.Compile(pack)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// scanText diagnoses logs, each an input of its own, and returns the
// session.
func scanText(t testing.TB, m *matcher.Matcher, logs ...string) *Session {
	t.Helper()
	s := New(m, Options{})
	for i, log := range logs {
		if err := s.Add(fmt.Sprintf("in%d.log", i), SourceOptions{}).Scan(strings.NewReader(log)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// listFindings renders findings one per line, the facts a diagnosis
// stands on.
func listFindings(fs []*Finding) string {
	var b strings.Builder
	for _, f := range fs {
		role := "root cause"
		switch {
		case !f.RootCause && f.SymptomOf != "":
			role = "symptom of " + f.SymptomOf
		case !f.RootCause:
			role = "symptom"
		}
		if f.Partial {
			role += ", cut off"
		}
		fmt.Fprintf(&b, "%s %s lines %d-%d ×%d", f.ID, f.Severity, f.Line, f.EndLine, f.Count)
		if len(f.Ranks) > 0 {
			fmt.Fprintf(&b, " on %s", strings.Join(f.Ranks, ","))
		}
		fmt.Fprintf(&b, " (%s)\n    %s: %s\n", role, f.Exception, f.Message)
	}
	if len(fs) == 0 {
		b.WriteString("no findings\n")
	}
	return b.String()
}

// listReports renders reports: their inputs, times and findings.
func listReports(rs []Report) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "report %s (%d lines)\n", strings.Join(r.Sources, ", "), r.Lines)
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "  %s %s:%d ×%d ranks=%v seen=%q..%q root=%v symptom_of=%q partial=%v\n",
				f.ID, f.Source, f.Line, f.Count, f.Ranks, f.FirstSeen, f.LastSeen, f.RootCause, f.SymptomOf, f.Partial)
		}
	}
	return b.String()
}

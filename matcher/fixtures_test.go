package matcher

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFixtureFindings diagnoses every fixture log with the built-in pack
// and compares the findings, in report order, with the golden listing in
// testdata/findings. UPDATE_GOLDEN=1 rewrites the listings.
func TestFixtureFindings(t *testing.T) {
	m := builtinMatcher(t)
	logs, err := filepath.Glob("../testdata/logs/*.log")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no fixture logs: %v", err)
	}
	for _, path := range logs {
		name := strings.TrimSuffix(filepath.Base(path), ".log")
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c := NewCorrelator()
			e := m.NewEngine(filepath.Base(path), func(o Occurrence) { c.Add(o) })
			if err := e.Scan(f); err != nil {
				t.Fatal(err)
			}
			got := listFindings(c.Findings())
			golden := filepath.Join("../testdata/findings", name+".txt")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
			}
			if got != string(want) {
				t.Errorf("findings of %s changed:\n--- got\n%s--- want\n%s", path, got, want)
			}
		})
	}
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

package diagnose

import (
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
			s := New(m, Options{})
			if err := s.Add(filepath.Base(path), SourceOptions{}).Scan(f); err != nil {
				t.Fatal(err)
			}
			got := listFindings(s.Findings())
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

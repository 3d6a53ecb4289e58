package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/patterns"
)

// A library's table holds the errors its package raises, under its own
// family and repository, and leaves out its logging and what lies outside
// the package.
func TestBuild(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("widgets/jit/core.py", "import logging\nlogger = logging.getLogger(__name__)\n\n"+
		"def build(arch):\n    if arch < 80:\n        raise RuntimeError(f\"Widget kernels need compute capability 8.0, got {arch}\")\n"+
		"    logger.warning(\"Widget kernel cache is cold, compiling now\")\n")
	write("benchmarks/bench.py", "raise ValueError(\"a benchmark's own message, not the package's\")\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out := t.TempDir()
	n, err := build(lib{"widgets", "acme/widgets", "widgets"}, filepath.Join(dir, ".git"), out)
	if err != nil || n != 1 {
		t.Fatalf("build: %d records, %v", n, err)
	}
	data, err := os.ReadFile(filepath.Join(out, "widgets.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := patterns.ReadSites("widgets.tsv", data)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	r := recs[0]
	if !strings.HasPrefix(r.ID, "widgets-src/jit.core/widget-kernels-need") || r.Where.Repo != "acme/widgets" || r.Where.File != "widgets/jit/core.py" || len(r.Gen.Commit) != 40 {
		t.Errorf("%s %+v %q", r.ID, r.Where, r.Gen.Commit)
	}
}

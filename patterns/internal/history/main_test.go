package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A small history: release 0.1.0 raises two messages, a commit drops one,
// release 0.1.1 follows. The history says which releases print each, and
// which release and commit dropped the one that went.
func TestHistory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x",
			"GIT_AUTHOR_DATE=2025-01-02T10:00:00Z", "GIT_COMMITTER_DATE=2025-01-02T10:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("python/sglang/version.py", "__version__ = \"0.1.0\"\n")
	write("python/sglang/srt/pool.py", "def grow(rank):\n    raise RuntimeError(f\"Widget pool exhausted on rank {rank}\")\n\n"+
		"def shrink(n):\n    raise ValueError(f\"Cannot shrink the widget pool below {n} slots\")\n\n"+
		"class Pool:\n    def evict(self, n):\n        assert n > 0\n        raise NotImplementedError()\n")
	write("python/sglang/srt/tests/test_pool.py", "raise ValueError(\"a test's own message, not learnt\")\n")
	write("python/sglang/srt/server_args.py", "def add(parser):\n    parser.add_argument(\"--pool-size\", type=int)\n"+
		"    parser.add_argument(\"--pool-policy\", choices=[\"lru\", \"fifo\"])\n    parser.add_argument(\"--grow\", action=\"store_true\")\n")
	git("add", ".")
	git("commit", "-q", "-m", "Release 0.1.0")
	write("python/sglang/srt/pool.py", "def shrink(n):\n    raise ValueError(f\"Cannot shrink the widget pool below {n} slots\")\n")
	write("python/sglang/srt/server_args.py", "def add(parser):\n    parser.add_argument(\"--pool-size\", type=int)\n"+
		"    parser.add_argument(\"--pool-policy\", choices=[\"lru\", \"lfu\"])\n")
	git("commit", "-q", "-am", "Drop the widget pool growth check")
	drop := git("rev-parse", "--short=9", "HEAD")
	write("python/sglang/version.py", "__version__ = \"0.1.1\"\n")
	git("commit", "-q", "-am", "Release 0.1.1")

	out := filepath.Join(t.TempDir(), "history.tsv")
	if err := run(filepath.Join(dir, ".git"), "HEAD", out); err != nil {
		t.Fatal(err)
	}
	bare, err := os.ReadFile(filepath.Join(filepath.Dir(out), "bare.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	// Both message-less sites, from 0.1.0 until the release that dropped
	// them (the file lost the class).
	for _, w := range []string{
		"python/sglang/srt/pool.py\t9\tPool.evict\tAssertionError\tn > 0\t0.1.0\t0.1.0\n",
		"python/sglang/srt/pool.py\t10\tPool.evict\tNotImplementedError\t\t0.1.0\t0.1.0\n",
	} {
		if !strings.Contains(string(bare), w) {
			t.Errorf("bare.tsv lacks %q:\n%s", w, bare)
		}
	}
	{
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var labels, facts []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		switch {
		case f[0] == "#release":
			labels = append(labels, f[1])
		case !strings.HasPrefix(line, "#"):
			facts = append(facts, strings.Join([]string{f[1], f[3], f[4], f[5], f[6], f[7], f[8]}, " | "))
		}
	}
	if len(labels) != 3 || labels[0] != "0.1.0" || labels[1] != "0.1.1" || !strings.HasPrefix(labels[2], "main 2025-01-02") {
		t.Errorf("releases %q", labels)
	}
	want := []string{
		"ValueError | Cannot shrink the widget pool below {n} slots | 0.1.0 |  |  |  | python/sglang/srt/pool.py",
		"RuntimeError | Widget pool exhausted on rank {rank} | 0.1.0 | 0.1.0 | 0.1.1 | " + drop + " Drop the widget pool growth check | python/sglang/srt/pool.py",
	}
	if strings.Join(facts, "\n") != strings.Join(want, "\n") {
		t.Errorf("facts:\n%s\nwant:\n%s", strings.Join(facts, "\n"), strings.Join(want, "\n"))
	}
	// The flags of each release, and their choices.
	fb, err := os.ReadFile(filepath.Join(filepath.Dir(out), "flag-history.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var flags []string
	for _, line := range strings.Split(strings.TrimRight(string(fb), "\n"), "\n") {
		if !strings.HasPrefix(line, "#") {
			flags = append(flags, strings.ReplaceAll(line, "\t", " | "))
		}
	}
	wantFlags := []string{
		"--grow |  | 0.1.0 | 0.1.0 | switch",
		"--pool-policy |  | 0.1.0 |  | ",
		"--pool-policy | fifo | 0.1.0 | 0.1.0 | ",
		"--pool-policy | lfu | 0.1.1 |  | ",
		"--pool-policy | lru | 0.1.0 |  | ",
		"--pool-size |  | 0.1.0 |  | ",
	}
	if strings.Join(flags, "\n") != strings.Join(wantFlags, "\n") {
		t.Errorf("flags:\n%s\nwant:\n%s", strings.Join(flags, "\n"), strings.Join(wantFlags, "\n"))
	}
}

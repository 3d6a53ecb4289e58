package main

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the part of goreleaser.yaml the tests read.
type goreleaserConfig struct {
	Version int `yaml:"version"`
	Before  struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		Ldflags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	Archives []struct {
		Files []string `yaml:"files"`
	} `yaml:"archives"`
}

// hookRun matches a before hook that writes a file with tailfix:
// sh -c "go run [-ldflags '…'] ./cmd/tailfix ARGS > FILE".
var hookRun = regexp.MustCompile(`^sh -c "go run (?:-ldflags '[^']*' )?\./cmd/tailfix ([^>"]+) > ([^"]+)"$`)

// The archives hold LICENSE, README.md, and the completions and man page
// the before hooks write; running the hooks' commands writes every file
// the archives name, and .gitignore keeps what they write out of git.
func TestReleaseArchives(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 {
		t.Errorf("goreleaser.yaml: version %d, want 2", cfg.Version)
	}
	if len(cfg.Archives) == 0 {
		t.Fatal("goreleaser.yaml: no archives")
	}

	// Run each hook's tailfix command in a scratch directory.
	dir := t.TempDir()
	var written []string
	for _, h := range cfg.Before.Hooks {
		m := hookRun.FindStringSubmatch(h)
		if m == nil {
			continue
		}
		args, out := strings.Fields(m[1]), m[2]
		var stdout, stderr strings.Builder
		if code := run(args, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }); code != 0 || stdout.Len() == 0 {
			t.Errorf("hook %q: tailfix %s: exit status %d, %d bytes: %s", h, m[1], code, stdout.Len(), stderr.String())
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(out)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, out), []byte(stdout.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		written = append(written, out)
	}
	for _, want := range []string{"completion bash", "completion zsh", "completion fish", " man "} {
		if !strings.Contains(strings.Join(cfg.Before.Hooks, "\n")+" ", want) {
			t.Errorf("no before hook runs tailfix %s", strings.TrimSpace(want))
		}
	}

	for _, a := range cfg.Archives {
		for _, want := range []string{"LICENSE", "README.md", "completions/*", "manpages/*"} {
			if !slices.Contains(a.Files, want) {
				t.Errorf("an archive's files do not list %s: %q", want, a.Files)
			}
		}
		for _, f := range a.Files {
			switch {
			case strings.HasPrefix(f, "completions/"), strings.HasPrefix(f, "manpages/"):
				n := 0
				for _, w := range written {
					if ok, _ := path.Match(f, w); ok {
						n++
					}
				}
				if n == 0 {
					t.Errorf("the archive's %s matches no file the hooks write (%q)", f, written)
				}
			default:
				// A file of the repository, or a glob that names some.
				if m, err := filepath.Glob(filepath.Join(root, f)); err != nil || len(m) == 0 {
					t.Errorf("the archive's %s names no file of the repository (%v)", f, err)
				}
			}
		}
		for _, w := range written {
			if !slices.ContainsFunc(a.Files, func(f string) bool { ok, _ := path.Match(f, w); return ok }) {
				t.Errorf("the hooks write %s, which no archive holds", w)
			}
		}
	}
	if len(written) != 4 {
		t.Errorf("the hooks write %q, want three completions and a man page", written)
	}

	// What the hooks write is built, not committed.
	ignore, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"completions", "manpages"} {
		if !regexp.MustCompile(`(?m)^/?` + d + `/?$`).Match(ignore) {
			t.Errorf(".gitignore does not list %s/", d)
		}
	}

	// The ldflags set variables that exist, so that no -X is silently lost.
	known := map[string]*string{"main.version": &version, "main.commitDate": &commitDate}
	flags := slices.Clone(cfg.Before.Hooks)
	for _, b := range cfg.Builds {
		flags = append(flags, b.Ldflags...)
	}
	for _, l := range flags {
		for _, m := range regexp.MustCompile(`-X ([\w.]+)=`).FindAllStringSubmatch(l, -1) {
			if known[m[1]] == nil {
				t.Errorf("-X sets %s, which is no variable of main", m[1])
			}
		}
	}
}

// goreleaser itself accepts the file, where it is installed.
func TestGoreleaserCheck(t *testing.T) {
	if _, err := exec.LookPath("goreleaser"); err != nil {
		t.Skip("goreleaser is not installed")
	}
	cmd := exec.Command("goreleaser", "check", "--config", "goreleaser.yaml")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("goreleaser check: %v\n%s", err, out)
	}
}

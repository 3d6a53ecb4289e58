package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func manPageText(t *testing.T) string {
	t.Helper()
	var stdout, stderr strings.Builder
	if code := run([]string{"man"}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }); code != 0 {
		t.Fatalf("tailfix man: exit status %d: %s", code, stderr.String())
	}
	return stdout.String()
}

// section is the text of a man page's section, up to the next.
func section(page, name string) string {
	_, after, ok := strings.Cut(page, "\n.SH "+name+"\n")
	if !ok {
		return ""
	}
	before, _, _ := strings.Cut(after, "\n.SH ")
	return before
}

func roffDashes(s string) string { return strings.ReplaceAll(s, "-", `\-`) }

// The page has its sections in order, a heading for every command of the
// model and every flag in bold, so that a command added to cli without
// help in the page fails here.
func TestManPageNamesEveryCommandAndFlag(t *testing.T) {
	page := manPageText(t)
	if !strings.HasPrefix(page, `.\"`) || !regexp.MustCompile(`(?m)^\.TH TAILFIX 1 `).MatchString(page) {
		t.Errorf("the page does not start with a comment and .TH TAILFIX 1:\n%.200s", page)
	}
	last := -1
	for _, sh := range []string{"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT"} {
		i := strings.Index(page, "\n.SH "+sh+"\n")
		if i < 0 {
			t.Errorf("no section %s", sh)
			continue
		}
		if i < last {
			t.Errorf("section %s out of order", sh)
		}
		last = i
	}
	if name := section(page, "NAME"); !strings.HasPrefix(name, `tailfix \- reads sglang server logs`) {
		t.Errorf("NAME is %q", name)
	}
	synopsis, commands := section(page, "SYNOPSIS"), section(page, "COMMANDS")
	for _, c := range modelCommands(testModel(t)) {
		path := strings.Join(c.path, " ")
		if path != "" {
			if !strings.Contains(commands, "\n.SS \""+roffDashes(path)+"\"\n") && !strings.HasPrefix(commands, ".SS \""+roffDashes(path)+"\"\n") {
				t.Errorf("COMMANDS has no heading for %s", path)
			}
		}
		if len(c.subs) == 0 && !strings.Contains(synopsis, `\fB`+roffDashes(strings.TrimSpace("tailfix "+path))+`\fR`) {
			t.Errorf("SYNOPSIS has no line for tailfix %s", path)
		}
		for _, f := range c.flags {
			if f != "--" && !strings.Contains(page, `\fB`+roffDashes(f)+`\fR`) {
				t.Errorf("the page does not name %s (of tailfix %s)", f, path)
			}
		}
	}
	exit := section(page, "EXIT STATUS")
	for _, st := range []string{"0", "1", "2", "run"} {
		if !strings.Contains(exit, ".B "+st+"\n") {
			t.Errorf("EXIT STATUS does not say what %s means", st)
		}
	}
}

// ENVIRONMENT names every variable the command line reads, here and in
// check's model lookup, so that a new one is documented.
func TestManPageNamesEveryVariable(t *testing.T) {
	env := section(manPageText(t), "ENVIRONMENT")
	read := regexp.MustCompile(`getenv\("([A-Z_]+)"\)`)
	var files []string
	for _, dir := range []string{".", "../../launch"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range read.FindAllStringSubmatch(string(src), -1) {
			seen++
			if !strings.Contains(env, ".B "+m[1]+"\n") {
				t.Errorf("%s reads %s, which ENVIRONMENT does not name", f, m[1])
			}
		}
	}
	if seen < 4 {
		t.Errorf("found %d variables read, want NO_COLOR, TERM, COLUMNS and HF_*", seen)
	}
}

// overstrike matches what grotty writes for bold and underlined text: a
// character, then a backspace.
var overstrike = regexp.MustCompile(".\x08")

// groff and man render the page without a warning.
func TestManPageRenders(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tailfix.1")
	if err := os.WriteFile(file, []byte(manPageText(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("groff", func(t *testing.T) {
		if _, err := exec.LookPath("groff"); err != nil {
			t.Skip("groff is not installed")
		}
		cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", file)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("groff: %v\n%s", err, stderr.String())
		}
		text := overstrike.ReplaceAllString(string(out), "")
		for _, want := range []string{"EXIT STATUS", "ENVIRONMENT", "patterns list", "--hand-written", "pd-minimax-sparse-pp"} {
			if !strings.Contains(text, want) {
				t.Errorf("the rendered page lacks %q", want)
			}
		}
	})
	t.Run("mandoc", func(t *testing.T) {
		if _, err := exec.LookPath("mandoc"); err != nil {
			t.Skip("mandoc is not installed")
		}
		// A release's page, with its date.
		dated := filepath.Join(t.TempDir(), "tailfix.1")
		if err := os.WriteFile(dated, []byte(manPage(testModel(t), "1.2.3", "2026-12-01")), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("mandoc", "-Tlint", "-W", "style", dated).CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("mandoc -Tlint: %v\n%s", err, out)
		}
	})
	t.Run("man", func(t *testing.T) {
		if _, err := exec.LookPath("man"); err != nil {
			t.Skip("man is not installed")
		}
		cmd := exec.Command("man", "--warnings", "-l", file)
		cmd.Env = append(os.Environ(), "MANWIDTH=80", "MANPAGER=cat", "PAGER=cat")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("man -l: %v\n%s", err, stderr.String())
		}
		if !strings.Contains(overstrike.ReplaceAllString(string(out), ""), "tailfix - reads sglang server logs") {
			t.Errorf("man -l shows no NAME line:\n%.500s", out)
		}
	})
}

func TestManPageHeader(t *testing.T) {
	page := manPage(testModel(t), "1.2.3", "2026-12-01")
	if want := `.TH TAILFIX 1 "2026-12-01" "tailfix 1.2.3" "User Commands"`; !strings.Contains(page, "\n"+want+"\n") {
		t.Errorf("no line %s in\n%.300s", want, page)
	}
	if want := `.TH TAILFIX 1 "" "tailfix 1.2.3" "User Commands"`; !strings.Contains(manPage(testModel(t), "1.2.3", ""), "\n"+want+"\n") {
		t.Errorf("an undated page has no line %s", want)
	}
}

func TestRoff(t *testing.T) {
	for in, want := range map[string]string{
		"--fail-on error":         `\-\-fail\-on error`,
		`C:\path`:                 `C:\epath`,
		"… → ×":                   `\[u2026] \[u2192] \[u00D7]`,
		".hidden request":         `\&.hidden request`,
		"'quote":                  `\&'quote`,
		"two\nlines":              "two lines",
		"plain text, no escapes.": "plain text, no escapes.",
	} {
		if got := roff(in); got != want {
			t.Errorf("roff(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRoffText(t *testing.T) {
	long := strings.Repeat("word ", 40) + ".starts a request if it begins a line " + strings.Repeat("more ", 20)
	text := roffText(long)
	if !strings.HasSuffix(text, "\n") {
		t.Errorf("the text does not end its last line: %q", text)
	}
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if len(l) > 80 {
			t.Errorf("line of %d bytes: %q", len(l), l)
		}
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			t.Errorf("line starts a request: %q", l)
		}
	}
	if got := strings.Join(strings.Fields(strings.ReplaceAll(text, `\&`, "")), " "); got != strings.Join(strings.Fields(long), " ") {
		t.Errorf("the words changed:\n%s", got)
	}
}

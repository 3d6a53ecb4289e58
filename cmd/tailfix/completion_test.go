package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// testModel is the command line's model, as --help shows it.
func testModel(t *testing.T) *kong.Application {
	t.Helper()
	p, err := newParser(&cli{}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return p.Model
}

// modelCommand is a command of the model as the tests see it, walked
// from kong's nodes without the helpers the scripts are written with.
type modelCommand struct {
	path  []string            // words after tailfix
	subs  []string            // its commands' names
	flags []string            // every spelling of the flags it accepts, and -- before a command line
	enums map[string][]string // choices of its flags that have them
}

func modelCommands(app *kong.Application) []modelCommand {
	var out []modelCommand
	var walk func(n *kong.Node, path []string, inherited []*kong.Flag)
	walk = func(n *kong.Node, path []string, inherited []*kong.Flag) {
		c := modelCommand{path: path, enums: map[string][]string{}}
		var flags []*kong.Flag
		flags = append(flags, inherited...)
		for _, f := range n.Flags {
			if !f.Hidden {
				flags = append(flags, f)
			}
		}
		for _, f := range flags {
			c.flags = append(c.flags, "--"+f.Name)
			if f.Short != 0 {
				c.flags = append(c.flags, "-"+string(f.Short))
			}
			if f.Enum != "" {
				c.enums["--"+f.Name] = f.EnumSlice()
			}
		}
		for _, a := range n.Positional {
			if a.PassthroughMode != kong.PassThroughModeNone {
				c.flags = append(c.flags, "--")
				break
			}
		}
		for _, sub := range n.Children {
			if !sub.Hidden {
				c.subs = append(c.subs, sub.Name)
			}
		}
		out = append(out, c)
		for _, sub := range n.Children {
			if !sub.Hidden {
				walk(sub, append(slices.Clip(path), sub.Name), flags)
			}
		}
	}
	walk(app.Node, nil, nil)
	return out
}

func completionScript(t *testing.T, shell string) string {
	t.Helper()
	var stdout, stderr strings.Builder
	if code := run([]string{"completion", shell}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }); code != 0 {
		t.Fatalf("tailfix completion %s: exit status %d: %s", shell, code, stderr.String())
	}
	return stdout.String()
}

// Every command and every flag of the model is named in each script, so
// that a command added to cli without a completion fails here.
func TestCompletionNamesEveryCommandAndFlag(t *testing.T) {
	cmds := modelCommands(testModel(t))
	if len(cmds) < 10 {
		t.Fatalf("the model has %d commands, want tailfix's", len(cmds))
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			script := completionScript(t, shell)
			named := func(word string) bool {
				if shell == "fish" {
					// fish's complete names --flag as -l flag, -f as -s f.
					if long, ok := strings.CutPrefix(word, "--"); ok {
						word = "-l " + long
					} else if short, ok := strings.CutPrefix(word, "-"); ok {
						word = "-s " + short
					}
				}
				return regexp.MustCompile(`(^|[^\w-])` + regexp.QuoteMeta(word) + `($|[^\w-])`).MatchString(script)
			}
			for _, c := range cmds {
				for _, w := range slices.Concat(c.subs, c.flags) {
					if w != "--" && !named(w) {
						t.Errorf("%s: the script does not name %s (of tailfix %s)", shell, w, strings.Join(c.path, " "))
					}
				}
				for _, vals := range c.enums {
					for _, v := range vals {
						if !named(v) {
							t.Errorf("%s: the script does not name the choice %s", shell, v)
						}
					}
				}
			}
		})
	}
}

// completionQuery is a command line whose last word is completed, and
// what must be offered.
type completionQuery struct {
	words []string // after tailfix; the last is the word completed
	want  []string
}

// completionQueries asks, for every command of the model, for its
// commands, for its flags (after -), and for the choices of each flag
// that has them.
func completionQueries(app *kong.Application) []completionQuery {
	var qs []completionQuery
	for _, c := range modelCommands(app) {
		if len(c.subs) > 0 {
			qs = append(qs, completionQuery{append(slices.Clip(c.path), ""), c.subs})
		}
		qs = append(qs, completionQuery{append(slices.Clip(c.path), "-"), c.flags})
		for flag, vals := range c.enums {
			qs = append(qs, completionQuery{append(slices.Clip(c.path), flag, ""), vals})
		}
	}
	// Flags and their values before a command are skipped.
	qs = append(qs,
		completionQuery{[]string{"--format", "json", "--color", "never", "patterns", "l"}, []string{"learn", "lint", "list"}},
		completionQuery{[]string{"--output", "x.txt", "patterns", "list", "--severity", "f"}, []string{"fatal"}},
		completionQuery{[]string{"run", ""}, []string{"--"}},
	)
	return qs
}

// shellWord quotes a word of a query for the harnesses below.
func shellWord(w string) string {
	if w == "" {
		return "''"
	}
	return w
}

// Each harness defines t, which completes the words it is given (after
// tailfix) and prints what is offered on one line.
var completionHarness = map[string]string{
	"bash": `
t() {
    COMP_WORDS=(tailfix "$@"); COMP_CWORD=$#; COMPREPLY=()
    _tailfix 2>/dev/null
    echo "${COMPREPLY[*]}"
}
`,
	// zsh's completion system needs a terminal; its functions are stood in
	// for by ones that print what they were given.
	"zsh": `
compdef() { }
_describe() { local name=${@[-1]}; local -a arr; arr=("${(@P)name}"); arr=(${arr%%:*}); print -r -- ${(M)arr:#${PREFIX}*} }
compadd() { shift; print -r -- ${(M)@:#${PREFIX}*} }
_files() { print -r -- "(files $*)" }
_message() { print -r -- "(message $*)" }
compset() { }
_normal() { print -r -- "(normal)" }
t() { words=(tailfix "$@"); CURRENT=$#words; PREFIX=${words[CURRENT]}; _tailfix }
`,
	"fish": `
function t
    set -l offered (complete -C "tailfix $argv" | string replace -r '\t.*' '')
    printf '%s\n' "$offered"
end
`,
}

// The scripts complete as the model says, run by each shell that is
// installed: commands, flags and choices.
func TestCompletionScriptsComplete(t *testing.T) {
	app := testModel(t)
	qs := completionQueries(app)
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			sh, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed", shell)
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "tailfix."+shell)
			if err := os.WriteFile(file, []byte(completionScript(t, shell)), 0o644); err != nil {
				t.Fatal(err)
			}
			var prog strings.Builder
			prog.WriteString(completionHarness[shell] + "source " + file + "\n")
			for _, q := range qs {
				prog.WriteString("t")
				for _, w := range q.words {
					prog.WriteString(" " + shellWord(w))
				}
				prog.WriteString("\n")
			}
			cmd := exec.Command(sh, "-c", prog.String())
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", shell, err, out)
			}
			lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(lines) != len(qs) {
				t.Fatalf("%s printed %d lines for %d queries:\n%s", shell, len(lines), len(qs), out)
			}
			for i, q := range qs {
				got := strings.Fields(lines[i])
				slices.Sort(got)
				want := slices.Sorted(slices.Values(q.want))
				if !slices.Equal(got, want) {
					t.Errorf("%s: tailfix %s<TAB> offers %q, want %q", shell, strings.Join(q.words, " "), got, want)
				}
			}
		})
	}
}

// Each shell accepts its script's syntax.
func TestCompletionScriptsParse(t *testing.T) {
	for shell, check := range map[string][]string{
		"bash": {"-n"},
		"zsh":  {"-n"},
		"fish": {"--no-execute"},
	} {
		t.Run(shell, func(t *testing.T) {
			sh, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed", shell)
			}
			file := filepath.Join(t.TempDir(), "tailfix."+shell)
			if err := os.WriteFile(file, []byte(completionScript(t, shell)), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(sh, append(check, file)...).CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("%s %s: %v\n%s", shell, strings.Join(check, " "), err, out)
			}
		})
	}
}

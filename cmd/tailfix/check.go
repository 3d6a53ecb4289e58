package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/remedies"
)

type checkCmd struct {
	SglangVersion string   `name:"sglang-version" help:"The sglang release the command will run (0.4.6, 0.5.8.post1): flags and choices are judged against that release's. By default the command's Python interpreter (or python3) is asked for the installed sglang's version, without importing sglang; none: judge against the newest release tailfix knows." placeholder:"VERSION"`
	SglangSrc     string   `name:"sglang-src" help:"The installed sglang package's directory (the one holding srt/server_args.py), or a checkout of sglang: for a release newer than tailfix knows, its flags are read from there. By default the command's Python is asked where sglang is installed." placeholder:"DIR" type:"path"`
	Prefill       string   `help:"A prefill server's launch command, as one shell-quoted string; with --decode, the two are also checked against each other." placeholder:"CMD"`
	Decode        string   `help:"A decode server's launch command, as one shell-quoted string." placeholder:"CMD"`
	Command       []string `arg:"" optional:"" passthrough:"" name:"COMMAND" help:"The launch command, after --: python -m sglang.launch_server …, sglang serve … or launch_server.py …, with environment assignments before it if any; or a command that runs it (docker run … IMAGE python -m sglang.launch_server …, srun …, bash -c …), whose -e NAME=VALUE options are its environment."`
}

const checkUsage = "tailfix check -- python -m sglang.launch_server --model-path M …, or tailfix check --prefill 'CMD' --decode 'CMD'"

// Run checks a launch command (or a prefill and a decode command) against
// sglang's flag table and the rules, without running anything, and prints
// the findings as scan does.
func (c *checkCmd) Run(e *env) error {
	args := c.Command
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	pair := c.Prefill != "" || c.Decode != ""
	switch {
	case len(args) == 0 && !pair:
		return hintError{errors.New("check: no command given"), checkUsage}
	case len(args) > 0 && pair:
		return hintError{errors.New("check: give a command after --, or --prefill and --decode, not both"), checkUsage}
	}
	table, err := patterns.Flags()
	if err != nil {
		return err
	}
	version, src := c.SglangVersion, c.SglangSrc
	if version == "" {
		words := args
		if pair {
			words = strings.Fields(cmp.Or(c.Prefill, c.Decode))
		}
		if release, inImage := launch.ImageRelease(words); inImage {
			// The image's own Python runs the command: its tag is the
			// release when it names one, else the newest table.
			version = release
			e.log.Debug().Str("version", version).Msg("sglang of the container image")
		} else {
			var found string
			version, found = installedSglang(words)
			src = cmp.Or(src, found)
			e.log.Debug().Str("version", version).Str("source", found).Msg("installed sglang")
		}
	}
	if version != "none" {
		h, err := patterns.FlagHistories()
		if err != nil {
			return err
		}
		i, _ := h.Index(version)
		switch {
		case c.SglangSrc != "":
			// The user's own source says which flags there are, whatever
			// release it is.
			i = patterns.Newer
		case version == "":
		case i >= 0:
			table = table.At(h, i)
		case i == -1 && c.SglangVersion != "":
			return hintError{fmt.Errorf("check: --sglang-version %q: not a release tailfix knows", version),
				fmt.Sprintf("give a version such as 0.4.6 or 0.5.8.post1 (releases %s to %s), or none", h.Releases[0], h.Releases[len(h.Releases)-1])}
		}
		if i == patterns.Newer {
			// A release newer than the tables: its own flags, read from
			// its source when it can be found, else the newest table
			// that knows it may accept more.
			learnt, err := installedFlags(src, version)
			switch {
			case err == nil:
				table = learnt
			case c.SglangSrc != "":
				return fmt.Errorf("check: --sglang-src %q: %w", c.SglangSrc, err)
			default:
				if src != "" {
					e.log.Warn().Err(err).Str("source", src).Msg("could not read the installed sglang's flags")
				}
				table = table.ForNewer(version)
			}
		}
	}
	home, _ := os.UserHomeDir()
	opt := launch.Options{HFCache: launch.HubCache(e.getenv, home)}
	var issues []launch.Issue
	if pair {
		prefill, err := launch.ParseText(c.Prefill, "prefill command", table)
		if err != nil {
			return checkParseError(err)
		}
		decode, err := launch.ParseText(c.Decode, "decode command", table)
		if err != nil {
			return checkParseError(err)
		}
		issues = launch.CheckPair(prefill, decode, opt)
	} else {
		cmd, err := launch.ParseWords(args, "command line", table)
		if err != nil {
			return checkParseError(err)
		}
		issues = launch.Check(cmd, opt)
	}
	pack, err := e.loadRecords()
	if err != nil {
		return err
	}
	findings, err := diagnose.FromIssues(pack, issues)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if table.History != nil || table.Source != "" {
		// The user's own release: a fix it cannot take says so.
		for _, f := range findings {
			f.Flags = table
		}
	}
	what := "the launch command"
	if pair {
		what = "the launch commands"
	}
	if err := printCheck(e, findings, what); err != nil {
		return err
	}
	return e.verdict(findings)
}

// checkParseError gives an error of launch.ParseText or ParseWords its
// hint.
func checkParseError(err error) error {
	if errors.Is(err, launch.ErrQuote) {
		return hintError{fmt.Errorf("check: %w", err), "close the quote, or quote the command as a whole in single quotes"}
	}
	return hintError{fmt.Errorf("check: %w", err), checkUsage}
}

// loadRecords loads the hand-written records and any --patterns dirs,
// without compiling a matcher: check only looks records up by id. The
// generated records are added only when a --patterns record relates to
// one of them.
func (e *env) loadRecords() (*patterns.Pack, error) {
	pack, err := e.pack(patterns.Curated)
	if err != nil && len(e.patternDirs) > 0 {
		// A user's record may relate to a generated one.
		return e.pack(patterns.Builtin)
	}
	return pack, err
}

// printCheck writes the findings one by one, then a summary line; JSON
// writes the findings alone.
func printCheck(e *env, findings []*diagnose.Finding, what string) error {
	p := e.printer(e.stdout)
	if e.format == remedies.JSON {
		for _, f := range findings {
			if err := p.Finding(f); err != nil {
				return err
			}
		}
		return nil
	}
	out := e.findings(e.stdout)
	w := bufio.NewWriter(out)
	if len(findings) == 0 {
		fmt.Fprintf(w, "✓ no problems found in %s\n", what)
		return w.Flush()
	}
	if e.format == remedies.Markdown {
		fmt.Fprintf(w, "# tailfix check: %s\n\n", what)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for i, f := range findings {
		if i > 0 && e.format == remedies.Text {
			fmt.Fprintln(out)
		}
		if err := p.Finding(f); err != nil {
			return err
		}
	}
	var counts [patterns.SeverityFatal + 1]int
	for _, f := range findings {
		counts[f.Severity]++
	}
	var parts []string
	for s := patterns.SeverityFatal; s >= patterns.SeverityInfo; s-- {
		if counts[s] > 0 {
			word := s.String()
			if counts[s] > 1 && s != patterns.SeverityFatal {
				word += "s"
			}
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], word))
		}
	}
	noun := "problems"
	if len(findings) == 1 {
		noun = "problem"
	}
	if e.format == remedies.Text {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d %s in %s: %s\n", len(findings), noun, what, strings.Join(parts, ", "))
	return w.Flush()
}

// installedFlags reads the flag table of the sglang source at dir: the
// package directory, or a checkout holding it under python/sglang.
func installedFlags(dir, release string) (*patterns.FlagTable, error) {
	if dir == "" {
		return nil, errors.New("no sglang source found")
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, errors.Unwrap(err)
	} else if !st.IsDir() {
		return nil, errors.New("not a directory")
	}
	var err error
	for _, d := range []string{dir, filepath.Join(dir, "python", "sglang"), filepath.Join(dir, "sglang")} {
		var t *patterns.FlagTable
		if t, err = patterns.LearnFlagTable(os.DirFS(d), release); err == nil {
			t.Source = d
			return t, nil
		}
		if !errors.Is(err, patterns.ErrNoFlagFiles) {
			return nil, err
		}
	}
	return nil, err
}

// installedPy asks for the installed sglang's version (importlib.metadata)
// and its package directory (importlib.util.find_spec, which finds a
// top-level package without importing it).
const installedPy = `import importlib.metadata as m, importlib.util as u
print(m.version('sglang'))
s = u.find_spec('sglang')
print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')`

// installedSglang asks the Python interpreter a launch command runs (the
// command's own python, the interpreter of its sglang script, or python3)
// for the installed sglang's version and package directory, without
// importing sglang. It returns "" for what it cannot tell within two
// seconds.
func installedSglang(words []string) (version, src string) {
	py := "python3"
	for _, w := range words {
		if strings.Contains(w, "=") && !strings.HasPrefix(w, "-") {
			continue // an environment assignment before the command
		}
		switch base := filepath.Base(w); {
		case strings.HasPrefix(base, "python"):
			py = w
		case base == "sglang":
			if path, err := exec.LookPath(w); err == nil {
				if interp := shebang(path); interp != "" {
					py = interp
				}
			}
		}
		break
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, "-c", installedPy).Output()
	if err != nil {
		return "", ""
	}
	version, src, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(version), strings.TrimSpace(src)
}

// shebang returns the interpreter a script names on its first line.
func shebang(path string) string {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return "" // a pipe or a device would block, or never end
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	interp, ok := strings.CutPrefix(strings.TrimSpace(line), "#!")
	if !ok {
		return ""
	}
	fields := strings.Fields(interp)
	if len(fields) == 0 || filepath.Base(fields[0]) == "env" && len(fields) < 2 {
		return ""
	}
	if filepath.Base(fields[0]) == "env" {
		return fields[1]
	}
	return fields[0]
}

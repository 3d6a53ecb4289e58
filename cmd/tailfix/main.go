// Command tailfix reads sglang server logs and says what went wrong and
// exactly what to change.
//
// This file holds the command line: flags, the colour decision, the tool's
// own diagnostics and exit statuses. The commands are in their own files.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kong"
	"github.com/rs/zerolog"
	"golang.org/x/term"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/remedies"
)

// version is set at release time with -X main.version=…; otherwise it comes
// from the build info.
var version = ""

// commitDate is the date of the commit built, set at release time with
// -X main.commitDate=…; otherwise it comes from the build info, when the
// build recorded it. The man page is dated with it.
var commitDate = ""

func main() {
	// A write to a closed pipe returns EPIPE instead of killing tailfix,
	// so that `tailfix scan … | head` exits cleanly.
	signal.Ignore(syscall.SIGPIPE)
	if os.Getenv("GOMEMLIMIT") == "" {
		// tailfix runs beside the servers it reads, for days in follow:
		// the garbage of a flood of error lines is collected before the
		// heap doubles, for some more CPU.
		debug.SetMemoryLimit(memoryLimit)
	}
	stop := profile(os.Getenv("TAILFIX_CPUPROFILE"), os.Stderr)
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// profile writes a CPU profile of the whole run to path, when it is set,
// for `go tool pprof`; the function it returns ends the profile.
func profile(path string, stderr io.Writer) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tailfix: TAILFIX_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// memoryLimit is the soft limit of the Go heap unless GOMEMLIMIT sets one.
const memoryLimit = 100 << 20

// roomForPacks raises the heap's soft limit, when tailfix set it, by the
// bytes of the files under the --patterns dirs, or three times as many
// for a command that reads every record whole (whole): a pack's records
// keep what matching needs of them, and their automaton, in about as many
// bytes of heap as their files hold, and their whole text twice as many
// more. Under a limit below that the collector would run without end (a
// pack of 100,000 records took ten times as long to load).
func roomForPacks(dirs []string, whole bool) {
	if len(dirs) == 0 || debug.SetMemoryLimit(-1) != memoryLimit {
		return
	}
	var size int64
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if info, err := d.Info(); err == nil {
					size += info.Size()
				}
			}
			return nil // what cannot be read is reported by the loader
		})
	}
	if whole {
		size *= 3
	}
	debug.SetMemoryLimit(memoryLimit + size)
}

// Exit statuses.
const (
	exitOK       = 0 // nothing at or above --fail-on
	exitFound    = 1 // a finding at or above --fail-on
	exitUsageErr = 2 // usage or I/O error
)

// exitStatuses says what each exit status means, for the man page.
var exitStatuses = []struct{ status, meaning string }{
	{strconv.Itoa(exitOK), "Nothing at or above --fail-on (by default error) was found."},
	{strconv.Itoa(exitFound), "Something at or above --fail-on was found; for measure, a target of --min-top1 or --max-false-alarms was missed."},
	{strconv.Itoa(exitUsageErr), "A usage or I/O error: a command line tailfix rejects, a file it cannot read, input that is not a text log, an id no record has. A reader that closes the pipe early (tailfix scan … | head) is not one: the status is by what was found."},
	{"run", "run exits with the status of the command it ran: 128+N when signal N ended it, 127 when it cannot be found, 126 when it cannot be started."},
}

// errFound is returned by a command that found something at or above
// --fail-on.
var errFound = errors.New("findings at or above --fail-on")

// cli is the whole command line.
type cli struct {
	Format      string           `help:"Output format: ${enum}. brief is one line per finding, as a compiler reports: file:line: severity id: message → fix." default:"text" enum:"text,json,markdown,brief"`
	Brief       bool             `help:"The same as --format brief."`
	Color       string           `help:"Colour the text output: ${enum}. auto colours a terminal unless NO_COLOR is set." default:"auto" enum:"auto,always,never"`
	Patterns    []string         `help:"Also load the pattern records under DIR (YAML, seed JSON with schemaVersion 2, or a table patterns learn wrote). A record replaces a built-in one with the same id. Repeatable." placeholder:"DIR" name:"patterns"`
	FailOn      string           `help:"Exit with status 1 when a finding is at or above this severity: ${enum}." default:"error" enum:"info,warning,error,fatal,never" name:"fail-on"`
	LogLevel    string           `help:"Level of tailfix's own diagnostics on stderr: ${enum}." default:"warn" enum:"debug,info,warn,error" name:"log-level"`
	Output      string           `help:"Write findings to FILE instead of the terminal (stdout for scan, follow, check and explain; stderr for the pipe and run, whose stdout is the server's own output)." placeholder:"FILE"`
	ShowVersion kong.VersionFlag `name:"version" short:"V" help:"Print tailfix's version and exit."`

	Pipe    pipeCmd     `cmd:"" default:"1" help:"Read a log on stdin, pass it to stdout unchanged, and print hints on stderr as problems appear."`
	Scan    scanCmd     `cmd:"" help:"Report what went wrong in saved logs, root cause first."`
	Follow  followCmd   `cmd:"" help:"Follow live log files through rotation and truncation, and hint as problems appear."`
	RunCmd  runCmd      `cmd:"" name:"run" help:"Run a command (the server), pass its output through unchanged, hint as problems appear, and exit with its status."`
	Check   checkCmd    `cmd:"" help:"Check a launch command before running it: flags sglang would reject, and flag combinations that lead to known errors."`
	Explain explainCmd  `cmd:"" help:"Show what tailfix knows about an error: a pattern id, or text from a log."`
	PatCmd  patternsCmd `cmd:"" name:"patterns" help:"Inspect and test pattern packs."`
	Measure measureCmd  `cmd:"" help:"Measure tailfix on a corpus of logs with known diagnoses: top-1, any-hit and false alarms."`
	Version versionCmd  `cmd:"" help:"Print tailfix's version."`

	Completion completionCmd `cmd:"" help:"Print the completion script for a shell. Load it with: source <(tailfix completion bash) in ~/.bashrc; source <(tailfix completion zsh) in ~/.zshrc, after compinit; tailfix completion fish | source in ~/.config/fish/config.fish."`
	Man        manCmd        `cmd:"" help:"Print tailfix's man page (roff) to stdout: tailfix man > tailfix.1, or read it with tailfix man | man -l -."`
}

// env is what every command runs with: the streams, and what the global
// flags settled into.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	log            zerolog.Logger
	format         remedies.Format
	colorFlag      string // --color: auto, always or never
	getenv         func(string) string
	output         io.Writer         // --output, or nil
	failOn         patterns.Severity // 0: never fail
	patternDirs    []string
	// whole is set by a command that reads every record whole (patterns
	// list, test and lint), rather than those of what it finds.
	whole bool
}

// exitCode is panicked by kong's exit hook and recovered in run, so that
// --help returns from run instead of ending the process.
type exitCode int

const description = `tailfix reads sglang server logs and says what went wrong and exactly what to change.

  python -m sglang.launch_server … 2>&1 | tailfix     hints while the server runs
  tailfix run -- python -m sglang.launch_server …    the same, keeping the server's exit status
  tailfix follow '/var/log/sglang/*.log'             hints from running servers' log files
  tailfix scan server.log                            post-mortem report, root cause first
  tailfix explain sglang/pd-minimax-sparse-pp        what tailfix knows about an error

Exit status: 0 when nothing at or above --fail-on was found, 1 when something was, 2 on usage or I/O errors; run exits with the command's status.`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (code int) {
	var c cli
	defer func() {
		if r := recover(); r != nil {
			ec, ok := r.(exitCode)
			if !ok {
				panic(r)
			}
			code = int(ec)
		}
	}()
	parser, err := newParser(&c, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "tailfix: error: %s\n", remedies.Safe(err.Error()))
		return exitUsageErr
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "tailfix: error: %s\n", remedies.Safe(lowerFirst(err.Error())))
		fmt.Fprintf(stderr, "tailfix: hint: %s\n", remedies.Safe(usageHint(args)))
		return exitUsageErr
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, patternDirs: c.Patterns, colorFlag: c.Color, getenv: getenv}
	e.format, _ = remedies.ParseFormat(c.Format) // kong checked the enum
	if c.Brief {
		e.format = remedies.Brief
	}
	if c.Output != "" {
		f, err := os.Create(c.Output)
		if err != nil {
			fmt.Fprintf(stderr, "tailfix: error: cannot write findings to %q: %s\n", c.Output, remedies.Safe(fmt.Sprint(unwrapPath(err))))
			return exitUsageErr
		}
		defer func() {
			if err := f.Close(); err != nil && code != exitUsageErr {
				fmt.Fprintf(stderr, "tailfix: error: write %q: %s\n", c.Output, remedies.Safe(fmt.Sprint(unwrapPath(err))))
				code = exitUsageErr
			}
		}()
		e.output = f
	}
	if c.FailOn != "never" {
		e.failOn, _ = patterns.ParseSeverity(c.FailOn)
	}
	lvl, _ := zerolog.ParseLevel(c.LogLevel)
	e.log = zerolog.New(zerolog.ConsoleWriter{Out: remedies.SafeWriter(stderr), NoColor: true, PartsExclude: []string{zerolog.TimestampFieldName}}).
		Level(lvl).With().Str("component", "tailfix").Logger()

	err = ctx.Run(e)
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errFound):
		return exitFound
	case errors.Is(err, syscall.EPIPE):
		return exitOK // the reader went away: not an error
	case errors.As(err, new(exitStatus)):
		var st exitStatus
		errors.As(err, &st)
		return int(st) // run: the child's status
	case errors.As(err, new(silentError)):
		return exitUsageErr
	}
	fmt.Fprintf(stderr, "tailfix: error: %s\n", remedies.Safe(err.Error()))
	var he hintError
	if errors.As(err, &he) {
		fmt.Fprintf(stderr, "tailfix: hint: %s\n", he.hint)
	}
	return exitUsageErr
}

// newParser builds the command line's model over c. Its help is what
// --help prints, and what the completion scripts and the man page are
// written from.
func newParser(c *cli, stdout, stderr io.Writer) (*kong.Kong, error) {
	return kong.New(c,
		kong.Name("tailfix"),
		kong.Description(description),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(exitCode(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"version": "tailfix " + buildVersion()},
	)
}

// hintError is an error with advice printed after it.
type hintError struct {
	err  error
	hint string
}

func (h hintError) Error() string { return h.err.Error() }
func (h hintError) Unwrap() error { return h.err }

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// decideColor settles colour for one writer: always and never win; auto
// colours only a terminal, and only when NO_COLOR is unset or empty.
func decideColor(flag string, w io.Writer, getenv func(string) string) bool {
	switch flag {
	case "always":
		return true
	case "never":
		return false
	}
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// isTerminal reports whether w writes to a terminal.
func isTerminal(w io.Writer) bool {
	fd, ok := fdOf(w)
	return ok && term.IsTerminal(fd)
}

// fdOf is the file descriptor behind w, if it has one.
func fdOf(w io.Writer) (int, bool) {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok || f.Fd() == ^uintptr(0) {
		return 0, false
	}
	return int(f.Fd()), true
}

// terminalWidth is the width to wrap the text written to w at: COLUMNS
// when set, else the terminal's width, else 100; at most 120.
func terminalWidth(w io.Writer, getenv func(string) string) int {
	if n, ok := columns(w, getenv); ok {
		return min(n, 120)
	}
	return 100
}

// columns is the width COLUMNS states, else the width of the terminal
// behind w; ok is false when neither says.
func columns(w io.Writer, getenv func(string) string) (n int, ok bool) {
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 0 {
		return n, true
	}
	if fd, ok := fdOf(w); ok {
		if n, _, err := term.GetSize(fd); err == nil && n > 0 {
			return n, true
		}
	}
	return 0, false
}

// compileMatcher builds the automaton of a pack: matcher.Compile, which a
// test replaces to see which commands build it.
var compileMatcher = matcher.Compile

// load builds the matcher from the built-in pack and any --patterns dirs.
func (e *env) load() (*matcher.Matcher, error) {
	start := time.Now()
	pack, err := e.pack(patterns.Builtin)
	if err != nil {
		return nil, err
	}
	m, err := compileMatcher(pack)
	if err != nil {
		return nil, err
	}
	e.log.Debug().Int("records", len(pack.Records)).Dur("took", time.Since(start)).Msg("patterns loaded")
	return m, nil
}

// pack loads a built-in pack and adds the --patterns dirs to it.
func (e *env) pack(builtin func() (*patterns.Pack, error)) (*patterns.Pack, error) {
	roomForPacks(e.patternDirs, e.whole)
	pack, err := builtin()
	if err != nil {
		return nil, fmt.Errorf("built-in patterns: %w", err)
	}
	for _, dir := range e.patternDirs {
		extra, err := patterns.LoadDir(dir)
		if err != nil {
			return nil, hintError{fmt.Errorf("load patterns from %q: %w", dir, err),
				"fix the record named above, or leave out --patterns " + dir}
		}
		for _, r := range extra.Records {
			// A user's record may mean to replace a built-in one, but it
			// should not do so unseen: a lower severity can silence a
			// real error.
			if old := pack.Lookup(r.ID); old != nil && r.Gen == nil {
				ev := e.log.Warn().Str("record", r.ID).Str("patterns", dir)
				if r.Severity < old.Severity {
					ev = ev.Str("severity", fmt.Sprintf("%s, was %s", r.Severity, old.Severity))
				}
				ev.Msg("a record of --patterns replaces the built-in record of the same id")
			}
		}
		if pack, err = pack.With(extra); err != nil {
			return nil, fmt.Errorf("load patterns from %q: %w", dir, err)
		}
	}
	return pack, nil
}

// findings is where findings go: --output when given, else w.
func (e *env) findings(w io.Writer) io.Writer {
	if e.output != nil {
		return e.output
	}
	return w
}

// printer renders findings to w (or to --output), with colour and width
// decided for the writer it writes.
func (e *env) printer(w io.Writer) *remedies.Printer {
	return e.printerWith(w, false)
}

// printerWith is printer, labelling each finding with its input when
// sources is true.
func (e *env) printerWith(w io.Writer, sources bool) *remedies.Printer {
	w = e.findings(w)
	return remedies.NewPrinter(w, remedies.Options{Format: e.format,
		Color: decideColor(e.colorFlag, w, e.getenv), Width: terminalWidth(w, e.getenv), Sources: sources})
}

// verdict is errFound when a finding is at or above --fail-on.
func (e *env) verdict(findings []*diagnose.Finding) error {
	if e.failOn == 0 {
		return nil
	}
	for _, f := range findings {
		if f.Severity >= e.failOn {
			return errFound
		}
	}
	return nil
}

// usageHint is what to say after a command line kong rejected: what the
// user most likely meant, or where the usage is.
func usageHint(args []string) string {
	var words []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			words = append(words, a)
		}
	}
	switch {
	case len(args) > 1 && args[0] == "--":
		return "to run a server under tailfix: tailfix run -- " + strings.Join(args[1:], " ")
	case len(words) > 0 && isFile(words[0]):
		return "to diagnose a saved log: tailfix scan " + strings.Join(words, " ")
	}
	return "run 'tailfix --help' for usage"
}

// isFile reports whether name is a file that exists.
func isFile(name string) bool {
	st, err := os.Stat(name)
	return err == nil && !st.IsDir()
}

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	_, err := fmt.Fprintf(e.stdout, "tailfix %s\n", buildVersion())
	return err
}

func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " (" + s.Value[:12] + ")"
		}
	}
	if v == "" {
		v = "(devel)"
	}
	return v
}

// buildDate is the date of the commit built, as YYYY-MM-DD, or "" when
// the build does not know it.
func buildDate() string {
	d := commitDate
	if info, ok := debug.ReadBuildInfo(); ok && d == "" {
		for _, s := range info.Settings {
			if s.Key == "vcs.time" {
				d = s.Value
			}
		}
	}
	if len(d) < len("2006-01-02") {
		return ""
	}
	return d[:len("2006-01-02")]
}

// Command gen writes tailfix's generated pattern pack from the facts the
// history tool (patterns/internal/history) read from sglang's git history:
// every message of every release, and the newest release's flags.
//
//	go generate ./patterns
//
// It writes patterns/generated/curated.gob (the hand-written records,
// parsed), patterns/generated/sites.tsv (one record per distinct message,
// made by patterns.BuildTable, the builder `tailfix patterns learn` uses
// too), patterns/generated/flags.tsv (the flag table) and
// patterns/generated/README.md (what was left out, and why).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tailfix/tailfix/patterns"
)

type serverArg struct {
	Flag       []string `json:"flag"`
	Action     string   `json:"action"`
	Nargs      any      `json:"nargs"`
	Dest       string   `json:"dest"`
	Type       *string  `json:"type"`
	Default    any      `json:"default"`
	Choices    []any    `json:"choices"`
	Help       string   `json:"help"`
	Deprecated bool     `json:"deprecated"`
	DefinedAt  string   `json:"defined_at"`
}

func main() {
	argsPath := flag.String("args", "generated/flags-newest.jsonl", "the newest release's flag table (flags-newest.jsonl, written by patterns/internal/history)")
	histPath := flag.String("history", "generated/history.tsv", "history.tsv written by patterns/internal/history")
	out := flag.String("out", "generated", "output directory")
	flag.Parse()
	if err := writeCurated(filepath.Join(*out, "curated.gob")); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := run(*argsPath, *histPath, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// writeCurated parses and validates the hand-written records (the YAML
// files of the current directory, the patterns package) and writes them in
// the form the binary embeds.
func writeCurated(path string) error {
	pack, err := patterns.LoadSources(os.DirFS("."))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := patterns.EncodeCurated(&b, pack); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func run(argsPath, histPath, out string) error {
	args, err := readJSONL[serverArg](argsPath)
	if err != nil {
		return err
	}
	msgs, newest, err := readHistory(histPath)
	if err != nil {
		return err
	}
	flags := make([]*patterns.Flag, 0, len(args))
	for _, a := range args {
		flags = append(flags, &patterns.Flag{Names: a.Flag, Dest: a.Dest})
	}
	table, st := patterns.BuildTable(msgs, patterns.NewFlagTable(flags, newest), patterns.TableSource{Repo: "sgl-project/sglang"})
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "sites.tsv"), table, 0o644); err != nil {
		return err
	}
	if err := writeFlags(filepath.Join(out, "flags.tsv"), args, newest); err != nil {
		return err
	}
	return writeReadme(filepath.Join(out, "README.md"), st)
}

// readHistory reads the history's messages, those the newest release
// prints first (a message both an older and the newest release print is
// the newest's), each with its last release's commit, and the newest
// release's label.
func readHistory(path string) ([]patterns.Message, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	newest := ""
	commitOf := map[string]string{}
	var current, old []patterns.Message
	for n, line := range strings.Split(string(b), "\n") {
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "#release\t"):
			f := strings.Split(line, "\t")
			if len(f) >= 3 {
				commitOf[f[1]] = f[2]
				newest = f[1]
			}
			continue
		case line[0] == '#':
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 13 {
			return nil, "", fmt.Errorf("%s:%d: %d fields, want 13", path, n+1, len(f))
		}
		for i := range f {
			f[i] = patterns.UnescapeTSV(f[i])
		}
		lineNo, _ := strconv.Atoi(f[9])
		nsites, _ := strconv.Atoi(f[12])
		m := patterns.Message{Kind: f[0], Class: f[1], Regex: f[2], Template: f[3], First: f[4], Last: f[5],
			RemovedIn: f[6], RemovedBy: f[7], File: f[8], Line: lineNo, Function: f[10], Guard: f[11], Sites: nsites}
		if m.Last != "" {
			m.Commit = commitOf[m.Last]
			old = append(old, m)
		} else {
			m.Commit = commitOf[newest]
			current = append(current, m)
		}
	}
	return append(current, old...), newest, nil
}

func readJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func writeFlags(path string, args []serverArg, release string) error {
	var b strings.Builder
	if release != "" {
		fmt.Fprintf(&b, "# release\t%s\n", release)
	}
	b.WriteString("# flags\tdest\ttype\tdefault\tchoices\tdeprecated\tdefined_at\thelp\taction\tnargs\n")
	for _, a := range args {
		def := ""
		if a.Default != nil {
			d, _ := json.Marshal(a.Default)
			def = string(d)
		}
		var choices []string
		for _, c := range a.Choices {
			choices = append(choices, fmt.Sprint(c))
		}
		nargs := ""
		if a.Nargs != nil {
			nargs = fmt.Sprint(a.Nargs)
		}
		fields := []string{strings.Join(a.Flag, " "), a.Dest, deref(a.Type), def,
			strings.Join(choices, "|"), fmt.Sprint(a.Deprecated), a.DefinedAt, a.Help, a.Action, nargs}
		for i, f := range fields {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(patterns.EscapeTSV(f))
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func writeReadme(path string, st patterns.BuildStats) error {
	kinds, skipped := st.Kinds, st.Skipped
	var b strings.Builder
	b.WriteString("# generated\n\nWritten by `go generate ./patterns` (patterns/internal/gen); do not edit.\n\n")
	b.WriteString("- `history.tsv`, `flag-history.tsv` and `flags-newest.jsonl` are written by patterns/internal/history from sglang's\n")
	b.WriteString("  git history (run it with `-repo` pointing at a clone with history): every release, each\n")
	b.WriteString("  Python file read with the project's own reader (the one `tailfix patterns learn` uses).\n")
	b.WriteString("- `curated.gob` is the hand-written records (`patterns/*/*.yaml`), parsed and validated, as\n")
	b.WriteString("  the binary embeds them: decoding it is quicker than parsing the YAML at start-up.\n")
	b.WriteString("- `sites.tsv` holds one record per distinct message sglang raises or logs in any release,\n")
	b.WriteString("  with the releases that print it, generated from `history.tsv`.\n")
	b.WriteString("- `flags.tsv` is every `launch_server` flag of the newest release, with its type, default\n")
	b.WriteString("  and help, from `flags-newest.jsonl` (argparse calls and the declarative ServerArgs fields,\n")
	b.WriteString("  read from the source); `flag-history.tsv` gives each flag and literal choice the releases\n")
	b.WriteString("  that accept it.\n\n")
	fmt.Fprintf(&b, "- sites of the newest release with a message: %d\n- records: %d, of which %d are of messages only older releases print (", st.Current, st.Records, st.Old)
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, kinds[k])
	}
	b.WriteString(")\n- left out or merged:\n")
	var reasons []string
	for k := range skipped {
		reasons = append(reasons, k)
	}
	slices.Sort(reasons)
	for _, k := range reasons {
		fmt.Fprintf(&b, "  - %s: %d\n", k, skipped[k])
	}
	fmt.Fprintf(&b, "\nThe rule for messages too generic to recognise safely: a message is kept only when its\n"+
		"regex has a run of literal text of at least %d bytes. A message of several lines is matched\n"+
		"by its first line.\n", patterns.MinLiteral)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

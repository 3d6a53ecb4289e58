// Package packgen writes packs of user records, for measuring what a
// large --patterns pack costs to load and to scan with (scripts/genpack,
// and the benchmarks of loading one).
//
// The records are written in the YAML form of the built-in ones, as a
// user or a tool writing a pack for a product built on sglang would: each
// is derived from a message sglang raises (the built-in generated
// records), with a word or two of its regexp changed to another word seen
// in sglang's messages, an exception class of its own (the one raised, or
// another of Python's or a plugin's), a title, a cause, steps and a site.
// About a quarter are matched by a literal message rather than a regexp.
// Each record's own test lines are the message instantiated, and a near
// miss when there is one: `tailfix patterns test --patterns DIR` passes.
package packgen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tailfix/tailfix/patterns"
)

// Write writes a pack of n records to dir/ext, perFile records to a
// file; the records are the same for the same seed.
func Write(dir string, n, perFile int, seed uint64) error {
	files, err := Files(n, perFile, seed)
	if err != nil {
		return err
	}
	for name, data := range files {
		name = filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Files returns the pack Write writes, as file contents by slash-separated
// name (ext/pack-0000.yaml, …), for patterns.Load of a fstest.MapFS.
func Files(n, perFile int, seed uint64) (map[string][]byte, error) {
	base, err := patterns.GeneratedRecords()
	if err != nil {
		return nil, err
	}
	// Messages sglang raises, with a sample line that the regexp matches.
	var srcs []*patterns.Record
	for _, r := range base {
		if r.Match.Regex != "" && r.Match.Frame == "" && len(r.Tests.Match) > 0 && r.Gen != nil &&
			(r.Gen.Kind == "raise" || r.Gen.Kind == "assert") {
			srcs = append(srcs, r)
		}
	}
	if len(srcs) == 0 {
		return nil, fmt.Errorf("no generated records to derive from")
	}
	vocab := words(srcs)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	g := &gen{rng: rng, vocab: vocab, seen: map[string]bool{}}
	files := map[string][]byte{}
	var w *bytes.Buffer
	flush := func(k int) {
		if w != nil {
			files[fmt.Sprintf("ext/pack-%04d.yaml", k)] = w.Bytes()
		}
	}
	written := 0
	for tries := 0; written < n; tries++ {
		if tries > 50*n+1000 {
			return nil, fmt.Errorf("only %d distinct records found of %d", written, n)
		}
		src := srcs[rng.IntN(len(srcs))]
		rec, ok := g.derive(src, written)
		if !ok {
			continue
		}
		if written%perFile == 0 {
			flush(written/perFile - 1)
			w = new(bytes.Buffer)
			fmt.Fprintf(w, "# Records of a plugin's errors, written by genpack (seed %d).\n\n", seed)
		}
		writeRecord(w, rec)
		written++
	}
	flush((written - 1) / perFile)
	return files, nil
}

// record is what is written of one record.
type record struct {
	id, title, severity, exception string
	message, regex                 string
	file, function                 string
	cause                          string
	steps                          []string
	tags                           []string
	match, noMatch                 []string
}

type gen struct {
	rng   *rand.Rand
	vocab []string
	seen  map[string]bool // regexps and messages written
}

// wordRE finds the words of a regexp that are plain text in it, and that
// a swap cannot turn into syntax.
var wordRE = regexp.MustCompile(`\b[a-z][a-z]{3,}\b`)

// words are the plain lowercase words of the messages, each once.
func words(recs []*patterns.Record) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range recs {
		for _, w := range wordRE.FindAllString(r.Tests.Match[0], -1) {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	slices.Sort(out)
	return out
}

var classes = []string{
	"ValueError", "RuntimeError", "KeyError", "TypeError", "AssertionError", "NotImplementedError",
	"IndexError", "AttributeError", "OSError", "FileNotFoundError", "TimeoutError", "ConnectionError",
	"PermissionError", "ImportError", "ModuleNotFoundError", "ZeroDivisionError", "OverflowError",
	"torch.OutOfMemoryError", "torch.AcceleratorError", "json.JSONDecodeError", "asyncio.TimeoutError",
	"pydantic.ValidationError", "fastapi.HTTPException", "PluginError", "ConfigError", "DeploymentError",
	"acme_serving.errors.RoutingError", "acme_serving.errors.AdmissionError", "acme_serving.kv.TransferError",
}

var families = []string{"acme", "gateway", "plugin", "ops", "infra", "serving", "kv", "router", "batch", "lora"}

var sevs = []string{"error", "error", "error", "warning", "fatal", "info"}

// derive makes a record from a message sglang raises: one or two of its
// words swapped for others, in the regexp and in the sample alike; false
// when the result is not new or its sample no longer matches.
func (g *gen) derive(src *patterns.Record, i int) (*record, bool) {
	regex := src.Match.Regex
	_, sample, _ := strings.Cut(src.Tests.Match[0], ": ")
	if src.Match.Exception == "" {
		sample = src.Tests.Match[0]
	}
	ws := wordRE.FindAllString(regex, -1)
	var cand []string
	for _, w := range ws {
		if strings.Contains(sample, w) {
			cand = append(cand, w)
		}
	}
	if len(cand) == 0 {
		return nil, false
	}
	for k := 0; k < 1+g.rng.IntN(2); k++ {
		old := cand[g.rng.IntN(len(cand))]
		repl := g.vocab[g.rng.IntN(len(g.vocab))]
		oldRE := regexp.MustCompile(`\b` + old + `\b`)
		regex = oldRE.ReplaceAllLiteralString(regex, repl)
		sample = oldRE.ReplaceAllLiteralString(sample, repl)
	}
	re, err := regexp.Compile(regex)
	if err != nil || !re.MatchString(sample) || g.seen[regex] {
		return nil, false
	}
	g.seen[regex] = true
	class := src.Match.Exception
	if class == "" || g.rng.IntN(3) == 0 {
		class = classes[g.rng.IntN(len(classes))]
	}
	fam := families[g.rng.IntN(len(families))]
	rec := &record{
		id:        fmt.Sprintf("%s/%s-%d", fam, slug(sample), i),
		title:     title(sample),
		severity:  sevs[g.rng.IntN(len(sevs))],
		exception: class,
		file:      "acme_serving/" + strings.TrimPrefix(src.Where.File, "python/sglang/"),
		function:  src.Where.Function,
		cause: "The " + fam + " layer refused the request or the configuration it was given: " +
			"the message names what it found and what it expected. It is raised before any work is done.",
		steps: []string{
			"Read the values the message names and compare them with the deployment's configuration.",
			"Fix the configuration or the request, and restart the " + fam + " service.",
		},
		tags:  []string{fam, "plugin"},
		match: []string{class + ": " + sample},
	}
	// A quarter are matched by a literal: the sample's longest run of
	// text between placeholders, as a hand-written record quotes it.
	if g.rng.IntN(4) == 0 {
		if lit := longestLiteral(sample, re); len(lit) >= 16 && !g.seen[lit] {
			g.seen[lit] = true
			rec.message = lit
		}
	}
	if rec.message == "" {
		rec.regex = regex
	}
	// What the loader would refuse (a regexp left with no literal to
	// prefilter on) is not written.
	check := patterns.Record{ID: rec.id, Title: rec.title, Severity: patterns.SeverityError,
		Match: patterns.Match{Exception: class, Message: rec.message, Regex: rec.regex},
		Tests: patterns.Tests{Match: rec.match}}
	if check.Validate() != nil {
		return nil, false
	}
	// The message sglang raises is a near miss, when the swap changed it
	// so that the record no longer matches it.
	if miss := src.Tests.Match[0]; !re.MatchString(miss) && (rec.message == "" || !strings.Contains(miss, rec.message)) {
		rec.noMatch = []string{miss}
	}
	return rec, true
}

// longestLiteral is the longest run of words of sample that the regexp
// requires as it stands, or "".
func longestLiteral(sample string, re *regexp.Regexp) string {
	best := ""
	for _, part := range regexp.MustCompile(`[0-9'"{}()\[\]]`).Split(sample, -1) {
		part = strings.TrimSpace(part)
		if len(part) > len(best) && strings.Contains(re.String(), regexp.QuoteMeta(part)) {
			best = part
		}
	}
	return best
}

// slug makes an id part of a message's first words.
func slug(s string) string {
	ws := wordRE.FindAllString(strings.ToLower(s), 4)
	if len(ws) == 0 {
		return "error"
	}
	return strings.Join(ws, "-")
}

// title is a message's first words, capitalised, without placeholders.
func title(s string) string {
	ws := strings.Fields(s)
	if len(ws) > 8 {
		ws = ws[:8]
	}
	t := strings.Join(ws, " ")
	if t == "" {
		return "A plugin error"
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// writeRecord writes one record as a block list item at the margin.
func writeRecord(w *bytes.Buffer, r *record) {
	fmt.Fprintf(w, "- id: %s\n", r.id)
	fmt.Fprintf(w, "  title: %s\n", q(r.title))
	fmt.Fprintf(w, "  severity: %s\n", r.severity)
	fmt.Fprintf(w, "  match:\n    exception: %s\n", r.exception)
	if r.message != "" {
		fmt.Fprintf(w, "    message: %s\n", q(r.message))
	} else {
		fmt.Fprintf(w, "    regex: %s\n", q(r.regex))
	}
	fmt.Fprintf(w, "  where: {repo: acme/serving, file: %s, function: %s}\n", q(r.file), q(r.function))
	fmt.Fprintf(w, "  cause: >-\n    %s\n", r.cause)
	fmt.Fprintf(w, "  fix:\n    steps:\n")
	for _, s := range r.steps {
		fmt.Fprintf(w, "      - %s\n", q(s))
	}
	fmt.Fprintf(w, "  tags: [%s]\n", strings.Join(r.tags, ", "))
	fmt.Fprintf(w, "  tests:\n    match:\n")
	for _, s := range r.match {
		fmt.Fprintf(w, "      - %s\n", q(s))
	}
	if len(r.noMatch) > 0 {
		fmt.Fprintf(w, "    no_match:\n")
		for _, s := range r.noMatch {
			fmt.Fprintf(w, "      - %s\n", q(s))
		}
	}
	w.WriteString("\n")
}

// q quotes a string for YAML: single quotes, a quote doubled, when it
// holds nothing but printable text; else a double-quoted Go string, which
// YAML reads alike for the escapes Go writes.
func q(s string) string {
	printable := true
	for _, r := range s {
		if r < ' ' || r == 0x7f || r == '\u2028' || r == '\u2029' || r == '\ufeff' {
			printable = false
			break
		}
	}
	if printable {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return strconv.Quote(s)
}

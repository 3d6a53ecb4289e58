package patterns

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The launch flags of every sglang release and their literal choices, as
// patterns/internal/history read them from sglang's git history.
//
//go:embed generated/flag-history.tsv
var generatedFlagHistory string

// FlagHistory says which sglang releases accept each launch flag and each
// literal choice of one.
type FlagHistory struct {
	// Releases are the releases read, oldest first; the last is the one
	// the flag table is of. A label is a version ("0.4.3.post2") or a
	// sample of main after the last release the history knows ("main
	// 2026-05").
	Releases []string
	spans    map[string][2]int // name and choice → first and last release index
	names    []string          // every spelling any release accepts
	switches map[string]bool   // spellings that take no value
	replaced map[string]string // a removed flag → the flag its help named in its place
}

// ReplacedBy is the flag a removed flag's help named in its place, as of
// its last release ("--attention-backend" for --disable-flashinfer), or "".
func (h *FlagHistory) ReplacedBy(name string) string { return h.replaced[name] }

// Switch reports whether a flag takes no value, as of the last release
// that accepts it.
func (h *FlagHistory) Switch(name string) bool { return h.switches[name] }

// Span returns the first and last release index that accept a flag, or
// with choice non-empty one of its choices.
func (h *FlagHistory) Span(name, choice string) (first, last int, ok bool) {
	s, ok := h.spans[name+"\x00"+choice]
	return s[0], s[1], ok
}

// Names returns every flag spelling any release accepts.
func (h *FlagHistory) Names() []string { return h.names }

// Newer is the release index Index returns for a version newer than every
// release the history knows by number: its place among the samples of main
// is unknown.
const Newer = -2

// Index returns the release a version is: its index when the history
// lists it (exact), else the newest release of a lower version (not
// exact); Newer for a version past every numbered release; -1 for a
// version it cannot read.
func (h *FlagHistory) Index(version string) (i int, exact bool) {
	version = strings.TrimPrefix(strings.TrimSpace(version), "v")
	for k, r := range h.Releases {
		if r == version {
			return k, true
		}
	}
	v, ok := parseVersion(version)
	if !ok {
		return -1, false
	}
	best, newest := -1, -1
	for k, r := range h.Releases {
		rv, ok := parseVersion(r)
		if !ok {
			continue
		}
		newest = k
		if !versionLess(v, rv) {
			best = k
		}
	}
	if best == newest && best >= 0 {
		return Newer, false
	}
	return best, false
}

// version is a release number: major, minor, patch, then a stage (-1 for
// rcN, 0 for a final release, 1 for .postN) and its number.
type version [5]int

func parseVersion(s string) (version, bool) {
	var v version
	main, rest := s, ""
	for _, sep := range []string{".post", "rc"} {
		if i := strings.Index(s, sep); i >= 0 {
			main, rest = s[:i], s[i:]
			break
		}
	}
	parts := strings.Split(main, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	switch {
	case strings.HasPrefix(rest, ".post"):
		v[3] = 1
		rest = rest[len(".post"):]
	case strings.HasPrefix(rest, "rc"):
		v[3] = -1
		rest = rest[len("rc"):]
	}
	if rest != "" {
		n, err := strconv.Atoi(rest)
		if err != nil {
			return v, false
		}
		v[4] = n
	}
	return v, true
}

func versionLess(a, b version) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

var flagHistory = sync.OnceValues(func() (*FlagHistory, error) {
	return parseFlagHistory(generatedFlagHistory)
})

// FlagHistories returns the flag history embedded at generate time.
func FlagHistories() (*FlagHistory, error) { return flagHistory() }

func parseFlagHistory(text string) (*FlagHistory, error) {
	h := &FlagHistory{spans: map[string][2]int{}, switches: map[string]bool{}, replaced: map[string]string{}}
	index := map[string]int{}
	seen := map[string]bool{}
	for n, line := range strings.Split(text, "\n") {
		if rel, ok := strings.CutPrefix(line, "#release\t"); ok {
			index[rel] = len(h.Releases)
			h.Releases = append(h.Releases, rel)
			continue
		}
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 && len(f) != 6 {
			return nil, fmt.Errorf("patterns/generated/flag-history.tsv:%d: %d fields, want 5 or 6", n+1, len(f))
		}
		if len(f) == 6 {
			h.replaced[untsv(f[0])] = untsv(f[5])
		}
		first, ok := index[f[2]]
		if !ok {
			return nil, fmt.Errorf("patterns/generated/flag-history.tsv:%d: unknown release %q", n+1, f[2])
		}
		last := len(h.Releases) - 1
		if f[3] != "" {
			if last, ok = index[f[3]]; !ok {
				return nil, fmt.Errorf("patterns/generated/flag-history.tsv:%d: unknown release %q", n+1, f[3])
			}
		}
		name, choice := untsv(f[0]), untsv(f[1])
		h.spans[name+"\x00"+choice] = [2]int{first, last}
		if choice == "" && !seen[name] {
			seen[name] = true
			h.names = append(h.names, name)
			h.switches[name] = f[4] == "switch"
		}
	}
	return h, nil
}

// At returns the flag table of release i of h: the flags and literal
// choices that release accepts. A flag of the table the history does not
// know is kept as it is; a flag only older releases had is added with what
// the history knows of it (its spellings, choices, and whether it takes a
// value). For i outside h's releases it returns t.
func (t *FlagTable) At(h *FlagHistory, i int) *FlagTable {
	if h == nil || i < 0 || i >= len(h.Releases) {
		return t
	}
	covers := func(name, choice string) (known, ok bool) {
		first, last, known := h.Span(name, choice)
		return known, !known || first <= i && i <= last
	}
	out := &FlagTable{Release: h.Releases[i], History: h, byName: map[string]*Flag{}}
	taken := map[string]bool{}
	for _, fl := range t.Flags {
		var names []string
		for _, n := range fl.Names {
			if _, ok := covers(n, ""); ok {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			continue
		}
		c := *fl
		c.Names = names
		c.Choices = nil
		for _, ch := range fl.Choices {
			if _, ok := covers(fl.Names[0], ch); ok {
				c.Choices = append(c.Choices, ch)
			}
		}
		c.Choices = append(c.Choices, h.choicesAt(fl.Names[0], i, c.Choices)...)
		out.add(&c)
		for _, n := range fl.Names {
			taken[n] = true
		}
	}
	for _, n := range h.names {
		if taken[n] {
			continue
		}
		if first, last, _ := h.Span(n, ""); first > i || i > last {
			continue
		}
		fl := &Flag{Names: []string{n}, Dest: strings.ReplaceAll(strings.TrimLeft(n, "-"), "-", "_"), Choices: h.choicesAt(n, i, nil)}
		if h.Switch(n) {
			fl.Action = "store_true"
		}
		out.add(fl)
	}
	return out
}

// choicesAt returns the literal choices of a flag release i accepts that
// are not in have.
func (h *FlagHistory) choicesAt(name string, i int, have []string) []string {
	var out []string
	prefix := name + "\x00"
	for k, s := range h.spans {
		ch, ok := strings.CutPrefix(k, prefix)
		if !ok || ch == "" || s[0] > i || i > s[1] || slices.Contains(have, ch) || slices.Contains(out, ch) {
			continue
		}
		out = append(out, ch)
	}
	slices.Sort(out)
	return out
}

// Lacks reports whether the table, of the user's own release (At, or
// LearnFlagTable of their installed sglang), lacks a flag that other
// releases of sglang have, and says which releases do ("releases since
// 0.5.3rc2", "0.3.0 to 0.4.6; 0.4.7 removed it"; empty when only the
// newest table knows it).
// A flag no release has is no lack of this one's: it is not sglang's.
func (t *FlagTable) Lacks(name string) (span string, lacks bool) {
	if t.Lookup(name) != nil || t.History == nil && t.Source == "" {
		return "", false
	}
	if h := t.History; h != nil {
		first, last, ok := h.Span(name, "")
		if !ok {
			return "", false
		}
		if last == len(h.Releases)-1 {
			return "releases since " + h.Releases[first], true
		}
		span = h.Releases[first] + " to " + h.Releases[last] + "; " + h.Releases[last+1] + " removed it"
		if repl := h.ReplacedBy(name); repl != "" && t.Lookup(strings.SplitN(repl, "=", 2)[0]) != nil {
			span += ", naming " + repl + " in its place"
		}
		return span, true
	}
	newest, err := Flags()
	if err != nil || newest.Lookup(name) == nil {
		return "", false
	}
	return "", true
}

// replacementRE finds the flags a help text names.
var replacementRE = regexp.MustCompile(`--[a-z0-9][a-z0-9-]*(?:=[\w.-]+)?`)

// Replacement is the flag a deprecated or removed flag's help names in its
// place ("Deprecated: use --attention-backend."), other than the flag's
// own names (names), with its value when the help writes it with "=";
// "" when the help names none.
func Replacement(help string, names []string) string {
	for _, m := range replacementRE.FindAllString(help, -1) {
		if name, _, _ := strings.Cut(m, "="); !slices.Contains(names, name) {
			return m
		}
	}
	return ""
}

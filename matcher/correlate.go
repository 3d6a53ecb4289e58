package matcher

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tailfix/tailfix/patterns"
)

// Finding is one distinct error, merged over all its occurrences: the same
// error on eight ranks is one finding seen eight times.
type Finding struct {
	ID       string
	Title    string
	Severity patterns.Severity
	// Record is the matched record, or nil for an unknown error.
	Record *patterns.Record
	// Exception and Message come from the first occurrence's key line.
	Exception string
	Message   string
	Captures  map[string]string
	// Source, Line and EndLine locate the first occurrence.
	Source        string
	Line, EndLine int64
	Count         int
	Ranks         []string
	FirstSeen     string
	LastSeen      string
	// RootCause is true for a cause; a symptom names the finding it follows
	// from in SymptomOf, when one came before it.
	RootCause bool
	SymptomOf string
	// Partial is true for a traceback cut before its exception line: it
	// says where the error happened but not what it was.
	Partial bool
	// Config is the configuration of the server whose log the finding
	// was first seen in, when the log gave it.
	Config Config
	// wrapper is true for a record that wraps another error in its own
	// message; it is a root cause only when nothing before it is.
	wrapper bool

	src int // order of the finding's source among the inputs
}

// Correlator merges occurrences into findings and links symptoms to the
// causes before them. It is not safe for concurrent use.
type Correlator struct {
	findings []*Finding
	byKey    map[string]*Finding
	sources  []string
}

// NewCorrelator returns an empty correlator.
func NewCorrelator() *Correlator {
	return &Correlator{byKey: make(map[string]*Finding)}
}

// numbersRE finds what differs between occurrences of one error: hex
// addresses, request ids and decimal numbers (ranks, sizes, pids).
var numbersRE = regexp.MustCompile(`0x[0-9a-fA-F]+|\b[0-9a-f]{8,}\b|\d+`)

// key says which occurrences are the same error: the record, or for an
// unknown error its exception and message with numbers masked.
func key(o *Occurrence) string {
	if o.Record != nil {
		return o.ID
	}
	return o.ID + "\x00" + o.Exception + "\x00" + numbersRE.ReplaceAllString(o.Message, "N")
}

// Add merges an occurrence. It returns the finding and whether it is new.
func (c *Correlator) Add(o Occurrence) (*Finding, bool) {
	k := key(&o)
	if f, ok := c.byKey[k]; ok {
		if _, pair := o.Config.(pairConfig); pair {
			f.Config = o.Config // both sides' flags say more than one side's
		}
		f.Count++
		f.addRank(o.Rank)
		if o.Time != "" {
			f.LastSeen = o.Time
			if f.FirstSeen == "" {
				f.FirstSeen = o.Time
			}
		}
		return f, false
	}
	f := &Finding{
		ID: o.ID, Record: o.Record,
		Exception: o.Exception, Message: o.Message, Captures: o.Captures,
		Source: o.Source, Line: o.Line, EndLine: o.EndLine,
		Count: 1, FirstSeen: o.Time, LastSeen: o.Time,
		RootCause: true, Partial: o.Partial, src: c.sourceIndex(o.Source), Config: o.Config,
	}
	f.addRank(o.Rank)
	if r := o.Record; r != nil {
		f.Title, f.Severity = r.Title, r.Severity
		f.wrapper = r.Role == patterns.RoleWrapper
		if r.Role == patterns.RoleSymptom {
			// For live output; Findings links again with the whole input.
			f.RootCause = false
			c.link(append(slices.Clone(c.findings), f))
		}
	} else {
		f.Severity = patterns.SeverityError
		f.Title = "Unrecognised error"
		switch {
		case o.Partial:
			f.Title = "Traceback cut off before its exception"
		case o.ID == UnknownTraceback:
			f.Title = "Unrecognised traceback"
		}
	}
	c.byKey[k] = f
	c.findings = append(c.findings, f)
	return f, true
}

func (c *Correlator) sourceIndex(name string) int {
	if i := slices.Index(c.sources, name); i >= 0 {
		return i
	}
	c.sources = append(c.sources, name)
	return len(c.sources) - 1
}

// before orders findings by where they were first seen: input order, then
// line.
func before(a, b *Finding) int {
	return cmp.Or(cmp.Compare(a.src, b.src), cmp.Compare(a.Line, b.Line))
}

// link names each symptom's cause, the first found of: the earliest
// complete cause at error level or above before it in the same input; the
// earliest in another input (the other side of a prefill/decode pair) that
// its timestamps put before it; since a child's traceback can reach the log
// just after its parent's reaction to it, the first cause after it in the
// same input; a traceback cut before its exception in the same input; any
// cause in another input.
func (c *Correlator) link(sorted []*Finding) {
	isCause := func(f *Finding) bool {
		return f.RootCause && !f.Partial && f.Severity >= patterns.SeverityError
	}
	// A wrapper seen after a cause in the same input repeats that cause
	// inside its own message ("Prefill transfer failed … with exception
	// …"): it is reported as following from it.
	for _, w := range sorted {
		if !w.wrapper {
			continue
		}
		w.RootCause = true
		for _, f := range sorted {
			if f != w && !f.wrapper && isCause(f) && f.src == w.src && f.Line < w.Line {
				w.RootCause = false
				break
			}
		}
	}
	for _, s := range sorted {
		if s.RootCause {
			continue
		}
		s.SymptomOf = ""
		// The best cause found so far, by rank: lower is better.
		best, bestRank := (*Finding)(nil), 99
		consider := func(f *Finding, rank int) {
			if rank < bestRank {
				best, bestRank = f, rank
			}
		}
		for _, f := range sorted {
			switch {
			case f == s:
			case f.Partial && f.src == s.src && f.Severity >= patterns.SeverityError:
				consider(f, 3) // a traceback cut before its exception
			case !isCause(f):
			case f.src == s.src && f.Line < s.Line:
				consider(f, 0) // the earliest cause before it
			case f.src != s.src && f.FirstSeen != "" && s.FirstSeen != "" && f.FirstSeen <= s.FirstSeen:
				consider(f, 1) // the other side of a pair, earlier by the clock
			case f.src == s.src:
				consider(f, 2) // printed just after its reaction
			default:
				consider(f, 4)
			}
		}
		if best != nil {
			s.SymptomOf = best.ID
		}
	}
}

func (f *Finding) addRank(r string) {
	if r == "" || slices.Contains(f.Ranks, r) {
		return
	}
	f.Ranks = append(f.Ranks, r)
	slices.SortFunc(f.Ranks, compareRanks)
}

// Findings returns the findings in report order: complete causes at error
// level and above, earliest first; then symptoms; then tracebacks cut off
// before their exception; then everything below error level. It also
// links each symptom to its cause.
func (c *Correlator) Findings() []*Finding {
	out := slices.Clone(c.findings)
	slices.SortStableFunc(out, before)
	c.link(out)
	group := func(f *Finding) int {
		switch {
		case f.Severity < patterns.SeverityError:
			return 3
		case f.Partial:
			return 2
		case !f.RootCause:
			return 1
		}
		return 0
	}
	slices.SortStableFunc(out, func(a, b *Finding) int {
		return cmp.Compare(group(a), group(b))
	})
	return out
}

// compareRanks orders rank prefixes naturally: "TP2" before "TP10".
func compareRanks(a, b string) int {
	ta, tb := strings.Fields(a), strings.Fields(b)
	for i := 0; i < len(ta) && i < len(tb); i++ {
		na, ia := splitRank(ta[i])
		nb, ib := splitRank(tb[i])
		if c := cmp.Or(strings.Compare(na, nb), cmp.Compare(ia, ib)); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ta), len(tb))
}

func splitRank(tok string) (string, int) {
	i := strings.IndexAny(tok, "0123456789")
	if i < 0 {
		return tok, -1
	}
	n, _ := strconv.Atoi(tok[i:])
	return tok[:i], n
}

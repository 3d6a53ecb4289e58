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

	seq int // order of first occurrence across all inputs
}

// Correlator merges occurrences into findings and links symptoms to the
// causes before them. It is not safe for concurrent use.
type Correlator struct {
	findings []*Finding
	byKey    map[string]*Finding
}

// NewCorrelator returns an empty correlator.
func NewCorrelator() *Correlator {
	return &Correlator{byKey: make(map[string]*Finding)}
}

var digitsRE = regexp.MustCompile(`\d+`)

// key says which occurrences are the same error: the record, or for an
// unknown error its exception and message with numbers masked.
func key(o *Occurrence) string {
	if o.Record != nil {
		return o.ID
	}
	return o.ID + "\x00" + o.Exception + "\x00" + digitsRE.ReplaceAllString(o.Message, "N")
}

// Add merges an occurrence. It returns the finding and whether it is new.
func (c *Correlator) Add(o Occurrence) (*Finding, bool) {
	k := key(&o)
	if f, ok := c.byKey[k]; ok {
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
		RootCause: true, seq: len(c.findings),
	}
	f.addRank(o.Rank)
	if r := o.Record; r != nil {
		f.Title, f.Severity = r.Title, r.Severity
		if r.Role == patterns.RoleSymptom {
			f.RootCause = false
			f.SymptomOf = c.causeBefore(o.Source)
		}
	} else {
		f.Severity = patterns.SeverityError
		f.Title = "Unrecognised error"
		if o.ID == UnknownTraceback {
			f.Title = "Unrecognised traceback"
		}
	}
	c.byKey[k] = f
	c.findings = append(c.findings, f)
	return f, true
}

// causeBefore returns the id of the earliest cause at error level or above
// already seen in source.
func (c *Correlator) causeBefore(source string) string {
	for _, f := range c.findings {
		if f.RootCause && f.Source == source && f.Severity >= patterns.SeverityError {
			return f.ID
		}
	}
	return ""
}

func (f *Finding) addRank(r string) {
	if r == "" || slices.Contains(f.Ranks, r) {
		return
	}
	f.Ranks = append(f.Ranks, r)
	slices.SortFunc(f.Ranks, compareRanks)
}

// Findings returns the findings in report order: causes at error level and
// above, earliest first; then symptoms; then everything below error level.
func (c *Correlator) Findings() []*Finding {
	out := slices.Clone(c.findings)
	group := func(f *Finding) int {
		switch {
		case f.Severity < patterns.SeverityError:
			return 2
		case !f.RootCause:
			return 1
		}
		return 0
	}
	slices.SortStableFunc(out, func(a, b *Finding) int {
		return cmp.Or(cmp.Compare(group(a), group(b)), cmp.Compare(a.seq, b.seq))
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

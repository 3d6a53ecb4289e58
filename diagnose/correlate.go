package diagnose

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/tailfix/tailfix/matcher"
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
	// Exception, Message and Captures come from the earliest occurrence's
	// key line.
	Exception string
	Message   string
	Captures  map[string]string
	// Source, Line and EndLine locate the earliest occurrence; Spans the
	// lines of each occurrence in Source, in line order, the first
	// maxSpans of them.
	Source        string
	Line, EndLine int64
	Spans         []Span
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
	// Frame is the earliest occurrence's innermost traceback frame, where
	// its exception was raised, or "".
	Frame string
	// OwnFrame is the earliest occurrence's innermost frame in sglang's
	// own code.
	OwnFrame string
	// Folded, for the summary of a family of errors no record knows that
	// were past what an input keeps, estimates how many distinct messages
	// it holds; Count counts their occurrences, and Message is the
	// earliest.
	Folded int
	// Provisional is true for a live view of an event whose lines are
	// still coming: what it is so far, which the rest may change.
	Provisional bool
	// Config is the configuration of the server whose log the finding
	// was first seen in, when the log gave it.
	Config matcher.Config
	// Flags is the flag table of the sglang release the server runs, when
	// it is known (check): a fix that passes a flag this release lacks
	// says so rather than show it as a change to make.
	Flags *patterns.FlagTable

	// wrapper is true for a record that wraps another error in its own
	// message; it is a root cause only when nothing before it is.
	wrapper bool
	// downstream is true for a record of a line printed where requests
	// are answered (a router, an HTTP response): it yields to any error
	// of the servers themselves in the report.
	downstream bool
	// stop is set for a stop that was asked for (SIGTERM, Ctrl-C);
	// quieted for a finding taken below error level (a symptom of a stop,
	// a line the server went on from). readyAfter is set when the server
	// of its input reported itself serving after it.
	stop, quieted, readyAfter bool
	cause                     *Finding // the finding this one follows from, in its report
	key                       string   // which occurrences are this finding
	src                       int      // order of the finding's source among the inputs
}

// Span is the lines of one occurrence: its first and last line.
type Span struct{ Line, EndLine int64 }

// maxSpans bounds the occurrences a finding locates one by one; Count
// counts them all.
const maxSpans = 64

// Occurrences returns where the finding's occurrences are: every one it
// locates, or its earliest.
func (f *Finding) Occurrences() []Span {
	if len(f.Spans) > 0 {
		return f.Spans
	}
	return []Span{{Line: f.Line, EndLine: f.EndLine}}
}

// addSpan notes where an occurrence is, keeping the earliest maxSpans.
func (f *Finding) addSpan(s Span) {
	i, found := slices.BinarySearchFunc(f.Spans, s, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.EndLine, b.EndLine))
	})
	if found || i >= maxSpans {
		return
	}
	if len(f.Spans) == maxSpans {
		f.Spans = f.Spans[:maxSpans-1]
	}
	f.Spans = slices.Insert(f.Spans, i, s)
}

// correlator merges one input's occurrences into findings. Its findings
// are kept in the order of their first line; what it keeps of errors no
// record knows is bounded (see folder). It is not safe for concurrent
// use.
type correlator struct {
	findings []*Finding
	byKey    map[string]*Finding
	// raised finds the finding of a traceback by its exception line
	// (class and message, numbers masked): a bare line that repeats it
	// is that error again (see repeats).
	raised  map[string]*Finding
	unknown int // distinct unrecognised findings kept
	fold    folder
	kbuf    []byte // the key of the occurrence being added
	rbuf    []byte // the key of its exception line (see repeats)
}

func newCorrelator() *correlator {
	return &correlator{byKey: make(map[string]*Finding), raised: make(map[string]*Finding)}
}

// folded counts the occurrences folded into families.
func (c *correlator) folded() int {
	n := 0
	for _, fam := range c.fold.families {
		n += fam.f.Count
	}
	return n
}

// key says which occurrences are the same error: the record, or for an
// unknown error its exception and message with numbers masked.
func key(o *matcher.Occurrence) string {
	if o.Record != nil {
		return o.ID
	}
	return string(appendKey(nil, o))
}

// appendKey appends the key of o to dst: an occurrence of an error seen
// before finds its finding without a string made for it.
func appendKey(dst []byte, o *matcher.Occurrence) []byte {
	dst = append(dst, o.ID...)
	if o.Record != nil {
		return dst
	}
	dst = append(append(append(dst, 0), o.Exception...), 0)
	return appendMaskNumbers(dst, o.Message)
}

// appendMaskNumbers appends s to b with what differs between occurrences
// of one error replaced by N: hex addresses, runs of eight or more hex
// digits (request ids) and decimal numbers (ranks, sizes, pids). It is a
// hand-written scanner, not a regexp: it runs once per occurrence.
func appendMaskNumbers(b []byte, s string) []byte {
	isHex := func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	isWord := func(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '0' && i+2 < len(s) && s[i+1] == 'x' && isHex(s[i+2]):
			j := i + 2
			for j < len(s) && isHex(s[j]) {
				j++
			}
			b = append(b, 'N')
			i = j
			continue
		case isHex(c) && (i == 0 || !isWord(s[i-1])):
			j := i
			for j < len(s) && ('0' <= s[j] && s[j] <= '9' || 'a' <= s[j] && s[j] <= 'f') {
				j++
			}
			if j-i >= 8 && (j == len(s) || !isWord(s[j])) {
				b = append(b, 'N')
				i = j
				continue
			}
		}
		if isDigit(c) {
			j := i
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			b = append(b, 'N')
			i = j
			continue
		}
		b = append(b, c)
		i++
	}
	return b
}

// add merges an occurrence of input src. It returns the finding it went
// to and whether that finding is new: past the cap on unrecognised
// errors, the summary of its family (see folder).
func (c *correlator) add(o matcher.Occurrence, src int) (*Finding, bool) {
	c.kbuf = appendKey(c.kbuf[:0], &o)
	if f, ok := c.byKey[string(c.kbuf)]; ok {
		f.merge(&o)
		return f, false
	}
	if f := c.repeats(&o); f != nil {
		f.merge(&o)
		return f, false
	}
	k := string(c.kbuf)
	if o.Record == nil {
		if c.unknown >= maxUnknown {
			return c.addFolded(o, k, src)
		}
		c.unknown++
	}
	f := newFinding(o, k, src)
	c.byKey[k] = f
	if o.Frame != "" && o.Exception != "" && len(c.raised) < maxUnknown {
		c.raised[string(appendRaisedKey(nil, &o))] = f
	}
	c.insert(f)
	return f, true
}

// bareLine reports whether o is an exception line that no record knows, read
// outside any traceback.
func bareLine(o *matcher.Occurrence) bool {
	return o.Record == nil && o.ID == matcher.UnknownError && o.Exception != "" && o.Frame == ""
}

// appendRaisedKey appends the key of o's exception line to dst: its class
// and its message with numbers masked.
func appendRaisedKey(dst []byte, o *matcher.Occurrence) []byte {
	dst = append(append(dst, o.Exception...), 0)
	return appendMaskNumbers(dst, o.Message)
}

// addFolded folds an unrecognised occurrence past the cap.
func (c *correlator) addFolded(o matcher.Occurrence, k string, src int) (*Finding, bool) {
	fk := c.fold.familyKey(&o)
	fam := c.fold.families[fk]
	f, isNew := c.fold.fold(o, k, src)
	if !isNew {
		return f, false
	}
	if f.Folded == 0 { // promoted to a finding of its own
		c.byKey[k] = f
		if fam != nil && fam.f.Count == 0 {
			// Its family held nothing else.
			delete(c.fold.families, fk)
			c.findings = slices.DeleteFunc(c.findings, func(x *Finding) bool { return x == fam.f })
		}
	}
	c.insert(f)
	return f, true
}

// insert adds a new finding in the order of first lines.
func (c *correlator) insert(f *Finding) {
	i, _ := slices.BinarySearchFunc(c.findings, f, before)
	c.findings = slices.Insert(c.findings, i, f)
}

// has reports whether the finding of key k exists.
func (c *correlator) has(k string) bool { return c.byKey[k] != nil }

// knows reports whether occurrence o, of key k, would join a finding that
// exists: its own, or the traceback a bare exception line repeats.
func (c *correlator) knows(o *matcher.Occurrence, k string) bool {
	return c.has(k) || c.repeats(o) != nil
}

// repeats returns the finding of the traceback whose exception line o
// repeats as a bare line, or nil: another rank's traceback whose frames
// were cut or interleaved away, or a launcher repeating the child's last
// line, is the same error as the traceback that ended in it.
func (c *correlator) repeats(o *matcher.Occurrence) *Finding {
	if !bareLine(o) {
		return nil
	}
	c.rbuf = appendRaisedKey(c.rbuf[:0], o)
	return c.raised[string(c.rbuf)]
}

// newFinding makes the finding of one occurrence.
func newFinding(o matcher.Occurrence, k string, src int) *Finding {
	f := &Finding{
		ID: o.ID, Record: o.Record,
		Exception: o.Exception, Message: o.Message, Captures: o.LoadCaptures(),
		Source: o.Source, Line: o.Line, EndLine: o.EndLine,
		Count: 1, FirstSeen: o.Time, LastSeen: o.Time,
		RootCause: true, Partial: o.Partial, Config: o.Config, Frame: o.Frame, OwnFrame: o.OwnFrame,
		key: k, src: src,
	}
	f.addSpan(Span{o.Line, o.EndLine})
	f.addRank(o.Rank)
	if r := o.Record; r != nil {
		f.Title, f.Severity = r.Title, r.Severity
		f.wrapper = r.Role == patterns.RoleWrapper
		f.downstream = r.HasTag(patterns.TagDownstream)
		f.stop = r.HasTag(patterns.TagShutdown)
		f.RootCause = r.Role != patterns.RoleSymptom
	} else {
		f.Severity = patterns.SeverityError
		f.Title = "Unrecognised error"
		switch {
		case o.ID == matcher.UnknownWarning:
			f.Severity, f.Title = patterns.SeverityWarning, "Unrecognised warning of a failure"
		case o.Partial:
			f.Title = "Traceback cut off before its exception"
		case o.ID == matcher.UnknownTraceback:
			f.Title = "Unrecognised traceback"
		}
	}
	return f
}

// merge counts another occurrence of f. What the finding shows comes from
// its earliest occurrence, whatever order they were added in, so that a
// live reader and a post-mortem agree.
func (f *Finding) merge(o *matcher.Occurrence) {
	f.Count++
	f.addSpan(Span{o.Line, o.EndLine})
	f.addRank(o.Rank)
	f.seen(o.Time, o.Time)
	if isPair(o.Config) {
		f.Config = o.Config // both sides' flags say more than one side's
	}
	if o.Line < f.Line {
		f.Exception, f.Message, f.Captures = o.Exception, o.Message, o.LoadCaptures()
		f.Line, f.EndLine, f.Partial, f.Frame, f.OwnFrame = o.Line, o.EndLine, o.Partial, o.Frame, o.OwnFrame
		if !isPair(f.Config) {
			f.Config = o.Config
		}
	}
}

// seen widens the time range to include first and last.
func (f *Finding) seen(first, last string) {
	if first != "" && (f.FirstSeen == "" || first < f.FirstSeen) {
		f.FirstSeen = first
	}
	if last != "" && last > f.LastSeen {
		f.LastSeen = last
	}
}

// absorb merges g, the same error seen in another input of the same
// report, into f, which was seen first.
func (f *Finding) absorb(g *Finding) {
	f.Count += g.Count
	for _, r := range g.Ranks {
		f.addRank(r)
	}
	f.seen(g.FirstSeen, g.LastSeen)
	if isPair(g.Config) {
		f.Config = g.Config
	}
}

func (f *Finding) addRank(r string) {
	if r == "" || slices.Contains(f.Ranks, r) {
		return
	}
	i, _ := slices.BinarySearchFunc(f.Ranks, r, compareRanks)
	f.Ranks = slices.Insert(f.Ranks, i, r)
}

// before orders findings by where they were first seen: input order, then
// line; findings of the same line (a disagreement between two servers and
// the error it led to, both shown at the configuration's line) by id, so
// that the order never depends on which was found first.
func before(a, b *Finding) int {
	return cmp.Or(cmp.Compare(a.src, b.src), cmp.Compare(a.Line, b.Line), strings.Compare(a.key, b.key))
}

// Cause ranks: the lower, the likelier the cause of a symptom.
const (
	causeEarlierSameInput = iota // the earliest complete cause before it in its input
	causeEarlierByClock          // in another input, earlier by the log's clock
	causeLaterSameInput          // printed just after the reaction to it
	causeCutSameInput            // a traceback cut before its exception, in its input
	causeAnyOtherInput           // any cause in another input of the report
	causeBareLine                // a line no record knows that only says it failed
	noCause
)

// bare reports whether f is a line no record knows that only says
// something failed: weaker evidence than a record or an exception, so no
// error is blamed on it while a stronger cause is in the report.
func bare(f *Finding) bool {
	return f.Record == nil && f.ID == matcher.UnknownError && f.Exception == ""
}

// symptom reports whether a finding's record says it follows from another
// error, whichever.
func symptom(f *Finding) bool {
	return f.Record != nil && f.Record.Role == patterns.RoleSymptom
}

// skippedModel reports whether a finding is only sglang's start-up notice
// that it could not import one of its model classes and skipped it
// ("Ignore import error when loading sglang.srt.models.x: …").
func skippedModel(f *Finding) bool {
	return strings.HasPrefix(f.Message, "Ignore import error when loading ")
}

// causeRank says how likely f is the cause of symptom s, by the ranks
// above; noCause when it cannot be.
func causeRank(s, f *Finding) int {
	isCause := f.RootCause && !f.Partial && f.Severity >= patterns.SeverityError && !f.downstream
	switch {
	case f == s:
		return noCause
	case f.Partial && f.src == s.src && f.Severity >= patterns.SeverityError:
		return causeCutSameInput
	case !isCause:
		return noCause
	case bare(f):
		return causeBareLine
	case f.src == s.src && f.Line < s.Line:
		return causeEarlierSameInput
	case f.src != s.src && f.FirstSeen != "" && s.FirstSeen != "" && f.FirstSeen <= s.FirstSeen:
		return causeEarlierByClock
	case f.src == s.src:
		return causeLaterSameInput
	}
	return causeAnyOtherInput
}

// wrapperGap is how close after a wrapper the error it introduces starts:
// the next event but for a blank line or two, as when a crash is reported
// first by one handler ("Fatal Python error: Segmentation fault") and then,
// with the frames that name it, by another.
const wrapperGap = 3

// interleavedHead reports whether u is only the first line of a rank's
// traceback, its frames and exception gone to the traceback another rank
// began on the next line (unprefixed lines cannot say whose they are): no
// frame, no exception, one line, and a complete error of the same input
// whose occurrence starts on the next line (or the one after, in a paste
// that doubled every line break).
func interleavedHead(sorted []*Finding, u *Finding) bool {
	if !u.Partial || u.ID != matcher.UnknownTraceback || u.Frame != "" || u.EndLine != u.Line {
		return false
	}
	for _, f := range sorted {
		if f == u || f.src != u.src || !f.RootCause || f.Partial || f.Exception == "" || f.Severity < patterns.SeverityError {
			continue
		}
		for _, sp := range f.Occurrences() {
			if u.Line < sp.Line && sp.Line <= u.Line+2 { // the next line, or the one after a blank
				return true
			}
		}
	}
	return false
}

// link names each symptom's cause among the findings of one report,
// sorted by before: the finding of the lowest cause rank, the earliest of
// those. A wrapper repeats a cause inside its own message ("Prefill
// transfer failed … with exception …") or introduces it: one seen after a
// known cause in the same input, or right before one, is reported as
// following from it. A line no record knows that says something failed,
// right before or after a known cause ("EZ9999: Inner Error!" before the
// line that names the error), is part of that incident, and follows from
// it too; so does an error no record knows that comes as the server goes
// down after a known cause (inTeardown).
func link(sorted []*Finding) {
	for _, w := range sorted {
		unknown := w.Record == nil && w.ID == matcher.UnknownError
		if !w.wrapper && !unknown {
			continue
		}
		w.RootCause = true
		for _, f := range sorted {
			if f == w || f.wrapper || !f.RootCause || f.Partial || f.Severity < patterns.SeverityError || f.src != w.src ||
				w.wrapper && bare(f) {
				continue
			}
			after := f.Line > w.EndLine && f.Line-w.EndLine <= wrapperGap
			switch {
			case w.wrapper && (f.Line < w.Line || after):
			case unknown && f.Record != nil && (after || f.EndLine < w.Line && w.Line-f.EndLine <= wrapperGap):
			default:
				continue
			}
			w.RootCause = false
			break
		}
	}
	for _, u := range sorted {
		if u.Record == nil && u.RootCause && (inTeardown(sorted, u) || interleavedHead(sorted, u)) {
			u.RootCause = false
		}
	}
	// A router's or an HTTP response's error yields to the servers' own:
	// with one of those in the report, it follows from the earliest.
	for _, d := range sorted {
		if !d.downstream {
			continue
		}
		for _, f := range sorted {
			if f != d && !f.downstream && !f.Partial && f.Severity >= patterns.SeverityError && !symptom(f) {
				d.RootCause = false
				break
			}
		}
	}
	// A record that follows another's error follows it wherever both are.
	for _, s := range sorted {
		s.cause = nil
		if s.Record == nil || len(s.Record.Follows) == 0 {
			continue
		}
		for _, f := range sorted {
			if f != s && f.Severity >= patterns.SeverityError && slices.Contains(s.Record.Follows, f.ID) {
				s.RootCause, s.cause = false, f
				break
			}
		}
	}
	for _, s := range sorted {
		if s.RootCause {
			continue
		}
		s.SymptomOf = ""
		if s.cause != nil {
			s.SymptomOf = s.cause.ID
			continue
		}
		best, bestRank := (*Finding)(nil), noCause
		for _, f := range sorted {
			if r := causeRank(s, f); r < bestRank {
				best, bestRank = f, r
			}
		}
		if best == nil && s.downstream {
			// The servers' errors here are all symptoms themselves:
			// the earliest of them is nearer the cause.
			for _, f := range sorted {
				if f != s && !f.downstream && !f.Partial && f.Severity >= patterns.SeverityError && f.cause != s && !symptom(f) {
					best = f
					break
				}
			}
		}
		if best != nil {
			s.SymptomOf, s.cause = best.ID, best
		}
	}
	quiet(sorted)
}

// teardownGap is how soon after the first sign of a server going down (a
// symptom of a known cause) an error no record knows is read as part of
// the teardown: a thread's or a rank's traceback as the processes are
// killed, not the start of a run after a restart.
const teardownGap = 60

// inTeardown reports whether u, an error no record knows, came while the
// server was going down after a known cause: soon after a symptom of it
// (the SIGQUIT that tears the processes down, a rank killed) in the same
// input, the cause before that symptom.
func inTeardown(sorted []*Finding, u *Finding) bool {
	for _, y := range sorted {
		if y.src != u.src || y.Record == nil || y.Record.Role != patterns.RoleSymptom || y.Line >= u.Line || u.Line-y.EndLine > teardownGap {
			continue
		}
		for _, c := range sorted {
			if c.src == u.src && c.Line < y.Line && c.Record != nil && c.RootCause && !c.Partial && !c.wrapper && !c.downstream &&
				c.Severity >= patterns.SeverityError {
				return true
			}
		}
	}
	return false
}

// quiet takes below error level what the log itself shows did not stop
// the server: a bare line after which the server came up and served, and
// the symptoms of a stop that was asked for. A finding taken down before
// is judged again, as a live report is ordered again and again.
func quiet(sorted []*Finding) {
	for _, f := range sorted {
		if f.quieted {
			f.Severity, f.quieted = patterns.SeverityError, false
			if f.Record != nil {
				f.Severity = f.Record.Severity
			}
		}
	}
	for _, f := range sorted {
		switch {
		case f.readyAfter && bare(f) && f.RootCause && !f.Partial:
			// The server came up and served after it: it is shown as
			// a warning.
			f.Severity, f.quieted = patterns.SeverityWarning, true
		case f.Severity > patterns.SeverityWarning && skippedModel(f):
			// sglang skipped one of the model classes it ships and went
			// on: that is the cause only for a server of that model,
			// whose own error ("architectures … are not supported")
			// then follows.
			f.Severity, f.quieted = patterns.SeverityWarning, true
		}
	}
	quietAfterStop(sorted)
}

// quietAfterStop takes the symptoms of a stop that was asked for (SIGTERM,
// Ctrl-C) below error level: a child ended by the signal and the SIGQUIT
// that cleans up after it, with no error of their own between the stop
// and them, are the shutdown.
func quietAfterStop(sorted []*Finding) {
	for _, s := range sorted {
		if s.RootCause || s.Record == nil || s.Record.Role != patterns.RoleSymptom || s.Severity < patterns.SeverityError {
			continue
		}
		var stop *Finding
		for _, f := range sorted {
			if f.stop && f.src == s.src && f.Line < s.Line && (stop == nil || f.Line > stop.Line) {
				stop = f
			}
		}
		if stop == nil || s.cause != nil && s.cause.src == s.src && s.cause.Line > stop.Line {
			continue
		}
		failed := false
		for _, f := range sorted {
			if f != s && f.src == s.src && f.RootCause && f.Severity >= patterns.SeverityError && f.Line > stop.Line && f.Line < s.Line {
				failed = true // an error of its own after the stop
				break
			}
		}
		if !failed {
			s.Severity, s.quieted, s.SymptomOf, s.cause = patterns.SeverityInfo, true, stop.ID, stop
		}
	}
}

// depth counts the links from a finding to the start of its chain of
// causes: a symptom is read after what it follows from.
func depth(f *Finding) int {
	n := 0
	for c := f.cause; c != nil && n < 8; c = c.cause {
		n++
	}
	return n
}

// order sorts one report's findings for reading: complete causes at error
// level and above, earliest first; then symptoms, those of the servers
// before a router's or an HTTP response's; then tracebacks cut off before
// their exception; then everything below error level. It links
// each symptom to its cause first.
func order(fs []*Finding) {
	slices.SortStableFunc(fs, before)
	link(fs)
	group := func(f *Finding) int {
		switch {
		case f.Severity < patterns.SeverityError:
			return 5
		case f.Partial:
			return 4
		case !f.RootCause && f.downstream && f.cause != nil:
			// A client's or a router's view of an error shown above.
			// With no cause in the report it heads its own symptoms.
			return 3
		case !f.RootCause:
			return 2
		case f.ID == matcher.UnknownError:
			// A line that only says it failed is weaker evidence than
			// an error a record knows or a traceback's exception: it
			// is shown, after them.
			return 1
		}
		return 0
	}
	slices.SortStableFunc(fs, func(a, b *Finding) int {
		return cmp.Or(cmp.Compare(group(a), group(b)), cmp.Compare(depth(a), depth(b)))
	})
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

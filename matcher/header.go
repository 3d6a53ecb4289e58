package matcher

import (
	"bytes"
	"math/bits"
)

// A learnt header is a prefix that a collector or logger ParseLine does not
// know by name puts before every line of an input: journald's
// "Sep 09 17:04:17 host python[41231]: ", stern's "pod container ", a
// worker logger's "(Worker pid=1) ERROR 07-01 02:36:18 [file.py:870] ", a
// Markdown quote's "> ". The engine learns it from the lines themselves.
//
// A line proposes a header when something that starts log content (a
// traceback head, a `File "…"` frame, an exception line, sglang's header)
// comes after a prefix that ParseLine could not take off, or that it read
// as a record header of its own (so that every line of a traceback would
// start a new record). The prefix is reduced to its shape: digit runs and
// level words become one token each, long words another, short words and
// punctuation stay as they are. The engine then holds the proposing line
// and the lines after it back, unassembled, until hdrRepeats of hdrWindow
// consecutive lines carry the shape (the header is learnt, and the held
// lines are assembled without it) or too many do not (they are assembled
// as they are). A learnt header is taken off every line that carries it,
// before ParseLine's record headers, and its time, level and rank go to the
// line; it is forgotten once hdrRepeats of the last hdrWindow lines the
// engine looked at do not carry it. Only while a header is proposed does the
// engine look at every line; a line that no needle points at and no event
// waits for is still only counted, header or not.
const (
	// maxHeader bounds the bytes of a line a header may span, and so the
	// work of looking at a line.
	maxHeader = 96
	// hdrWindow and hdrRepeats: a header is learnt when hdrRepeats of
	// hdrWindow consecutive lines carry it, and forgotten when hdrRepeats
	// of the last hdrWindow do not.
	hdrWindow  = 4
	hdrRepeats = 3
	// maxHeld bounds the lines held while a proposal is judged: blank lines
	// count for neither side.
	maxHeld = 2 * hdrWindow
)

// Tokens of a shape that stand for a run of input bytes.
const (
	shDigits byte = 1 // a run of digits
	shLevel  byte = 2 // a level word: ERROR, INFO…
	shWord   byte = 3 // a word longer than maxShortWord letters
)

// maxShortWord is the longest word a shape keeps as it is: host names,
// program and container names stay, so that two streams differ.
const maxShortWord = 12

// shape is the token form of a line's first maxHeader bytes.
type shape struct {
	b   [maxHeader]byte
	end [maxHeader]uint8 // input offset after each token
	n   int
}

// of tokenises the start of line.
func (s *shape) of(line []byte) {
	s.n = 0
	lim := min(len(line), maxHeader)
	for i := 0; i < lim; {
		c := line[i]
		j := i + 1
		switch {
		case c >= '0' && c <= '9':
			for j < lim && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			s.push(shDigits, j)
		case isLetter(c):
			for j < lim && isLetter(line[j]) {
				j++
			}
			switch {
			case wordLevel(line[i:j]) != LevelNone:
				s.push(shLevel, j)
			case j-i > maxShortWord:
				s.push(shWord, j)
			default:
				for k := i; k < j; k++ {
					s.push(line[k], k+1)
				}
			}
		default:
			s.push(c, j)
		}
		i = j
	}
}

func (s *shape) push(tok byte, end int) {
	s.b[s.n], s.end[s.n] = tok, uint8(end)
	s.n++
}

// prefixOf reports how many bytes of the line whose shape is t the header
// of shape s spans, or -1 when t does not start with s. A line that is the
// header alone, without its last space, carries it too (an empty line of
// the stream).
func (s *shape) prefixOf(t *shape) int {
	switch {
	case t.n >= s.n && s.n > 0 && bytes.Equal(t.b[:s.n], s.b[:s.n]):
		return int(t.end[s.n-1])
	case t.n == s.n-1 && t.n > 0 && isBlankByte(s.b[s.n-1]) && bytes.Equal(t.b[:t.n], s.b[:t.n]):
		return int(t.end[t.n-1])
	}
	return -1
}

// isBlankByte reports whether c ends a header: a space, or the tab of a
// tab-separated export ("time\tlabels\tline").
func isBlankByte(c byte) bool { return c == ' ' || c == '\t' }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// wordLevel returns the level a whole word names, or LevelNone.
func wordLevel(w []byte) Level {
	for _, l := range levelWords {
		if string(w) == l.word {
			return l.level
		}
	}
	return LevelNone
}

// headerLearner is an engine's learnt or proposed header.
type headerLearner struct {
	learnt    bool
	hdr       shape  // the learnt header
	hist      uint8  // carried (1) or not (0), the last lines first
	proposing bool   // lines are held while prop is judged
	prop      shape  // the proposed header
	carried   int    // held lines that carry prop
	missed    int    // held lines that do not
	fromStart bool   // every line before the proposing one carried prop
	cur       shape  // scratch: the shape of the line at hand
	rank      []byte // scratch: "rank" and the header's rank number
	// outer is the header this one is learnt under, or nil: a second
	// header inside the first, as a quote's "> " around a collector's
	// stamp or a table's border. It is looked for after the outer one,
	// on the lines that carry the outer one.
	outer *headerLearner
}

// watching reports whether the engine must look at every line: while a
// proposal is judged. A learnt header is judged on the lines the engine
// looks at anyway.
func (h *headerLearner) watching() bool { return h.proposing }

// cut takes the learnt header, if there is one, off rest (the line after
// its stream prefixes, or after the outer header for an inner one), and
// notes whether the line carried it. It returns the header and the rest
// of the line.
func (h *headerLearner) cut(rest []byte) (hdr, body []byte, ok bool) {
	if !h.learnt {
		return nil, rest, false
	}
	if isBlank(rest) {
		// A blank line, or a quoted paste's blank line ("> " or ">"),
		// which is all quote: it says as little as a blank line.
		return nil, rest[len(rest):], false
	}
	h.cur.of(rest)
	n := h.hdr.prefixOf(&h.cur)
	h.hist <<= 1
	if n >= 0 {
		h.hist |= 1
	}
	if bits.OnesCount8(h.hist&(1<<hdrWindow-1)) <= hdrWindow-hdrRepeats {
		h.learnt = false // the header stopped
	}
	if n < 0 {
		return nil, rest, false
	}
	return rest[:n], rest[n:], true
}

// fill gives a line whose learnt header was taken off the time, level and
// rank the header states, where the rest of the line states none.
func (h *headerLearner) fill(l *Line, hdr []byte) {
	if len(l.Header.Time) == 0 {
		l.Header.Time = stampIn(hdr)
	}
	if l.Level == LevelNone && len(l.Header.Time) == 0 && len(l.Header.Ranks) == 0 {
		// sglang's own records state no level: a collector's or a
		// wrapper's level around one is the stream's (every stderr line
		// ERROR), not the line's.
		l.Level = levelIn(hdr)
	}
	if len(l.Rank) == 0 && len(l.Header.Ranks) == 0 {
		d := rankIn(hdr)
		if d == nil {
			d = rankIn(l.Stream) // "(EngineWorker rank=2 pid=77)"
		}
		if d != nil {
			h.rank = append(append(h.rank[:0], "rank"...), d...)
			l.Rank = h.rank
		}
	}
}

// propose returns the length of the header a line proposes, or -1. rest
// is the line after its stream prefixes and l the line parsed from it.
func (h *headerLearner) propose(rest []byte, l *Line, recent *recentLines, scratch *[]byte) int {
	if ownHeader(l) {
		if !collectorStamp(l.Msg) {
			return -1 // sglang's own header: ParseLine knows it
		}
		// A stamp of sglang's shape before a traceback's frame, or before
		// sglang's own header, was put there by whatever collected the
		// log: sglang writes its header once, before a record's first
		// line.
		return h.start(rest[:len(rest)-len(l.Msg)])
	}
	if len(rest) == 0 {
		return -1
	}
	if n := quoteMarks(rest); n > 0 {
		// A quoted paste's marks start every line of it, whatever the
		// line says: its first lines are read without them too, not only
		// those after the first one whose content the engine knows.
		return h.start(rest[:n])
	}
	if rest[0] == ' ' || rest[0] == '\t' {
		// An indented line continues something, unless what follows
		// the blanks starts a record or a traceback: the margin of a
		// log pasted into a list item or a notebook's output.
		return h.proposeMargin(rest)
	}
	if _, body, ok := cutSeverityStamp(rest); ok && !l.Record {
		// A log console's export without labels puts its severity and
		// time before every line, whatever the line is: a source line or
		// a frame of a traceback cut at the export's start as much as
		// its head.
		return h.start(rest[:len(rest)-len(body)])
	}
	n := contentStart(rest)
	if n < 0 {
		// No content the engine knows follows a prefix (a library's own
		// lines: NVSHMEM's, Mooncake's); a label every line repeats byte
		// for byte is a collector's all the same.
		if l.Record {
			return -1 // a record header ParseLine knows starts the line
		}
		if n = h.repeatedPrefix(rest, recent, scratch); n < 0 {
			return -1
		}
		return h.start(rest[:n])
	}
	// ParseLine took off less than the prefix, or took it as a record
	// header: a header on every line of a traceback is not a new record
	// on every line.
	if taken := len(rest) - len(l.Msg); taken >= n && !l.Record {
		return -1
	}
	// An ExceptionGroup's tree margin ("    | ") is part of the traceback.
	if len(bytes.Trim(rest[:n], " |+")) == 0 {
		return -1
	}
	h.prop.of(rest[:n])
	if h.prop.n < 2 || !isBlankByte(h.prop.b[h.prop.n-1]) {
		return -1
	}
	h.proposing, h.carried, h.missed = true, 1, 0
	return n
}

// ownHeader reports whether ParseLine found a header of sglang's shape at
// the start of what it read (a time or rank tags of its own), rather than
// only the time a collector's stamp before it gave (journald's).
func ownHeader(l *Line) bool {
	if len(l.Header.Ranks) > 0 {
		return true
	}
	if len(l.Header.Time) == 0 {
		return false
	}
	return len(l.stamp) == 0 || &l.Header.Time[0] != &l.stamp[0]
}

// collectorStamp reports whether the message after a header of sglang's
// shape shows the header to be a collector's: the message is a traceback's
// frame line, or starts with a header of its own ("[time] [time TP0] …").
func collectorStamp(msg []byte) bool {
	body := bytes.TrimLeft(msg, " \t")
	if len(body) < len(msg) && bytes.HasPrefix(body, framePrefix) {
		return true
	}
	if len(body) == 0 || body[0] != '[' {
		return false
	}
	hdr, _ := SplitHeader(body)
	return len(hdr.Time) > 0
}

// repeatedPrefix returns the length of the prefix that rest shares byte for
// byte with each of the hdrRepeats-1 lines before it, cut back to a blank,
// or -1. A collector's label ("[pod/x/c] ", "pod container ", a Loki
// stream's labels) qualifies; a record header, a level word, a prefix of
// plain words ("connect EPS failed" three times) or one after which a line
// has nothing left do not.
func (h *headerLearner) repeatedPrefix(rest []byte, r *recentLines, scratch *[]byte) int {
	if r.count < hdrRepeats-1 || bareException(rest) {
		return -1 // an exception line's own words are no label
	}
	n := min(len(rest), maxHeader)
	for k := 1; k <= hdrRepeats-1; k++ {
		i := (r.next - k + len(r.start)) % len(r.start)
		if r.n[i] < 0 {
			return -1
		}
		*scratch = Normalize((*scratch)[:0], r.start[i][:r.n[i]])
		prev, ok := h.under(*scratch)
		if !ok {
			return -1
		}
		if bytes.Equal(bytes.TrimRight(prev, " \t"), bytes.TrimRight(rest, " \t")) {
			return -1 // a line repeated (a rank's copy of it): no label in that
		}
		m := 0
		for m < n && m < len(prev) && prev[m] == rest[m] {
			m++
		}
		n = m
	}
	for n > 0 && !isBlankByte(rest[n-1]) {
		n--
	}
	if n < 3 || n >= len(bytes.TrimRight(rest, " \t")) {
		return -1
	}
	p := rest[:n]
	if !bytes.ContainsAny(p, "[]/:|{}()-=\t") || bytes.Contains(p, []byte(". ")) {
		return -1 // plain words, or a sentence: the start of a message
	}
	var l Line
	parseRecord(&l, p)
	if l.Record || l.Level != LevelNone || len(stampIn(p)) > 0 {
		return -1 // a record's header, or lines of the same second
	}
	for _, w := range bytes.FieldsFunc(p, func(c rune) bool { return !isLetter(byte(c)) }) {
		if wordLevel(w) != LevelNone {
			return -1
		}
	}
	return n
}

// quoteMarks returns the length of the Markdown quote marks that start a
// line ("> ", "> > "), or 0.
func quoteMarks(b []byte) int {
	n := 0
	for len(b) >= n+2 && b[n] == '>' && b[n+1] == ' ' {
		n += 2
	}
	return n
}

// maxMargin bounds the blanks a pasted log's margin may span.
const maxMargin = 16

// proposeMargin proposes the blanks before a line's content as a header
// when the content is what only ever starts a line: a record with a time
// ("[2026-07-21 19:49:50] …", "INFO 2026-…") or a traceback's head. The
// frames and messages of a traceback are indented anyway; a margin shows
// on the lines that never are.
func (h *headerLearner) proposeMargin(rest []byte) int {
	n := 0
	for n < len(rest) && n <= maxMargin && (rest[n] == ' ' || rest[n] == '\t') {
		n++
	}
	if n > maxMargin || n == len(rest) {
		return -1
	}
	if !startsOnlyALine(rest[n:]) {
		return -1
	}
	return h.start(rest[:n])
}

// startsOnlyALine reports whether a line's content is what a log only ever
// starts a line with, never indents: a collector's timestamp or label
// (cutStreams), a record with a time ("[2026-07-21 19:49:50] …", "INFO
// 2026-…"), a traceback's head, also after a logger's fields ("… | ERROR
// | stderr | Traceback …"), the first line of a native crash's report, a
// torch rank's prefix ("[rank3]:").
func startsOnlyALine(body []byte) bool {
	var l Line
	b := cutStreams(&l, body)
	if len(l.stamp) > 0 || len(l.Stream) > 0 {
		return true
	}
	w := b[:min(len(b), maxHeader+len(tracebackHead))]
	// After fields, but not an ExceptionGroup's, which Python indents in
	// any log ("  + Exception Group Traceback …", "    | Traceback …").
	if i := bytes.Index(w, tracebackHead); i == 0 || i > 0 && isBlankByte(w[i-1]) &&
		len(bytes.Trim(w[:i], " |+")) > 0 && !bytes.Contains(w, groupHead) {
		return true
	}
	if _, ok := nativeOpening(b); ok {
		return true
	}
	parseRecord(&l, b)
	return l.Record && len(l.Header.Time) > 0
}

// start proposes prefix as the header, carried by the proposing line, and
// returns its length.
func (h *headerLearner) start(prefix []byte) int {
	h.prop.of(prefix)
	h.proposing, h.carried, h.missed = true, 1, 0
	return len(prefix)
}

// recentLines keeps the starts of the last non-blank lines of an input,
// whether the engine looked at them or only counted them, for a proposed
// header to read back: the lines before the one that proposes it may carry
// it too. What it keeps depends on the lines alone, not on how the input
// was cut into writes.
type recentLines struct {
	start [hdrRepeats - 1][recentBytes]byte
	n     [hdrRepeats - 1]int // bytes kept of each; -1 for a line too long to find its start
	count int                 // lines kept, up to len(start)
	next  int                 // where the next line goes
}

// noRecent is no lines: what a line replayed for a proposal reads back
// (see Engine.propose). It is only ever read.
var noRecent recentLines

// recentBytes is how much of a line's start is kept: the header's reach,
// with room for the stream prefixes and escapes before it.
const recentBytes = 2 * maxHeader

// maxLookBack bounds how far back skipped reads for the start of a line.
const maxLookBack = 4 << 10

// push keeps the start of a line, without its newline, unless it is blank.
func (r *recentLines) push(line []byte) {
	if isBlank(line) {
		return
	}
	r.n[r.next] = copy(r.start[r.next][:], line)
	r.next = (r.next + 1) % len(r.start)
	r.count = min(r.count+1, len(r.start))
}

// pushLong keeps a line whose start lies too far back to be found.
func (r *recentLines) pushLong() {
	r.n[r.next] = -1
	r.next = (r.next + 1) % len(r.start)
	r.count = min(r.count+1, len(r.start))
}

// skipped keeps the last non-blank lines of a stretch of whole lines that
// the engine only counted, oldest first.
func (r *recentLines) skipped(b []byte) {
	var found [hdrRepeats - 1][]byte
	long := [hdrRepeats - 1]bool{}
	k, end := 0, len(b) // b[:end] ends with a line's newline
	for k < len(found) && end > 0 {
		from := max(0, end-1-maxLookBack)
		start := bytes.LastIndexByte(b[from:end-1], '\n') + 1 + from
		if start == from && from > 0 {
			long[k], k = true, k+1
			break // a long line: what came before it is not read
		}
		if line := b[start : end-1]; !isBlank(line) {
			found[k], k = line, k+1
		}
		end = start
	}
	for i := k - 1; i >= 0; i-- {
		if long[i] {
			r.pushLong()
		} else {
			r.push(found[i])
		}
	}
}

// lookBack counts, toward a proposal just made, the lines before the
// proposing one that carry it, newest first; one that does not carry it
// ends the count, and says nothing of the lines to come. It reports
// whether that decided the proposal: the header is learnt.
func (h *headerLearner) lookBack(r *recentLines, scratch *[]byte) bool {
	// The proposing line itself is not kept yet: recent holds the lines
	// before it.
	for k := 1; k <= r.count; k++ {
		i := (r.next - k + len(r.start)) % len(r.start)
		if r.n[i] < 0 {
			break
		}
		*scratch = Normalize((*scratch)[:0], r.start[i][:r.n[i]])
		rest, ok := h.under(*scratch)
		if !ok {
			break
		}
		h.cur.of(rest)
		if h.prop.prefixOf(&h.cur) < 0 {
			break
		}
		h.carried++
	}
	return h.decide()
}

// judge notes whether a held line carries the proposed header and reports
// whether the proposal is decided: learnt or given up.
func (h *headerLearner) judge(rest []byte, underOuter bool) (decided bool) {
	if !underOuter {
		h.missed++ // a line without the outer header
		return h.decide()
	}
	if !isBlank(rest) {
		h.cur.of(rest)
		switch {
		case h.prop.prefixOf(&h.cur) >= 0:
			h.carried++
		case h.carried == 1 && h.missed == 0 && h.narrow():
			h.carried++
		default:
			h.missed++
		}
	}
	return h.decide()
}

// narrow shortens the proposed header to the part of it that the line at
// hand starts with too, cut back to a blank, and reports whether that
// left a header. The line that proposed a header may carry the start of
// its message after it ("> Initialization failed: Traceback (most recent
// call last):", "pod c Init failed. state: Traceback …"): the header is
// what the next line repeats, not all that came before the traceback's
// head. It is tried once, on the first line held after the proposing one
// when no line before carried the proposal.
func (h *headerLearner) narrow() bool {
	k := 0
	for k < h.prop.n && k < h.cur.n && h.prop.b[k] == h.cur.b[k] {
		k++
	}
	for k > 0 && !isBlankByte(h.prop.b[k-1]) {
		k--
	}
	if k == 0 {
		return false
	}
	h.prop.n = k
	return true
}

// decide reports whether the proposal is decided, and learns the header
// when enough lines carry it.
func (h *headerLearner) decide() bool {
	switch {
	case h.carried >= hdrRepeats:
		h.learn()
	case h.missed > hdrWindow-hdrRepeats:
	default:
		return false
	}
	h.proposing = false
	return true
}

// giveUp ends a proposal undecided.
func (h *headerLearner) giveUp() {
	h.proposing = false
}

// settle ends a proposal when the input ends or pauses: learnt when every
// line of the input carried it, else given up.
func (h *headerLearner) settle() {
	if h.fromStart && h.missed == 0 {
		h.learn()
	}
	h.proposing = false
}

// learn makes the proposed header the learnt one, as carried by all of the
// last lines.
func (h *headerLearner) learn() {
	h.learnt, h.hdr, h.hist = true, h.prop, 1<<hdrWindow-1
}

// under returns what of a normalized line this header is looked for in:
// the line after its stream prefixes and, for a header inside another,
// after the outer header and the stream prefixes under it. It reports
// false for a line that does not carry the outer header. It changes
// neither learner.
func (h *headerLearner) under(norm []byte) ([]byte, bool) {
	var l Line
	rest := cutStreams(&l, norm)
	if h.outer == nil {
		return rest, true
	}
	if !h.outer.learnt {
		return nil, false
	}
	var cur shape
	cur.of(rest)
	n := h.outer.hdr.prefixOf(&cur)
	if n < 0 {
		return nil, false
	}
	return underHeader(&l, rest[n:]), true
}

// isBlank reports whether a line says nothing: white space, or only the
// quote marks of a quoted paste ("> ", ">").
func isBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n', '\v', '\f', '>':
		default:
			return false
		}
	}
	return true
}

// contentStart returns where log content starts in a line that has a
// prefix before it: a traceback head, a frame, sglang's header, an
// exception line, torch's rank prefix ("[rank3]:"), argparse's usage. The prefix must end in a space; a frame's indentation
// stays with the frame.
func contentStart(b []byte) int {
	w := b[:min(len(b), maxHeader+len(tracebackHead))]
	best := -1
	take := func(i int) {
		if i > 0 && i <= maxHeader && isBlankByte(w[i-1]) && (best < 0 || i < best) {
			best = i
		}
	}
	if i := bytes.Index(w, tracebackHead); i > 0 {
		take(i)
	}
	// A frame's path may run past w: its `", line ` is looked for in the
	// whole line.
	if i := bytes.Index(w, framePrefix); i > 0 && bytes.Contains(b[i:], []byte(`", line `)) {
		j := i
		for j > 0 && w[j-1] == ' ' {
			j--
		}
		switch {
		case j > 0 && w[j-1] == '\t':
			take(j) // a tab ends the header; the spaces are the frame's
		case j > 0:
			take(j + 1)
		}
	}
	if i := afterBlank(w, "[20"); i > 0 && len(w) > i+20 && isStamp(w[i+1:i+20]) {
		take(i)
	}
	if i := excStart(w); i > 0 {
		take(i)
	}
	if i := afterBlank(w, "[rank"); i > 0 {
		if _, _, ok := cutTorchRank(w[i:]); ok {
			take(i)
		}
	}
	// A native crash's first line: the rest of its report follows
	// unprefixed or as frames.
	for _, opener := range nativeOpeners {
		if i := afterBlank(w, opener); i > 0 {
			take(i)
		}
	}
	// argparse's usage after a header that ends in a space or a tab (a
	// Loki export's labels).
	if i := bytes.Index(w, []byte("usage: ")); i > 0 && isBlankByte(w[i-1]) && usageRE.Match(b[i:]) {
		take(i)
	}
	// sglang's own header before any of those ("… [TP0] Scheduler hit
	// an exception: Traceback …") starts the content, not what it says.
	for off := 0; off < len(w); {
		i := afterBlank(w[off:], "[")
		if i < 0 {
			break
		}
		i += off
		if h, _ := SplitHeader(b[i:]); len(h.Time) > 0 || len(h.Ranks) > 0 {
			take(i)
			break
		}
		off = i + 1
	}
	if best < 0 {
		take(recordStart(b))
	}
	return best
}

// nativeOpeners start the first line of a native crash's report.
var nativeOpeners = [...]string{"Fatal Python error: ", "!!!!!!! Segfault encountered", "*** SIGSEGV", "*** SIGABRT", "*** Aborted at", "terminate called "}

// afterBlank returns where the first s that follows a space or a tab
// starts in b, or -1.
func afterBlank(b []byte, s string) int {
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(s))
		if i < 0 {
			return -1
		}
		i += off
		if i > 0 && isBlankByte(b[i-1]) {
			return i
		}
		off = i + 1
	}
}

// recordStart returns where, after a space in b's first maxHeader bytes,
// a record header that parseRecord knows starts and states a level or a
// time ("… 2026-04-05 16:47:59,431 - x - WARNING - …", "… ERROR 12-05
// 20:24:46 engine.py:366] …"), or -1.
func recordStart(b []byte) int {
	var l Line
	for i := 1; i < len(b) && i <= maxHeader; i++ {
		if !isBlankByte(b[i-1]) {
			continue
		}
		if !mayStartRecord(b[i:]) {
			continue
		}
		l = Line{}
		parseRecord(&l, b[i:])
		if l.Record && (l.Level != LevelNone || len(l.Header.Time) > 0) {
			return i
		}
	}
	return -1
}

// mayStartRecord is recordStart's quick look before parseRecord: a record
// header starts with a bracket (sglang's, torch's), a date or time ("2026-",
// "12-05 ", "17:04"), a level word, or glog's letter and date ("E0529").
func mayStartRecord(s []byte) bool {
	switch c := s[0]; {
	case c == '[':
		return true
	case isDigit(c):
		return len(s) > 2 && isDigit(s[1]) && (s[2] == '-' || s[2] == '/' || s[2] == ':' || isDigit(s[2]))
	case c >= 'A' && c <= 'Z':
		if len(s) > 4 && (c == 'I' || c == 'W' || c == 'E' || c == 'F') && isDigit(s[1]) && isDigit(s[2]) && isDigit(s[3]) && isDigit(s[4]) {
			return true
		}
		j := 1
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		return wordLevel(s[:j]) != LevelNone
	}
	return false
}

// excStart returns where an exception line ("pkg.SomeError: message")
// starts after a space in b, or -1.
func excStart(b []byte) int {
	for _, suffix := range [...]string{"Error", "Exception"} {
		off := 0
		for {
			i := bytes.Index(b[off:], []byte(suffix))
			if i < 0 {
				break
			}
			i += off
			off = i + len(suffix)
			if off < len(b) && b[off] != ':' {
				continue
			}
			s := i
			for s > 0 && (isNameByte(b[s-1]) && b[s-1] != '-' && b[s-1] != '*') {
				s--
			}
			if s > 0 && isBlankByte(b[s-1]) && isLetter(b[s]) && bareException(b[s:]) {
				return s
			}
		}
	}
	return -1
}

// stampIn returns the date and time a header states: the run around its
// first clock ("17:04:17"), with the date before it and the fraction and
// zone after it.
func stampIn(h []byte) []byte {
	c := -1
	for i := 0; i+8 <= len(h); i++ {
		if isClock(h[i : i+8]) {
			c = i
			break
		}
	}
	if c < 0 {
		return nil
	}
	s := c
	for s > 0 {
		p := h[s-1]
		if p >= '0' && p <= '9' || p == '-' || p == '/' || p == 'T' || p == ' ' && s > 1 && (h[s-2] >= '0' && h[s-2] <= '9') {
			s--
			continue
		}
		break
	}
	// A month name before the day: "Sep 09 17:04:17".
	if s >= 4 && h[s-1] == ' ' && isLetter(h[s-2]) && isLetter(h[s-3]) && isLetter(h[s-4]) && (s == 4 || !isLetter(h[s-5])) {
		s -= 4
	}
	for s < c && (h[s] == ' ' || h[s] == 'T' || h[s] == '-' || h[s] == '/') {
		s++
	}
	e := c + 8
	if e < len(h) && (h[e] == '.' || h[e] == ',') {
		e++
		for e < len(h) && h[e] >= '0' && h[e] <= '9' {
			e++
		}
	}
	if e < len(h) && h[e] == 'Z' {
		e++
	}
	return h[s:e]
}

// levelIn returns the level a header states: a level word, or TensorRT-LLM's
// "[E]".
func levelIn(h []byte) Level {
	for i := 0; i < len(h); {
		if !isLetter(h[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(h) && isLetter(h[j]) {
			j++
		}
		if l := wordLevel(h[i:j]); l != LevelNone {
			return l
		}
		if j == i+1 && i > 0 && h[i-1] == '[' && j < len(h) && h[j] == ']' {
			switch h[i] {
			case 'E':
				return LevelError
			case 'W':
				return LevelWarning
			case 'F':
				return LevelFatal
			case 'I':
				return LevelInfo
			}
		}
		i = j
	}
	return LevelNone
}

// rankIn returns the number of a rank a header names: "rank=2", "RANK 0",
// "rank3".
func rankIn(h []byte) []byte {
	for i := 0; i+4 < len(h); i++ {
		if h[i]|0x20 != 'r' || !bytes.EqualFold(h[i:i+4], []byte("rank")) || i > 0 && isLetter(h[i-1]) {
			continue
		}
		d := i + 4
		if d < len(h) && (h[d] == '=' || h[d] == ' ' || h[d] == ':') {
			d++
		}
		e := d
		for e < len(h) && h[e] >= '0' && h[e] <= '9' {
			e++
		}
		if e > d {
			return h[d:e]
		}
	}
	return nil
}

// heldLine is a line held back while a proposed header is judged.
type heldLine struct {
	n      int64
	raw    []byte
	owners []int32
}

// proposing returns the learner whose proposed header lines are held for,
// or nil.
func (e *Engine) proposing() *headerLearner {
	switch {
	case e.hdr.proposing:
		return &e.hdr
	case e.inner.proposing:
		return &e.inner
	}
	return nil
}

// hold keeps a line back while a proposed header is judged; once it is
// decided, the held lines are assembled in order.
func (e *Engine) hold(raw []byte, owners []int32) {
	i := len(e.held)
	if i < cap(e.held) {
		e.held = e.held[:i+1]
	} else {
		e.held = append(e.held, heldLine{})
	}
	h := &e.held[i]
	h.n = e.line
	h.raw = append(h.raw[:0], raw...)
	h.owners = append(h.owners[:0], owners...)
	if i == 0 {
		return // the line that proposed the header carries it
	}
	e.hnorm = Normalize(e.hnorm[:0], raw)
	p := e.proposing()
	rest, ok := p.under(e.hnorm)
	if p.judge(rest, ok) {
		e.replay(p)
	} else if len(e.held) >= maxHeld {
		p.giveUp()
		e.replay(p)
	}
}

// replay assembles the lines held for p's proposal, each under its own
// line number. A line replayed for the outer header may propose an inner
// one: the lines after it are held again, for that proposal.
func (e *Engine) replay(p *headerLearner) {
	cur := e.line
	held := e.held
	e.held, e.spare = e.spare[:0], nil
	prev := e.replaying
	e.replaying = max(prev, p.level())
	for i := range held {
		h := &held[i]
		e.line = h.n
		e.processLine(h.raw, h.owners)
	}
	e.replaying = prev
	e.spare = held[:0]
	e.line = cur
}

// level is 1 for the outer header and 2 for a header inside it: while the
// lines held for one are replayed, neither it nor a header outside it is
// proposed again.
func (h *headerLearner) level() int {
	if h.outer != nil {
		return 2
	}
	return 1
}

package matcher

import (
	"bytes"
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/pyrepr"
)

// The lines that shape events, in the words CPython, the C++ runtime and
// argparse print them.
var (
	duringHandling = []byte("During handling of the above exception, another exception occurred:")
	directCause    = []byte("The above exception was the direct cause of the following exception:")
	tracebackHead  = []byte("Traceback (most recent call last)")
	groupHead      = []byte("Exception Group Traceback (most recent call last)")
	threadHead     = []byte("Exception in thread ")
	// asyncio's heads of an error no one awaited, and the line after each
	// that names the task or callback; the traceback follows.
	asyncHeads   = [][]byte{[]byte("Task exception was never retrieved"), []byte("Future exception was never retrieved"), []byte("Exception in callback ")}
	asyncNotes   = [][]byte{[]byte("future: <"), []byte("handle: <")}
	loggingError = []byte("--- Logging error ---")
	framePrefix  = []byte(`File "`)
	terminate    = []byte("terminate called ")
	fatalPython  = []byte("Fatal Python error: ")
	whatPrefix   = []byte("what():")
	// segfaultBanner opens the report a native signal handler prints,
	// followed by frames in Python's shape ("!!!!!!! Segfault encountered
	// !!!!!!!", then `  File "<unknown>", line 0, in ncclCommInitRank`).
	segfaultBanner = []byte("!!!!!!! Segfault encountered")
)

// processHeadRE is multiprocessing's header before a child's uncaught
// exception: "Process SpawnProcess-3:".
var processHeadRE = regexp.MustCompile(`^Process [A-Za-z]*Process-\d+(?::\d+)*:$`)

// processHead reports whether a line is multiprocessing's header.
func processHead(msg []byte) bool {
	return bytes.HasPrefix(msg, []byte("Process ")) && processHeadRE.Match(msg)
}

// caughtSignalRE is the crash report of UCX and similar runtimes:
// "[host:123:0:456] Caught signal 11 (Segmentation fault: …)".
var caughtSignalRE = regexp.MustCompile(`Caught signal \d+ \(`)

// usageRE is argparse's usage line, and argErrorRE the error line that
// ends its usage text.
var (
	usageRE    = regexp.MustCompile(`^usage: \S+(?: \S+)? \[-h\]`)
	argErrorRE = regexp.MustCompile(`^[\w.-]+(?: [\w.-]+)?: error: `)
)

// errorStartRE is a message that says it is an error in its first word,
// "Error fetching …", "[sgl_kernel] CRITICAL: …". sglang's logger.error
// messages start with "Error" far more often than its warnings do.
var errorStartRE = regexp.MustCompile(`^(?:\[[\w.-]+\] )?(?:Error\b[ :]|ERROR\b|CRITICAL\b|FATAL\b|CUDA error\b|NCCL error\b)`)

// processLine runs one line through its stream's open event, or opens one.
func (e *Engine) processLine(raw []byte, owners []int32) {
	if e.proposing() != nil {
		e.hold(raw, owners)
		return
	}
	e.norm = Normalize(e.norm[:0], raw)
	if !e.inJSON {
		if msg, ok := e.json.parse(e.norm); ok {
			e.feedJSON(msg)
			return
		}
		if escapedTraceback(e.norm) {
			// Its lines, each under the record's header as the first.
			e.json.level, e.json.time = LevelNone, e.json.time[:0]
			e.feedJSON(e.norm)
			return
		}
	}
	if escapedFrameLine(e.norm) {
		e.norm = unescapeQuotes(e.norm)
	}
	var ln Line
	rest := cutStreams(&ln, e.norm)
	hdr, body, ok := e.hdr.cut(rest)
	e.carried = ok
	if ok {
		// A stream prefix under the header: "[pod/x/c] [rank3]: …". One
		// that a stream prefix before the header named already ("0: > (Worker
		// pid=1) …") keeps the stream it named, and loses the prefix.
		body = underHeader(&ln, body)
		hdr2, body2, ok2 := e.inner.cut(body)
		if ok2 {
			parseRecord(&ln, body2)
			e.inner.fill(&ln, hdr2)
		} else {
			parseRecord(&ln, body)
			if e.propose(&e.inner, body, &ln, raw, owners) {
				return
			}
		}
		e.hdr.fill(&ln, hdr)
	} else {
		if isBlank(rest) {
			rest = rest[len(rest):] // a quoted paste's blank line ("> ") is blank
		}
		parseRecord(&ln, rest)
		if e.propose(&e.hdr, rest, &ln, raw, owners) {
			return
		}
	}
	if e.inJSON {
		e.json.fill(&ln)
	}
	if ln.native {
		owners = e.dropPython(owners)
	}
	e.failed = e.failed[:0]
	if e.cmd.open {
		e.cmd.next(ln.Msg)
	}
	for _, o := range owners {
		switch {
		case o < 0 && marker(o) == markCommand && !e.cmd.open:
			e.cmd.start(ln.Msg)
		case o < 0 && marker(o) == markConfig:
			if text, ok := pyrepr.FindServerArgs(ln.Msg); ok {
				if e.config != nil {
					e.prevConfig = e.config // a restart: what the server ran with before
				}
				e.config, e.configLine = pyrepr.ParseServerArgs(text), e.line
			}
		case o < 0 && marker(o) == markMemory:
			e.mem.observe(ln.Msg)
		case o < 0 && marker(o) == markReady && bytes.HasPrefix(ln.Msg, readyMsg):
			e.ready.Store(e.line)
		}
	}
	e.assemble(&ln, owners)
	e.rememberFailed(&ln)
	e.prev = prevLine{no: e.line, len: len(e.norm), midWord: len(e.norm) > 0 && (isLetter(e.norm[len(e.norm)-1]) || isDigit(e.norm[len(e.norm)-1]))}
}

// escapedFrame is a traceback's frame pasted from a string whose quotes
// were escaped, one frame to a line: `  File \"/x/scheduler.py\", line 2063,
// in run_batch`.
var escapedFrame = []byte(`File \"`)

// escapedFrameLine reports whether a line is a frame pasted with escaped
// quotes, one to a line: not a whole traceback escaped into one line
// (`"Traceback…\n  File \"/x/a.py\", line 1, in f\n…"`), which is read as
// the string it is.
func escapedFrameLine(b []byte) bool {
	return bytes.IndexByte(b, '\\') >= 0 && bytes.Contains(b, escapedFrame) && !bytes.Contains(b, []byte(`\n`))
}

// unescapeQuotes turns each \" of a line into ", in place.
func unescapeQuotes(b []byte) []byte {
	w := 0
	for r := 0; r < len(b); r++ {
		if b[r] == '\\' && r+1 < len(b) && b[r+1] == '"' {
			continue
		}
		b[w] = b[r]
		w++
	}
	return b[:w]
}

// underHeader takes the stream prefixes under a learnt header off body
// into l, keeping the stream and rank that prefixes before the header
// gave it.
func underHeader(l *Line, body []byte) []byte {
	if len(l.Stream) == 0 {
		return cutStreams(l, body)
	}
	var under Line
	body = cutStreams(&under, body)
	if len(l.Rank) == 0 {
		l.Rank = under.Rank
	}
	if len(l.stamp) == 0 {
		l.stamp = under.stamp
	}
	return body
}

// propose lets p propose a header on a line, unless the lines held for
// p or for a header outside it are being replayed; rest is the line where
// p looks for its header and l the line parsed from it. It reports whether
// the line was held.
func (e *Engine) propose(p *headerLearner, rest []byte, l *Line, raw []byte, owners []int32) bool {
	if e.replaying >= p.level() || e.inJSON {
		return false
	}
	// The lines before a replayed line were assembled before it, and the
	// recent lines are those read last, after it: a proposal made on a
	// replayed line reads none back.
	recent := &e.recent
	if e.replaying > 0 {
		recent = &noRecent
	}
	if p.propose(rest, l, recent, &e.hnorm) <= 0 {
		return false
	}
	e.hold(raw, owners)
	if p.lookBack(recent, &e.hnorm) {
		e.replay(p)
		return true
	}
	// Every line before the proposing one carried the header (or there
	// was none): the whole input so far is in its shape. A line replayed
	// for an outer header reads no lines back, so only the first line
	// of the input is in that case: an inner header proposed on it.
	p.fromStart = int64(p.carried) == e.line
	return true
}

// dropPython leaves out of a line's proposed records those generated from
// sglang's Python source, which cannot have written a line of native code
// (Mooncake's "client.cpp:347] Transfer failed for task1" is not the
// Python message "Transfer failed"). Records written by hand, which know
// native lines, stay.
func (e *Engine) dropPython(owners []int32) []int32 {
	kept := owners[:0]
	for _, o := range owners {
		if o >= 0 && e.m.pats[o].gen {
			continue
		}
		kept = append(kept, o)
	}
	return kept
}

// readyMsg is what sglang logs once its server is serving.
var readyMsg = []byte("The server is fired up and ready to roll")

// ReadyLine is the line of the last notice that the server was up and
// serving, numbered as occurrences are (from the last Restart), or 0. It
// may be called while another goroutine feeds the engine.
func (e *Engine) ReadyLine() int64 { return e.ready.Load() }

// quietWords remembers the last messages with words of failure that their
// own logger stated below error level, so that the same message printed
// again by another handler without a level ("[time] Unexpected error
// during …" after "… - WARNING - … Unexpected error during …") stays
// what its logger said it is.
type quietWords struct {
	msgs [4][]byte
	next int
}

// quietCopy is the shortest message taken for a copy of a quiet one.
const quietCopy = 16

func (q *quietWords) remember(msg []byte) {
	q.msgs[q.next] = append(q.msgs[q.next][:0], msg...)
	q.next = (q.next + 1) % len(q.msgs)
}

// repeats reports whether msg is the end of a remembered message.
func (q *quietWords) repeats(msg []byte) bool {
	msg = bytes.TrimSpace(msg)
	if len(msg) < quietCopy {
		return false
	}
	for _, m := range q.msgs {
		if bytes.HasSuffix(bytes.TrimSpace(m), msg) {
			return true
		}
	}
	return false
}

// prevLine is what the engine remembers of the last line it looked at, to
// tell a line that a terminal or a copy hard-wrapped.
type prevLine struct {
	no      int64
	len     int
	midWord bool // it ends in a letter or digit
}

// wrapWidth is the shortest line taken to have been cut by a hard wrap:
// terminals and consoles wrap at 80 columns or more.
const wrapWidth = 72

// wrapped returns the open event a line without a header of its own
// continues when the line before it was cut mid-word by a hard wrap ("…
// NumelIn=1, Nume" / "lOut=1, Timeout(ms)=600000) ran for …"): the second
// half of a line of another stream (a rank's prefix is only on the first
// half). It returns -1 when the line is not such a half.
func (e *Engine) wrapped(ln *Line) int {
	if ln.Record || e.prev.no != e.line-1 || e.prev.len < wrapWidth || !e.prev.midWord {
		return -1
	}
	if len(ln.Msg) == 0 || !('a' <= ln.Msg[0] && ln.Msg[0] <= 'z' || '0' <= ln.Msg[0] && ln.Msg[0] <= '9') {
		return -1
	}
	for i, ev := range e.evs {
		// The half may carry the outer prefixes of the stream (a compose
		// service's), not the inner one (the rank's).
		if ev.end == e.line-1 && len(ev.key) > len(ln.Stream) && strings.HasPrefix(ev.key, string(ln.Stream)) {
			return i
		}
	}
	return -1
}

// assemble runs a parsed line through its stream's open event, or opens one.
func (e *Engine) assemble(ln *Line, owners []int32) {
	e.closeQuiet()
	if e.wrapLine != 0 && e.wrapLine == e.line-1 && !ln.Record && hasWord(ln.Msg) {
		if e.unwrap(ln) {
			return
		}
	}
	if i := e.wrapped(ln); i >= 0 {
		e.absorb(e.evs[i], ln.Msg, owners)
		return
	}
	if i := e.find(ln.Stream); i >= 0 {
		ev := e.evs[i]
		if view, ok := e.continues(ev, ln, owners); ok {
			e.absorb(ev, view, owners)
			if ev.upsideDown {
				e.closeEvent(i) // the head was its last line
			}
			return
		}
		e.closeEvent(i)
	}
	if len(owners) == 0 {
		return
	}
	e.open(ln, owners)
}

// Lines of other streams after which an open event whose own stream has
// said nothing more is ended: a rank's lone error record amid healthy
// lines, which would otherwise stay open to the end and keep every later
// line off the fast path. A traceback still waiting for its frames or its
// exception line waits longer: several ranks' tracebacks interleave.
const (
	quietLines      = 256
	quietTraceLines = 4096
)

// closeQuiet ends the open events whose streams have been quiet for long.
// It counts lines, not time, so what it ends does not depend on pacing.
func (e *Engine) closeQuiet() {
	for i := 0; i < len(e.evs); i++ {
		ev := e.evs[i]
		budget := int64(quietLines)
		if ev.state != stRecord && ev.state != stAfterExc || ev.pending > 0 {
			budget = quietTraceLines
		}
		if e.line-ev.end > budget {
			e.closeEvent(i)
			i--
		}
	}
}

// fail notes a hand-written record proposed for a line that did not
// confirm it: the line may have been hard-wrapped. Generated messages are
// left out: most end in a placeholder, which any next line would fill; so
// are records known by a traceback frame, whose line is a path, not a
// message a terminal wraps.
func (e *Engine) fail(o int32) {
	if p := &e.m.pats[o]; !p.gen && !p.hasFrame {
		e.failed = append(e.failed, o)
	}
}

// rememberFailed keeps the records that did not confirm on this line, to
// try them on the line and the next one joined.
func (e *Engine) rememberFailed(ln *Line) {
	e.wrapLine = 0
	if len(e.failed) == 0 {
		return
	}
	e.wrapLine = e.line
	e.wrapOwners = append(e.wrapOwners[:0], e.failed...)
	e.wrapMsg = append(e.wrapMsg[:0], ln.Msg[:min(len(ln.Msg), maxKept)]...)
	e.wrapTime = append(e.wrapTime[:0], ln.Header.Time...)
	e.wrapRank = append(e.wrapRank[:0], ln.Header.Ranks...)
}

// unwrap tries the records that failed on the previous line against that
// line joined to this one, as a terminal or a paste wraps a long line:
// with nothing between the parts, or a space. A record that matches is a
// hit on the previous line, in its event or in a new one that also takes
// this line; unwrap reports whether this line was taken.
func (e *Engine) unwrap(ln *Line) bool {
	for _, o := range e.wrapOwners {
		if e.confirm(o, ln.Msg) {
			// This line says it all on its own (an exception line under
			// the source line that raised it): nothing was wrapped.
			continue
		}
		for _, sep := range []string{"", " "} {
			e.joined = append(append(append(e.joined[:0], e.wrapMsg...), sep...), ln.Msg...)
			if !e.confirm(o, e.joined) {
				continue
			}
			return e.joinedHit(ln, o)
		}
	}
	return false
}

// joinedHit records a hit on the joined text of the previous line and this
// one.
func (e *Engine) joinedHit(ln *Line, o int32) bool {
	prev := e.line - 1
	if i := e.find(ln.Stream); i >= 0 && e.evs[i].end == prev {
		ev := e.evs[i]
		ev.hits = append(ev.hits, hit{line: prev, pat: o, msg: keep(e.joined)})
		if ev.start == prev && ev.state == stRecord && !ev.traceback && len(ev.excs) == 0 {
			// A line opened as an error for its words: the rest of it is
			// this line.
			ev.end, ev.lines = e.line, ev.lines+1
			return true
		}
		for k := range ev.excs {
			if x := &ev.excs[k]; x.line == prev && x.class != "" {
				if rest, ok := bytes.CutPrefix(e.joined, []byte(x.class+": ")); ok {
					x.msg = keep(rest)
				}
			}
		}
		return false // the line still goes through its event as usual
	}
	ev := e.newEvent(ln)
	ev.start, ev.time, ev.rank, ev.first = prev, string(e.wrapTime), string(e.wrapRank), keep(e.wrapMsg)
	ev.lines = 2
	ev.hits = append(ev.hits, hit{line: prev, pat: o, msg: keep(e.joined)})
	return true
}

// find returns the index of the open event of a stream, or -1.
func (e *Engine) find(stream []byte) int {
	for i, ev := range e.evs {
		if ev.key == string(stream) {
			return i
		}
	}
	return -1
}

// open starts an event at a line the automaton proposed, if the line
// confirms it: a record matches, or the line starts a traceback, a crash
// report or an error line.
func (e *Engine) open(ln *Line, owners []int32) {
	msg := ln.Msg
	var hits []int32
	opens, isExc, errLine, warnLine, headless := false, false, false, false, false
	// word: the line has a word that may say something went wrong;
	// explained: a record says what the line is (one below error level or
	// of a harmless line says it is no error; a wrapper, that the error is
	// what it carries); config: the line is a configuration listing.
	// benign: a record of a harmless line matched; it is no finding,
	// whatever other record matches it too.
	word, explained, config, benign := false, false, false, false
	native := ""
	k := kindPlain
	for _, o := range owners {
		switch {
		case o >= 0:
			p := &e.m.pats[o]
			if !e.confirm(o, msg) {
				e.fail(o)
				continue
			}
			// A generated wrapper ("RuntimeError {e}.", "Scheduler hit
			// an exception: {e}") names nothing itself: with no exception
			// to carry, the line is read by its own words. One that sglang
			// logs below error level ("Failed to import from custom_ar
			// with {e!r}" is a warning) says the error it carries is none.
			explained = explained || !p.gen || p.rec.Role != patterns.RoleWrapper || p.rec.Severity < patterns.SeverityError
			switch {
			case p.benign:
				benign = true
			case !p.quiet:
				hits = append(hits, o)
			}
		case marker(o) == markTraceback, marker(o) == markThread:
			opens = true
		case marker(o) == markProcess:
			opens = opens || processHead(msg)
		case marker(o) == markNative:
			if c, ok := nativeOpening(msg); ok {
				opens, native = true, c
			}
		case marker(o) == markException:
			isExc = isExc || bareException(msg)
		case marker(o) == markLogging:
			if bytes.HasPrefix(msg, loggingError) {
				opens, k = true, kindLogError
			}
		case marker(o) == markFrame:
			// A frame with no traceback head before it: an excerpt that
			// starts inside a traceback, or a head lost to interleaving.
			// A frame of faulthandler's stack dump ("line 314 in
			// _bootstrap", no comma) belongs to no exception: a dump
			// printed on a signal or a timeout, whose cause is elsewhere.
			if t := bytes.TrimLeft(msg, " \t"); isFrame(t) && !dumpFrame(t) {
				opens, headless = true, true
			}
		case marker(o) == markUsage:
			if usageRE.Match(msg) {
				opens, k = true, kindUsage
			}
		case marker(o) == markLevel:
			errLine = errLine || ln.Level >= LevelError && hasWord(msg) || errorStartRE.Match(msg)
			word = true
		case marker(o) == markWord:
			word = true
		case marker(o) == markConfig:
			config = true
		}
	}
	// A line that says it failed, and that no record explains, is an
	// error no record knows yet.
	if word && !explained && !config {
		switch {
		case ln.Level > LevelNone && ln.Level < LevelError:
			// A message its logger itself calls a warning: a copy of it
			// that another handler prints without a level is no error. A
			// warning that says something failed is reported as one.
			e.quiet.remember(msg)
			warnLine = ln.Level == LevelWarning && saysError(msg, LevelNone)
		case saysError(msg, ln.Level) && !e.quiet.repeats(msg):
			errLine = true
		}
	}
	if benign {
		hits = hits[:0]
		// A harmless line that quotes a traceback inside itself (a request
		// logged with its prompt) starts none; one that begins with its
		// head, or announces it for the lines after it, does.
		if opens && native == "" && !bytes.HasPrefix(msg, tracebackHead) && !announcedHead(msg) && !threadLike(msg) {
			opens = false
		}
		if ln.Record && !opens && !isExc {
			// A harmless record's message may go on over lines without
			// a header (a library's explanation, its own list of
			// failed attempts): they are the same harmless message.
			ev := e.newEvent(ln)
			ev.kind = kindBenign
			return
		}
	}
	if len(hits) == 0 && !opens && !isExc && !errLine && !warnLine {
		return
	}
	ev := e.newEvent(ln)
	ev.kind, ev.native = k, native
	if native != "" {
		ev.state = stNative
	}
	switch {
	case errLine:
		ev.level = max(ln.Level, LevelError)
	case ln.Level > LevelNone:
		ev.level = ln.Level
	}
	ev.warnLine = warnLine && !errLine
	// A group's head holds a traceback's.
	head := bytes.Contains(msg, tracebackHead)
	switch {
	case head && bytes.Contains(msg, groupHead):
		ev.state, ev.traceback, ev.kind = stFrames, true, kindGroup
	case head, bytes.HasPrefix(msg, rayUnhandledHead):
		ev.state, ev.traceback, ev.ipython = stFrames, true, ipythonHead(msg)
	case threadLike(msg):
		ev.state, ev.traceback = stThread, true
	case headless && !isExc:
		ev.state, ev.traceback, ev.afterFrame = stFrames, true, true
		t := bytes.TrimLeft(msg, " \t")
		ev.frameIndent = len(msg) - len(t)
		ev.noteFrame(t, e.line)
	case isExc:
		e.addExc(ev, trimQuote(msg))
		if !ln.Record {
			// A lone exception line's message goes on over the next
			// lines only when it starts there ("ImportError: ").
			ev.state, ev.msgOpen = stAfterExc, ev.excs[len(ev.excs)-1].msg == ""
		}
	}
	for _, h := range hits {
		if len(ev.hits) < maxEventHits {
			// The line's message, kept once for the event.
			ev.hits = append(ev.hits, hit{line: e.line, pat: h, msg: ev.first})
		}
	}
}

// newEvent opens an event for the line's stream, closing the oldest open
// event when too many are open.
func (e *Engine) newEvent(ln *Line) *event {
	if len(e.evs) >= maxStreams {
		e.closeEvent(0)
	}
	var ev *event
	if n := len(e.free); n > 0 {
		ev, e.free = e.free[n-1], e.free[:n-1]
		*ev = event{hits: ev.hits[:0], excs: ev.excs[:0]}
	} else {
		ev = &event{}
	}
	ev.key = keep(ln.Stream)
	ev.openLevel = ln.Level
	ev.carried = e.carried
	ev.start, ev.end, ev.lines = e.line, e.line, 1
	ev.time, ev.first = e.times.of(ln.Header.Time), keep(ln.Msg)
	ev.rank = e.ranks.of(ln.Header.Ranks)
	if ev.rank == "" {
		ev.rank = e.ranks.of(ln.Rank)
	}
	// The configuration the server ran under when the event began: a
	// restart's server_args line may end the event.
	ev.config, ev.command = nil, nil
	switch {
	case e.known != nil:
		ev.command = e.known
	case e.cmd.cfg != nil:
		ev.command = e.cmd.cfg
	}
	if ev.config = e.config; ev.config == nil {
		ev.config, ev.command = ev.command, nil
	}
	ev.mem = e.mem
	ev.prev = nil
	if e.prevConfig != nil && e.config != nil {
		ev.prev = e.prevConfig
	}
	e.evs = append(e.evs, ev)
	return ev
}

// nativeOpening recognises the first line of a native crash report and
// returns the class of what was thrown, or "native".
func nativeOpening(msg []byte) (string, bool) {
	if i := bytes.Index(msg, terminate); i >= 0 {
		rest := msg[i+len(terminate):]
		const inst = "after throwing an instance of '"
		if j := bytes.Index(rest, []byte(inst)); j >= 0 {
			c := rest[j+len(inst):]
			if k := bytes.IndexByte(c, '\''); k > 0 {
				return keep(c[:k]), true
			}
		}
		return "native", true
	}
	switch {
	case bytes.HasPrefix(msg, fatalPython), caughtSignalRE.Match(msg),
		bytes.HasPrefix(msg, []byte("*** SIGSEGV")), bytes.HasPrefix(msg, []byte("*** SIGABRT")),
		bytes.HasPrefix(msg, []byte("*** Aborted at")), bytes.HasPrefix(msg, []byte("*** Check failure stack trace")),
		bytes.HasPrefix(msg, segfaultBanner):
		return "native", true
	}
	return "", false
}

// continues reports whether a line belongs to an open event, moves the
// event's state along, and returns the view of the line to match (the
// line without an ExceptionGroup tree's margin).
// maxNextLines bounds how far into an event a record's Next line is looked
// for.
const maxNextLines = 3

// goesOn reports whether msg is the line a record of the event says goes
// on with it (Match.Next); with msg nil, whether a record of the event has
// such a line at all.
func (e *Engine) goesOn(ev *event, msg []byte) bool {
	for _, h := range ev.hits {
		if p := &e.m.pats[h.pat]; p.nextRE() != nil && (msg == nil || p.next.Match(msg)) {
			return true
		}
	}
	return false
}

func (e *Engine) continues(ev *event, ln *Line, owners []int32) ([]byte, bool) {
	msg := ln.Msg
	if ev.upFrames && !ev.traceback && ev.state == stAfterExc && ev.lines < maxEventLines && bytes.Contains(msg, tracebackHead) {
		// The head of a traceback printed upside down (newest line
		// first), perhaps in a record of its own ("Scheduler hit an
		// exception: Traceback…"): its exception line and frames came
		// before. The head says where and when it began.
		ev.traceback, ev.upsideDown = true, true
		if len(ln.Header.Time) > 0 {
			ev.time = string(ln.Header.Time)
		}
		if r := cmp.Or(string(ln.Header.Ranks), string(ln.Rank)); r != "" {
			ev.rank = r
		}
		ev.first = keep(msg)
		return msg, true
	}
	if ev.state == stRecord && ev.lines < maxNextLines && (e.goesOn(ev, msg) || len(bytes.TrimSpace(msg)) == 0 && e.goesOn(ev, nil)) {
		// The line a record says goes on with it, or a blank line before
		// it ("ERROR: Cannot install …", "", "The conflict is caused by:").
		ev.pyspy = ev.pyspy || pyspyLine(msg)
		return msg, true
	}
	if ev.lines >= maxEventLines || ln.Record && !tracebackRecord(ev, ln) {
		return nil, false
	}
	indented := len(msg) > 0 && (msg[0] == ' ' || msg[0] == '\t')
	blank := len(bytes.TrimSpace(msg)) == 0
	switch ev.state {
	case stRecord:
		switch {
		case ev.kind == kindBenign:
			t := bytes.TrimLeft(msg, " \t")
			return msg, ev.lines < maxBenignLines && !opensEvent(msg, owners) && !bareException(t) &&
				!bytes.HasPrefix(t, tracebackHead) && !bytes.HasPrefix(t, framePrefix) && !e.saysOwnError(msg, owners)
		case bytes.HasPrefix(msg, tracebackHead):
			ev.state, ev.traceback = stFrames, true
			return msg, true
		case pyspyLine(msg):
			// py-spy's interpreter line, or a thread of its dump with
			// the thread's frames indented under it.
			ev.pyspy = true
			return msg, true
		case ev.pyspy && blank:
			return msg, true
		case ev.kind == kindUsage && argErrorRE.Match(msg):
			// The error line ends the usage text, and says what the
			// error is when no record knows it.
			ev.kind, ev.level, ev.first = kindPlain, max(ev.level, LevelError), keep(msg)
			return msg, true
		}
		return msg, indented
	case stThread, stChain:
		switch {
		case ev.state == stThread && threadLike(msg):
			return msg, true // the headers of several dying threads or processes
		case ev.state == stThread && hasAnyPrefix(msg, asyncNotes):
			// The task or callback asyncio names, and the exception it
			// ended with.
			if m := asyncExcRE.FindSubmatch(msg); m != nil {
				ev.impliedExc = &exc{line: e.line, class: keep(m[1]), msg: keep(reprMessage(m[1], m[2]))}
			}
			return msg, true
		case bytes.HasPrefix(msg, groupHead), bytes.HasPrefix(bytes.TrimLeft(msg, " +"), groupHead):
			ev.state, ev.kind = stFrames, kindGroup
			return msg, true
		case bytes.HasPrefix(msg, tracebackHead):
			ev.state = stFrames
			return msg, true
		}
		// A blank line may come between a thread's header or a chain
		// line and its traceback (a double-spaced paste).
		return msg, blank
	case stFrames:
		return e.frameLine(ev, msg, indented, blank)
	case stAfterExc:
		source := ev.sourceNext
		ev.sourceNext = false
		switch {
		case bytes.Equal(msg, duringHandling), bytes.Equal(msg, directCause):
			ev.state, ev.msgOpen = stChain, false
			return msg, true
		case bytes.HasPrefix(msg, tracebackHead):
			// A traceback right after another one, with no chain line,
			// is another error.
			return nil, false
		case blank:
			ev.msgBlank = true
			return msg, true
		case indented:
			return msg, true
		case !ev.traceback && len(ev.excs) > 0 && isFrame(msg):
			// Frames pasted after their exception line without the
			// indentation of a traceback: a traceback condensed by hand
			// ("IndexError: …", then `File "…", line 1761, in f`), or
			// printed newest first by an export that trims lines. The
			// frame's source line may follow, as unindented.
			ev.sourceNext = true
			return msg, true
		case source && !opensEvent(msg, owners) && !bareException(msg):
			return msg, true
		case ev.kind == kindLogError && (bytes.HasPrefix(msg, []byte("Call stack:")) ||
			bytes.HasPrefix(msg, []byte("Message: ")) || bytes.HasPrefix(msg, []byte("Arguments: "))):
			return msg, true
		case wrapsRepr(ev) && reprExcRE.Match(msg):
			// The error a compiler's message wraps, as its repr, after
			// the source lines it quotes.
			m := reprExcRE.FindSubmatch(msg)
			ev.excs = append(ev.excs, exc{line: e.line, class: keep(m[1]), msg: keep(reprMessage(m[1], m[2])), group: ev.group, wrapped: true})
			return msg, true
		case ev.msgOpen && ev.msgLines < maxMessageLines && !opensEvent(msg, owners) && !bareException(msg) &&
			(!ev.msgBlank || ev.msgLines > 0 || ev.excs[len(ev.excs)-1].msg == "") &&
			(e.carried || !ev.carried):
			// After a blank line, only a message already known to span
			// lines goes on: one that started on the line after its class,
			// or that had further lines before the blank. A line without
			// the learnt header the event's lines carried is not part of
			// it (the prose after a quoted paste).
			// An exception message that spans lines goes on unindented:
			// after a traceback, or after an exception line whose message
			// starts on the next line.
			x := &ev.excs[len(ev.excs)-1]
			ev.msgLines++
			if x.msg == "" && hasWord(msg) {
				x.msg = keep(msg)
			}
			return msg, true
		}
		return nil, false
	case stNative:
		switch {
		case blank, indented,
			bytes.HasPrefix(msg, whatPrefix),
			bytes.HasPrefix(msg, []byte("Exception raised from ")),
			bytes.HasPrefix(msg, []byte("frame #")),
			bytes.HasPrefix(msg, []byte("Thread 0x")),
			bytes.HasPrefix(msg, []byte("Current thread 0x")),
			bytes.HasPrefix(msg, []byte("Stack (most recent call first)")),
			bytes.HasPrefix(msg, []byte("Extension modules:")),
			bytes.HasPrefix(msg, fatalPython), // CPython's report of the same crash
			numberedFrame(msg),
			bytes.HasPrefix(msg, []byte("====")),
			bytes.HasPrefix(msg, []byte("*** ")),
			bytes.HasPrefix(msg, []byte("@ ")),
			bytes.HasPrefix(msg, []byte("PC: @ ")),
			bytes.HasPrefix(msg, framePrefix): // the banner's frames, `File "<unknown>", line 0, in f`
			if w := bytes.TrimSpace(msg); bytes.HasPrefix(w, whatPrefix) && len(ev.excs) == 0 {
				e.addNative(ev, bytes.TrimSpace(w[len(whatPrefix):]))
			}
			return msg, true
		}
		return nil, false
	}
	return nil, false
}

// tracebackRecord reports whether a line that is a log record of its own
// carries the next line of the traceback ev is in: a logger that prints
// each line of a traceback as a record of the same level ("ERROR 12-05
// 20:24:46 engine.py:366]   File …", "[time] ERROR:     raise KeyError(key)").
func tracebackRecord(ev *event, ln *Line) bool {
	if !ev.traceback || ln.Level == LevelNone || ln.Level != ev.openLevel {
		return false
	}
	switch ev.state {
	case stFrames, stAfterExc, stChain, stThread:
	default:
		return false
	}
	msg := ln.Msg
	t := bytes.TrimLeft(msg, " \t")
	return len(t) == 0 || len(t) < len(msg) || bytes.HasPrefix(t, framePrefix) ||
		bytes.HasPrefix(t, tracebackHead) || bytes.Equal(t, duringHandling) || bytes.Equal(t, directCause) ||
		looksLikeException(t)
}

// numberedFrame reports whether a line is a frame of a numbered native
// backtrace, "12  /usr/lib/libucp.so.0(ucp_mem_map+0x2b9) [0x7f…]".
func numberedFrame(b []byte) bool {
	d := 0
	for d < len(b) && b[d] >= '0' && b[d] <= '9' {
		d++
	}
	return d > 0 && d+2 < len(b) && b[d] == ' ' && b[d+1] == ' '
}

// maxKept bounds each message an open event keeps, so that the memory of
// an event stays small whatever its lines hold; a message is cut there.
const maxKept = 8 << 10

// keep copies a message out of the line buffer for an open event.
func keep(b []byte) string {
	return string(b[:min(len(b), maxKept)])
}

// hasWord reports whether a line has a letter or digit: a message, not a
// rule of "====".
func hasWord(b []byte) bool {
	for _, c := range b {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return true
		}
	}
	return false
}

// maxMessageLines bounds the further lines of one exception message.
const maxMessageLines = 64

// frameLine handles a line inside a traceback: a frame, its source and
// caret lines, the exception line that ends it, or a line of an
// ExceptionGroup tree. Tracebacks that several processes print at once
// interleave; each exception line then ends the oldest open one.
func (e *Engine) frameLine(ev *event, msg []byte, indented, blank bool) ([]byte, bool) {
	if ev.kind == kindGroup {
		return e.groupLine(ev, msg, indented, blank)
	}
	if indented {
		t := bytes.TrimLeft(msg, " \t")
		switch margin := len(msg) - len(t); {
		case bytes.HasPrefix(t, framePrefix):
			if ev.frameIndent == 0 {
				ev.frameIndent = margin
			}
		case margin <= ev.frameIndent && endsTraceback(t):
			// No more indented than the frames, where only frames go:
			// the exception line of a traceback pasted with a margin on
			// every line, or with the frames' indentation.
			msg, indented = t, false
		}
	}
	switch {
	case blank:
		return msg, true
	case indented:
		t := bytes.TrimLeft(msg, " \t")
		after := ev.afterFrame
		if ev.afterFrame = bytes.HasPrefix(t, framePrefix); ev.afterFrame {
			ev.noteFrame(t, e.line)
		} else if after && !caretLine(t) {
			ev.lastCode = keep(t)
		}
		return msg, true
	case bytes.HasPrefix(msg, framePrefix):
		// Frames without indentation: a pasted traceback that lost it.
		ev.afterFrame = true
		ev.noteFrame(msg, e.line)
		return msg, true
	case bytes.HasPrefix(msg, tracebackHead), announcedHead(msg):
		// Another traceback's head: of a traceback interleaved with this
		// one, or one announced by a message ("router init state:
		// Traceback (most recent call last):") that another process
		// printed while this one printed its own head.
		ev.pending++
		return msg, true
	case threadLike(msg):
		return msg, true
	case bytes.Equal(msg, duringHandling), bytes.Equal(msg, directCause):
		// A chain line inside interleaved tracebacks.
		return msg, true
	case bytes.HasPrefix(msg, rayRemoteHead) && rayRemoteRE.Match(msg):
		// Ray re-raising a remote task's error: the remote frames follow,
		// and the error itself ends them. Should they be cut before it,
		// this line still names its class.
		ev.afterFrame = false
		if m := rayRemoteRE.FindSubmatch(msg); m != nil && ev.impliedExc == nil {
			ev.impliedExc = &exc{line: e.line, class: keep(m[1]), msg: keep(msg[len(m[0]):])}
		}
		return msg, true
	case ev.afterFrame && !endsTraceback(msg):
		// The source line of an unindented frame.
		ev.afterFrame, ev.lastCode = false, keep(msg)
		return msg, true
	case caretLine(msg):
		// The markers under a source line that lost its indentation
		// (Python 3.11 and later: "^^^^", "~~~^^^").
		return msg, true
	case ev.ipython && ipythonFrame(msg):
		return msg, true
	}
	if ev.group > 0 && !bareException(msg) && !endsTraceback(msg) {
		// A second head whose traceback never came (another process's
		// head printed beside this one, its frames lost): after the
		// first traceback's exception, a line that is no exception ends
		// the event.
		return nil, false
	}
	ev.afterFrame = false
	e.addExc(ev, msg)
	if ev.pending > 0 {
		ev.pending--
		ev.group++
		return msg, true
	}
	ev.state, ev.msgOpen, ev.msgLines, ev.msgBlank = stAfterExc, true, 0, false
	return msg, true
}

// IPython prints a traceback its own way: the class before the head
// ("AttributeError    Traceback (most recent call last)"), each frame as
// the file or cell and the function ("<ipython-input-3-ac9a> in
// <module>", "/opt/app/x.py in f(a, b)", "Cell In[3], line 11", "File
// /opt/app/x.py:54, in f(a)", or Colab's "[/opt/app/x.py](https://…) in
// f(a)"), then numbered lines of code around the one that ran ("---> 11
// f()"), and blank lines between frames; the exception line ends it as
// usual.
var (
	ipythonHeadRE  = regexp.MustCompile(`^[A-Za-z_][\w.]*\s{2,}Traceback \(most recent call last\)`)
	ipythonFrameRE = regexp.MustCompile(`^(?:\[?(?:<ipython-input-[\w-]+>|/\S+\.py|[A-Za-z]:\\\S+\.py)(?:\]\([^)]*\))? in \S|Cell In\[\d+\], line \d+|File \S+\.py:\d+, in \S|-*> ?\d+ |\s*\d+ )`)
)

// ipythonHead reports whether a line is IPython's head of a traceback.
func ipythonHead(msg []byte) bool { return ipythonHeadRE.Match(msg) }

// ipythonFrame reports whether a line is a frame of IPython's traceback
// or a numbered line of code under one.
func ipythonFrame(msg []byte) bool { return ipythonFrameRE.Match(msg) }

// announcedHead reports whether a line is a message that ends with a
// traceback's head: "Scheduler hit an exception: Traceback (most recent
// call last):".
func announcedHead(msg []byte) bool {
	return bytes.HasSuffix(bytes.TrimRight(msg, " \t:"), tracebackHead)
}

// groupLine handles a line of an ExceptionGroup tree:
//
//   - Exception Group Traceback (most recent call last):
//     |   File "x.py", line 3, in <module>
//     | ExceptionGroup: two (2 sub-exceptions)
//     +-+---------------- 1 ----------------
//     | ValueError: one
//     +------------------------------------
//
// It returns the line without the tree's margin, for matching.
func (e *Engine) groupLine(ev *event, msg []byte, indented, blank bool) ([]byte, bool) {
	if blank {
		return msg, true
	}
	trimmed := bytes.TrimLeft(msg, " ")
	switch {
	case bytes.HasPrefix(trimmed, []byte("| ")):
		content := trimmed[2:]
		if len(content) > 0 && content[0] != ' ' && !bytes.HasPrefix(content, framePrefix) &&
			!bytes.Equal(content, duringHandling) && !bytes.Equal(content, directCause) &&
			!bytes.HasPrefix(content, tracebackHead) && looksLikeException(content) {
			e.addExc(ev, content)
		}
		return content, true
	case bytes.HasPrefix(trimmed, []byte("+")), bytes.HasPrefix(trimmed, []byte("|")):
		return msg, true
	case indented:
		return msg, true
	}
	// The top-level group's own exception line is printed without margin
	// when the group is the last link of a chain.
	if looksLikeException(msg) {
		e.addExc(ev, msg)
		ev.state, ev.msgOpen, ev.msgLines, ev.msgBlank = stAfterExc, true, 0, false
		return msg, true
	}
	return nil, false
}

// looksLikeException reports whether an unindented line can be the line
// that ends a traceback: "pkg.SomeError: message", or a bare class whose
// name says it is one.
func looksLikeException(msg []byte) bool {
	class, text, ok := splitExcLine(msg)
	if !ok {
		return false
	}
	if text >= 0 { // has ": message"
		return true
	}
	return errorClass(msg[:class])
}

// endsTraceback reports whether the line after an unindented frame is
// the exception that ends the traceback rather than the frame's source
// line: it looks like an exception line and its class is spelt as one, the
// last part of the name capitalised ("RuntimeError: …", "zmq.error.ZMQError:
// …") where a source line's annotated assignment is not ("self.comm:
// ncclComm_t = …").
func endsTraceback(msg []byte) bool {
	n, text, ok := splitExcLine(msg)
	if !ok {
		return false
	}
	class := msg[:n]
	last := class[bytes.LastIndexByte(class, '.')+1:]
	last = bytes.TrimLeft(last, "_")
	if len(last) == 0 || last[0] < 'A' || last[0] > 'Z' {
		return false
	}
	if text >= 0 {
		return true
	}
	return errorClass(class)
}

// caretLine reports whether a line holds only the markers Python prints
// under the part of a source line that failed.
func caretLine(msg []byte) bool {
	t := bytes.TrimSpace(msg)
	if len(t) == 0 {
		return false
	}
	for _, c := range t {
		if c != '^' && c != '~' && c != ' ' {
			return false
		}
	}
	return true
}

// errorClass reports whether a class name says it is an exception in its
// own right: it ends in Error, Exception, Interrupt, Exit, Warning,
// Iteration, Failure, Fault or Timeout.
func errorClass(class []byte) bool {
	for _, suffix := range []string{"Error", "Exception", "Interrupt", "Exit", "Warning", "Iteration", "Failure", "Fault", "Timeout"} {
		if bytes.HasSuffix(class, []byte(suffix)) {
			return true
		}
	}
	return false
}

// bareException reports whether a line outside a traceback is an
// exception line: "pkg.SomeError: message", or the class alone before a
// message on the following lines ("ImportError: "). Posted excerpts may
// wrap it in Markdown quotes or backticks. Python has no class named
// Error: "Error: …" is a message that says so.
func bareException(msg []byte) bool {
	msg = trimQuote(msg)
	if bytes.HasPrefix(msg, []byte("Error:")) {
		return false // a message's own "Error: …", not a class
	}
	if bareExc(msg) {
		return true
	}
	t := bytes.TrimRight(msg, " ")
	return bytes.HasSuffix(t, []byte(":")) && bareExc(append(t[:len(t):len(t)], ' ', 'x'))
}

// trimQuote drops the Markdown that wraps a line pasted into an issue:
// backticks, bold, a blockquote marker.
func trimQuote(msg []byte) []byte {
	n := len(msg)
	msg = bytes.TrimLeft(msg, "`*> ")
	if len(msg) < n {
		msg = bytes.TrimRight(msg, "`* ")
	}
	return msg
}

// rayRemoteHead and rayRemoteRE recognise the line with which Ray
// re-raises a remote task's or actor's error inside the caller's
// traceback: "ray.exceptions.RayTaskError(RuntimeError): ray::Worker.f()
// (pid=…)", the remote frames and the remote exception after it.
// rayUnhandledHead starts Ray's report of a remote error nobody awaited,
// which goes on with the remote frames and exception like a traceback.
var rayUnhandledHead = []byte("Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ")

var (
	rayRemoteHead = []byte("ray.exceptions.Ray")
	rayRemoteRE   = regexp.MustCompile(`^ray\.exceptions\.Ray(?:Task|Actor)Error\(([A-Za-z_][\w.]*)\): `)
)

// maxFramePaths bounds the frames whose files an event keeps.
const maxFramePaths = 64

// inFrames reports whether a traceback passed through a Python package's
// code: a frame's file is in a directory of that name.
func (ev *event) inFrames(pkg string) bool {
	for _, p := range ev.framePaths {
		if strings.Contains(p, "/"+pkg+"/") {
			return true
		}
	}
	return false
}

// ownPath is what the path of a frame in sglang's own code holds.
var ownPath = []byte("sglang/srt/")

// noteFrame keeps a traceback's frame line as its innermost so far, and as
// its innermost in sglang's own code when it is one.
func (ev *event) noteFrame(frame []byte, line int64) {
	if ev.lastFrame != "" && passThrough(frame) {
		return // its caller is where the error was raised
	}
	ev.lastFrame, ev.lastFrameAt, ev.lastCode = keep(frame), line, ""
	if len(ev.framePaths) < maxFramePaths {
		if path, ok := framePath(ev.lastFrame); ok {
			ev.framePaths = append(ev.framePaths, path)
		}
	}
	if bytes.Contains(frame, ownPath) {
		ev.ownFrame = ev.lastFrame
	}
}

// passThroughRE is a frame that raises an attribute error for its caller:
// torch's Module.__getattr__ (`'ReplicatedLinear' object has no attribute
// 'weight'`), and transformers' config and tokenizer lookups. The caller's line is the
// one that read the attribute.
var passThroughRE = regexp.MustCompile(`(?:torch/nn/modules/module|transformers/configuration_utils|transformers/tokenization_utils_base)\.py", line \d+, in __getattr(?:ibute)?__$`)

// passThrough reports whether a frame only raises for its caller.
func passThrough(frame []byte) bool {
	return bytes.HasSuffix(frame, []byte("__")) && passThroughRE.Match(frame)
}

// saysOwnError reports whether a record of an error confirms msg: a
// line a harmless message's lines cannot hold ("Failed to instantiate
// MiniCPMV: The input size is not aligned…" after sglang's notice that a
// compiler's message can be ignored is an error of its own).
func (e *Engine) saysOwnError(msg []byte, owners []int32) bool {
	for _, o := range owners {
		if o < 0 {
			continue
		}
		p := &e.m.pats[o]
		if !p.benign && !p.quiet && p.rec.Severity >= patterns.SeverityError && p.rec.Role != patterns.RoleWrapper && e.confirm(o, msg) {
			return true
		}
	}
	return false
}

// opensEvent reports whether a line would start an event of its own.
func opensEvent(msg []byte, owners []int32) bool {
	for _, o := range owners {
		if o < 0 && marker(o) != markException && marker(o) != markLevel && marker(o) != markWord && marker(o) != markMemory {
			return true
		}
	}
	return threadLike(msg)
}

// asyncExcRE reads the exception of asyncio's note on a task or future:
// "future: <Task finished … exception=RuntimeError('boom')>".
var asyncExcRE = regexp.MustCompile(`exception=([A-Za-z_][\w.]*)\((.*)\)>\s*$`)

// reprExcRE reads an exception written as its repr on a line of its own:
// "AssertionError('initial value for `x` is of type fp16')".
var reprExcRE = regexp.MustCompile(`^([A-Za-z_][\w.]*(?:Error|Exception))\((.*)\)\s*$`)

// wrapsRepr reports whether an event's last exception is one that ends its
// message with the repr of the error it caught: Triton's CompilationError.
func wrapsRepr(ev *event) bool {
	n := len(ev.excs)
	return n > 0 && !ev.excs[n-1].wrapped && strings.HasSuffix(ev.excs[n-1].class, "CompilationError")
}

// reprMessage turns the argument of an exception's repr into its message
// as Python prints it: RuntimeError('boom') says boom, and a KeyError says
// its key quoted, 'rid-1'.
func reprMessage(class, arg []byte) []byte {
	if bytes.HasSuffix(class, []byte("KeyError")) {
		return arg
	}
	if n := len(arg); n >= 2 && (arg[0] == '\'' || arg[0] == '"') && arg[n-1] == arg[0] && !bytes.ContainsAny(arg[1:n-1], "'\"") {
		return arg[1 : n-1]
	}
	return arg
}

// escapedHead is a traceback's head followed by an escaped newline and its
// first frame.
var escapedHead = []byte(`Traceback (most recent call last):\n  File `)

// escapedTraceback reports whether a line holds a whole traceback with its
// newlines escaped (`… Traceback (most recent call last):\n  File "…`), as
// a logger that keeps each record on one line writes it; not when the
// traceback is a value inside a JSON body or a quoted string the line
// carries, which its own message says what to make of.
func escapedTraceback(line []byte) bool {
	i := bytes.Index(line, escapedHead)
	return i >= 0 && !bytes.ContainsAny(line[:i], "{\"'")
}

// isFrame reports whether a line is a traceback's frame line,
// `File "…", line 12, in f`, without its indentation.
func isFrame(msg []byte) bool {
	return bytes.HasPrefix(msg, framePrefix) && bytes.Contains(msg, []byte(`", line `))
}

// pyspyLineRE is a line of py-spy's dump outside a stack: the interpreter
// it read (`Python v3.11.13 (/usr/bin/python3.11)`), and the head of a
// thread (`Thread 499 (idle): "MainThread"`, `Thread 0x7F3A (active+gil):
// "Thread-2"`).
var pyspyLineRE = regexp.MustCompile(`^(?:Thread (?:\d+|0x[0-9A-Fa-f]+) \([\w+ ]+\): "|Python v\d+\.\d+[\w.+]* \()`)

// pyspyLine reports whether a line is one of py-spy's dump outside a
// stack.
func pyspyLine(msg []byte) bool {
	return (bytes.HasPrefix(msg, []byte("Thread ")) || bytes.HasPrefix(msg, []byte("Python v"))) && pyspyLineRE.Match(msg)
}

// dumpFrame reports whether a frame is in the shape of faulthandler's
// stack dump, `File "x.py", line 314 in _bootstrap`, rather than a
// traceback's `File "x.py", line 314, in _bootstrap`.
func dumpFrame(msg []byte) bool {
	i := bytes.Index(msg, []byte(`", line `))
	if i < 0 {
		return false
	}
	rest := msg[i+len(`", line `):]
	n := 0
	for n < len(rest) && isDigit(rest[n]) {
		n++
	}
	return n > 0 && bytes.HasPrefix(rest[n:], []byte(" in "))
}

// threadLike reports whether a line heads a traceback the way a dying
// thread's or process's header does: a line, then the traceback.
func threadLike(msg []byte) bool {
	return bytes.HasPrefix(msg, threadHead) || hasAnyPrefix(msg, asyncHeads) || processHead(msg)
}

func hasAnyPrefix(msg []byte, prefixes [][]byte) bool {
	for _, p := range prefixes {
		if bytes.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// absorb adds a continuing line to an event.
func (e *Engine) absorb(ev *event, view []byte, owners []int32) {
	if len(bytes.TrimSpace(view)) > 0 {
		ev.end = e.line // a trailing blank line is not part of the event
	}
	if ev.state == stAfterExc && !ev.traceback {
		// The frames of a traceback printed upside down, after its
		// exception line; the innermost comes first.
		if t := bytes.TrimLeft(view, " \t"); len(t) < len(view) && bytes.HasPrefix(t, framePrefix) || isFrame(view) {
			ev.upFrames = true
			if ev.lastFrame == "" {
				ev.lastFrame = keep(t)
			}
		}
	}
	ev.lines++
	for _, o := range owners {
		if o >= 0 && e.m.pats[o].benign && e.m.pats[o].hasFrame && e.confirm(o, view) &&
			!slices.Contains(ev.benignFrames, o) {
			// Raised where a harmless exception is: the traceback is no
			// finding if its exception is that one.
			ev.benignFrames = append(ev.benignFrames, o)
		}
		if o < 0 || e.m.pats[o].benign || e.m.pats[o].quiet {
			continue
		}
		if e.confirm(o, view) {
			e.addHit(ev, o, view)
		} else {
			e.fail(o)
		}
	}
}

func (e *Engine) addHit(ev *event, pat int32, msg []byte) {
	if len(ev.hits) >= maxEventHits {
		return
	}
	if e.m.pats[pat].frame != nil {
		// A record known by a frame of the traceback needs one: a record
		// that names any frame of sglang's code would otherwise fill the
		// event's hits with a deep traceback's frames, and leave no room
		// for the exception line's own record.
		for i := range ev.hits {
			if h := &ev.hits[i]; h.pat == pat {
				if e.m.pats[pat].raisedHere {
					// The innermost frame it names is the one that counts.
					h.line, h.msg = e.line, keep(msg)
				}
				return
			}
		}
	}
	ev.hits = append(ev.hits, hit{line: e.line, pat: pat, msg: keep(msg)})
}

func (e *Engine) addExc(ev *event, msg []byte) {
	if len(ev.excs) >= maxEventExcs {
		return
	}
	x := exc{line: e.line, group: ev.group, code: ev.lastCode}
	t := bytes.TrimRight(msg, " ")
	if class, text, ok := splitExcLine(t); ok {
		x.class = keep(t[:class])
		if text >= 0 {
			x.msg = keep(t[text:])
		}
	} else if i := bytes.Index(msg, []byte(": ")); i > 0 && bareExc(msg) {
		x.class, x.msg = keep(msg[:i]), keep(msg[i+2:])
	} else {
		x.msg = keep(msg)
	}
	// A class that only carries another exception, and does not call
	// itself an error ("jax…JaxStackTraceBeforeTransformation: TypeError:
	// …"), names the one it carries first in its message: that one is the
	// error.
	if x.class != "" && !errorClass([]byte(x.class)) && bareExc([]byte(x.msg)) {
		if i := strings.Index(x.msg, ": "); i > 0 {
			x.class, x.msg = x.msg[:i], x.msg[i+2:]
		}
	}
	ev.excs = append(ev.excs, x)
}

// addNative records what a native exception said (its what() line).
func (e *Engine) addNative(ev *event, what []byte) {
	class := ev.native
	if class == "native" {
		class = ""
	}
	ev.excs = append(ev.excs, exc{line: e.line, class: class, msg: keep(what)})
}

// closeEvent ends the i-th open event and reports what it was: one
// occurrence, or one per traceback when several were interleaved.
func (e *Engine) closeEvent(i int) {
	ev := e.evs[i]
	e.evs = append(e.evs[:i], e.evs[i+1:]...)
	defer func() { e.free = append(e.free, ev) }()
	groups := 1
	for _, x := range ev.excs {
		groups = max(groups, x.group+1)
	}
	if ev.kind == kindBenign {
		return // a harmless message, however many lines it took
	}
	for g := range groups {
		if o, ok := e.occurrence(ev, g, groups > 1); ok {
			// A paste indented as a whole indents every message.
			o.Message = strings.TrimLeft(o.Message, " \t")
			if o.Message == "" && o.Exception != "" {
				// An exception with no message of its own (a bare
				// assert): the source line that raised it says what,
				// unless it only raises the class again. The line is
				// that of the exception's own traceback, not of a later
				// one in its chain.
				if code := raisingCode(ev, o.Exception); !strings.HasPrefix(code, "raise ") {
					o.Message = code
				}
			}
			e.emit(o)
		}
	}
}

// raisingCode returns the source line that raised the event's exception
// of the class with no message: of its own traceback where the event has
// it, else the last one read (a traceback printed upside down reads its
// frames after the exception).
func raisingCode(ev *event, class string) string {
	for _, x := range ev.excs {
		if x.class == class && x.msg == "" && x.code != "" {
			return x.code
		}
	}
	return ev.lastCode
}

// maxBenignLines bounds the lines a harmless record's message may go on
// over.
const maxBenignLines = 64

// occurrence decides what group g of an event was. The record of a user's
// pack that it names has its title, cause and fix loaded (see
// patterns.Record.Load) before it goes out.
func (e *Engine) occurrence(ev *event, g int, split bool) (Occurrence, bool) {
	o, ok := e.decideOccurrence(ev, g, split)
	if ok && o.Record != nil {
		_ = o.Record.Load() // a failure is in the record's cause
	}
	return o, ok
}

func (e *Engine) decideOccurrence(ev *event, g int, split bool) (Occurrence, bool) {
	o := Occurrence{Source: e.source, Line: ev.start, EndLine: ev.end, Time: ev.time, Rank: ev.rank, Config: ev.config}
	if ev.mem.known() || ev.prev != nil || ev.command != nil {
		o.Config = context{base: ev.config, mem: ev.mem, prev: ev.prev, command: ev.command}
	}
	if ev.traceback {
		o.Frame, o.OwnFrame = ev.lastFrame, ev.ownFrame
	}
	if len(ev.excs) == 0 && ev.impliedExc != nil {
		ev.excs = append(ev.excs, *ev.impliedExc)
	}
	var excs []exc
	for _, x := range ev.excs {
		if x.group == g {
			excs = append(excs, x)
		}
	}
	for _, b := range ev.benignFrames {
		// The exception the traceback ended with is the harmless one,
		// raised where it always is: no finding. One raised while it was
		// handled is another matter.
		if len(excs) > 0 && frameException(&e.m.pats[b], excs[len(excs)-1:]) != nil {
			return o, false
		}
	}
	inGroup := func(h *hit) bool {
		p := &e.m.pats[h.pat]
		if p.raisedHere && (h.line != ev.lastFrameAt || len(excs) == 0) {
			// Passed up through this frame, not raised in it.
			return false
		}
		if p.hasFrame && frameException(p, excs) == nil && (len(excs) > 0 || p.rec.Match.Regex != "" || p.anyFunction) {
			// Raised there, but not this exception; or a traceback cut
			// before its exception, where the record needs the message
			// to tell its error from the others raised there, or names
			// no function, only the files its error is raised in.
			return false
		}
		if !split {
			return true
		}
		for _, x := range ev.excs {
			if x.line == h.line {
				return x.group == g
			}
		}
		return g == 0
	}
	best := e.bestHit(ev, inGroup)
	if best == nil || e.m.pats[best.pat].gen || e.m.pats[best.pat].rec.Role == patterns.RoleWrapper || e.m.pats[best.pat].raisedHere {
		// No hand-written cause: a message sglang raises, found in the
		// exception lines, root first, says more than a wrapper. But not
		// more than a hand-written wrapper of the same line, nor than one
		// that another generated wrapper would only repeat: what that
		// record knows of the message is what its generated twin lacks.
		handWrapper := best != nil && !e.m.pats[best.pat].gen
		for _, x := range excs {
			if p := e.m.raisedMatch(x.class, x.msg, ev.inFrames); p != nil {
				if handWrapper && (x.line == best.line || p.rec.Role == patterns.RoleWrapper) {
					continue
				}
				o.Record, o.ID, o.Exception, o.Message = p.rec, p.rec.ID, x.class, x.msg
				o.capPat, o.capMsg = p, x.msg
				return o, ev.kind != kindLogError
			}
		}
		if best != nil && e.m.pats[best.pat].raisedHere {
			// A bare assert's own site says more than its class.
			if root, ok := rootExc(excs); ok {
				if rec := e.bareRecord(ev, root, len(excs)); rec != nil {
					o.Record, o.ID, o.Exception, o.Message = rec, rec.ID, root.class, root.msg
					return o, true
				}
			}
		}
	}
	if best != nil && e.m.pats[best.pat].hasFrame {
		// Found by where it is raised: the exception is the key line.
		p := &e.m.pats[best.pat]
		o.Record, o.ID = p.rec, p.rec.ID
		if x := frameException(p, excs); x != nil {
			o.Exception, o.Message = x.class, x.msg
			o.capPat, o.capMsg = p, x.msg
		} else {
			// A traceback cut before its exception: where it stopped is
			// what the record knows.
			o.Message, o.Partial = cmp.Or(ev.lastFrame, best.msg), true
		}
		return o, true
	}
	if best != nil {
		p := &e.m.pats[best.pat]
		o.Record, o.ID, o.Message = p.rec, p.rec.ID, best.msg
		o.capPat, o.capMsg = p, best.msg
		for _, x := range excs {
			if x.line == best.line && x.class != "" {
				o.Exception, o.Message = x.class, x.msg
			}
		}
		if p.rec.Role == patterns.RoleWrapper && !p.gen {
			// The error a wrapper's message closes with (Triton's
			// CompilationError ends with the AssertionError it caught)
			// is what it wraps.
			for _, x := range excs {
				if x.line > best.line && x.wrapped {
					o.Exception, o.Message = x.class, x.msg
				}
			}
		}
		if o.Exception == "" && p.rec.Role == patterns.RoleWrapper {
			if root, ok := rootExc(excs); ok {
				o.Exception = root.class
			} else if ev.traceback {
				// The traceback it introduces was cut before its
				// exception: what it wraps is missing.
				o.Partial = true
			}
		}
		if !p.gen || p.rec.Role != patterns.RoleWrapper {
			return o, true
		}
		// A generated wrapper ("Scheduler hit an exception: {e}") names
		// nothing: the exception it carries is the finding, or the event
		// is reported as if no record had matched.
		o.Record, o.Captures, o.capPat, o.ID, o.Exception, o.Message = nil, nil, nil, "", "", ""
	}
	if root, ok := rootExc(excs); ok {
		o.ID, o.Exception, o.Message = UnknownError, root.class, root.msg
		switch {
		case ev.traceback && ev.openLevel > LevelNone && ev.openLevel < LevelError:
			// A traceback its own logger printed below error level
			// ("WARNING … falling back", exc_info=True): an exception
			// the program caught and went on from.
			o.ID = UnknownWarning
		case ev.traceback:
			o.ID = UnknownTraceback
			if rec := e.bareRecord(ev, root, len(excs)); rec != nil {
				o.Record, o.ID = rec, rec.ID
			}
		}
		if ev.kind == kindLogError {
			return o, false // a logging call's own mistake, not the server's
		}
		return o, true
	}
	switch {
	case g > 0:
		return o, false
	case ev.traceback:
		o.ID, o.Message, o.Partial = UnknownTraceback, ev.first, true
		if ev.lastFrame != "" {
			o.Message = ev.lastFrame
		}
	case ev.native != "", ev.level >= LevelError:
		o.ID, o.Message = UnknownError, ev.first
		if ev.native != "" && ev.native != "native" {
			o.Exception = ev.native
		}
	case ev.warnLine:
		o.ID, o.Message = UnknownWarning, ev.first
	default:
		return o, false
	}
	if ev.kind == kindLogError {
		return o, false
	}
	return o, true
}

// frameException returns the exception of a traceback that a frame
// record describes: of its class, and matching its regex when it has one.
func frameException(p *pattern, excs []exc) *exc {
	for i := range excs {
		x := &excs[i]
		if !SameClass(x.class, p.rec.Match.Exception) {
			continue
		}
		if p.rec.Match.Regex != "" {
			if re := p.regexp(); re == nil || !re.MatchString(x.msg) {
				continue
			}
		}
		return x
	}
	return nil
}

// bareRecord returns the generated record of the place in sglang's source
// that raised a traceback's lone exception when it has no message (an
// assert without one, raise NotImplementedError), or nil: the innermost
// frame is sglang's, and names a function with such a site; of several
// asserts there, the source line under the frame picks the one.
func (e *Engine) bareRecord(ev *event, x exc, n int) *patterns.Record {
	if n != 1 || x.msg != "" || ev.lastFrame == "" || ev.lastFrame != ev.ownFrame {
		return nil
	}
	m := frameLineRE.FindStringSubmatch(ev.lastFrame)
	if m == nil {
		return nil
	}
	sites, err := patterns.BareSites(m[1], m[2], shortClass(x.class), ev.lastCode)
	if err != nil || len(sites) != 1 {
		return nil
	}
	return sites[0].Record()
}

// framePath finds a frame line's file, in a paste that shortened the rest
// too: the line is ^\s*File "([^"]+)", read without a regexp. It returns
// the file, and whether the line has one.
func framePath(frame string) (string, bool) {
	t := strings.TrimLeft(frame, " \t\n\f\r")
	if !strings.HasPrefix(t, `File "`) {
		return "", false
	}
	t = t[len(`File "`):]
	end := strings.IndexByte(t, '"')
	if end <= 0 {
		return "", false
	}
	return t[:end], true
}

// frameLineRE takes a frame line apart: its file and its function.
var frameLineRE = regexp.MustCompile(`^\s*File "([^"]+)", line \d+, in (\S+)`)

// shortClass is an exception class without its module.
func shortClass(class string) string {
	if i := strings.LastIndexByte(class, '.'); i >= 0 {
		return class[i+1:]
	}
	return class
}

// rootExc picks the exception a traceback is about: the first of a chain
// (the root comes first, the wrappers after it), skipping the
// ExceptionGroup that only collects the real ones.
func rootExc(excs []exc) (exc, bool) {
	for _, x := range excs {
		if !strings.HasSuffix(x.class, "ExceptionGroup") {
			return x, true
		}
	}
	if len(excs) > 0 {
		return excs[0], true
	}
	return exc{}, false
}

// bestHit picks the event's key line among the hits in: a record of a
// phase last; a hand-written record before a generated one, a cause before a symptom before a wrapper, then
// the earliest line (the root of a chained traceback comes first); on one
// line, a generated record of the server before one of the diffusion
// runtime.
func (e *Engine) bestHit(ev *event, in func(*hit) bool) *hit {
	// rank orders records: hand-written before generated; a cause before
	// a symptom, which only passes an error on, and a symptom before a
	// wrapper, which only carries one; of two otherwise alike, the
	// specific one before a generic fallback, and a fallback known by
	// its message before one known by any frame of the traceback.
	rank := func(h *hit) int {
		p := &e.m.pats[h.pat]
		if p.phase() {
			// It says only where the server was: a record of what failed
			// comes first (a generated one from the exception lines, as
			// for any wrapper, below), but it says more than a wrapper
			// that only carries the error ("Scheduler hit an exception").
			return 2*4 - 1
		}
		r := 0
		if p.gen {
			r += 3
		}
		switch p.rec.Role {
		case patterns.RoleSymptom:
			r++
		case patterns.RoleWrapper:
			r += 2
		}
		r *= 4
		if p.fallback {
			r++
			if p.frame != nil {
				r++
			}
			if p.raisedHere {
				r++ // known by the error's class alone
			}
		}
		return r
	}
	var best *hit
	for i := range ev.hits {
		h := &ev.hits[i]
		if !in(h) {
			continue
		}
		if best == nil || rank(h) < rank(best) {
			best = h
			continue
		}
		if rank(h) != rank(best) || h.line != best.line {
			continue
		}
		// Two generated records of one line: the message that says more
		// ("Detected errors during sampling! NaN in the logits." over
		// "Detected errors during sampling!"), then the server's over the
		// diffusion runtime's copy.
		hp, bp := &e.m.pats[h.pat], &e.m.pats[best.pat]
		if hp.gen && bp.gen {
			if lh, lb := len(hp.rec.Match.Regex), len(bp.rec.Match.Regex); lh != lb {
				if lh > lb {
					best = h
				}
				continue
			}
		}
		if bp.diffusion && !hp.diffusion {
			best = h
		}
	}
	return best
}

// Peek reports through emit what each open event would be were the input
// to end now, without ending it: a live reader's provisional view of an
// event whose lines are still coming. settled is true when the event has
// what makes it complete (its exception line, a matched log record, a
// native crash's opening) and false for a traceback still waiting for its
// exception line.
func (e *Engine) Peek(emit func(o Occurrence, settled bool)) {
	for _, ev := range e.evs {
		settled := ev.pending == 0 && (ev.state == stRecord || ev.state == stAfterExc || ev.state == stNative)
		groups := 1
		for _, x := range ev.excs {
			groups = max(groups, x.group+1)
		}
		for g := range groups {
			if o, ok := e.occurrence(ev, g, groups > 1); ok {
				emit(o, settled)
			}
		}
	}
}

// IsOpen reports whether the event that started on line start is still
// open.
func (e *Engine) IsOpen(start int64) bool {
	for _, ev := range e.evs {
		if ev.start == start {
			return true
		}
	}
	return false
}

// Open reports whether any event is open.
func (e *Engine) Open() bool { return len(e.evs) > 0 }

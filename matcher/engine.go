package matcher

import (
	"bytes"
	"slices"
	"sync/atomic"

	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/pyrepr"
)

// Limits that keep the memory of one input bounded whatever it holds.
const (
	// MaxLine is the longest line matched in full. Longer lines are matched
	// on their first MaxLine bytes; every byte still counts for positions.
	MaxLine = 1 << 20
	// maxEventLines closes an event that never ends.
	maxEventLines = 4096
	// maxEventHits and maxEventExcs bound what one event remembers.
	maxEventHits = 32
	maxEventExcs = 16
)

// Occurrence is one matched event: a traceback, a log record with its
// continuation lines, or a single line.
type Occurrence struct {
	// Record is the matched record, or nil for an unknown error.
	Record *patterns.Record
	// ID is the record's id, or UnknownTraceback / UnknownError.
	ID string
	// Exception is the exception class of the key line, if it has one.
	Exception string
	// Message is the key line's message, without header and escapes.
	Message string
	// Captures holds the named groups of the record's regex, once
	// LoadCaptures has worked them out (or whoever made the occurrence
	// set them).
	Captures map[string]string
	capPat   *pattern // the record whose regex LoadCaptures runs, on capMsg
	capMsg   string
	// Source names the input; Line and EndLine are 1-based.
	Source        string
	Line, EndLine int64
	// Time is the log timestamp of the event's first headed line.
	Time string
	// Rank is the rank prefix of the event's first line ("TP3"), if any.
	Rank string
	// Partial is true for a traceback cut before its exception line: by
	// the end of the log, a kill, or another record. Message is then its
	// last frame.
	Partial bool
	// Frame is a traceback's innermost frame line (`File "…", line N, in
	// f`), where the exception was raised, when the event has frames.
	Frame string
	// OwnFrame is the innermost frame in sglang's own code (sglang/srt/),
	// which says which of its features the error came through.
	OwnFrame string
	// Config is the server's configuration, when the input logged it
	// before this event (sglang's server_args line).
	Config Config
}

// Config is a server's configuration: a field's value by its name.
type Config interface {
	Lookup(name string) (any, bool)
}

// Ids of findings that no record knows.
const (
	UnknownTraceback = "unknown/traceback"
	UnknownError     = "unknown/error"
	// UnknownWarning is a line its own logger states at warning level
	// that says something failed, which no record knows.
	UnknownWarning = "unknown/warning"
)

// event states: what the next line may be.
type state uint8

const (
	stRecord   state = iota // a matched line; takes indented continuation lines
	stThread                // after "Exception in thread …": expects a traceback
	stFrames                // inside a traceback: frames until the exception line
	stAfterExc              // after an exception line: a chain or the message's further lines may follow
	stChain                 // after "During handling…": expects a traceback
	stNative                // a native crash report: what(), frame #N, backtrace lines
)

// kind says what opened an event, where it changes which lines belong.
type kind uint8

const (
	kindPlain    kind = iota
	kindGroup         // an ExceptionGroup tree: "  | " and "+-" lines
	kindLogError      // Python logging's "--- Logging error ---" report
	kindUsage         // argparse's usage text, ended by "prog: error: …"
	kindBenign        // a harmless record line whose message goes on over lines without a header
)

type hit struct {
	line int64
	pat  int32
	msg  string
}

type exc struct {
	line       int64
	class, msg string
	group      int // which of several interleaved tracebacks it ends
	// wrapped is set for the error another exception's message closes
	// with, in repr form (Triton's CompilationError).
	wrapped bool
	// code is the source line of the frame the exception was raised in,
	// as its traceback printed it.
	code string
}

// event is an open event of one stream.
type event struct {
	key       string // the stream
	state     state
	kind      kind
	start     int64
	end       int64
	lines     int
	time      string
	rank      string
	first     string // message of the first line
	config    Config // the server's configuration when the event began
	command   Config // the launch command known beside a logged configuration: how the user spelt its flags
	mem       Memory // what the start-up said about GPU memory when the event began
	carried   bool   // the line that opened it carried the learnt header
	warnLine  bool   // opened by a warning that says something failed
	prev      Config // the configuration of the start before, when the log restarted the server
	openLevel Level  // the level the first line stated
	level     Level  // level the first line states, or the level an error-like message implies
	traceback bool
	native    string // class of a C++ exception that ended the process, or "native"
	// Traceback structure.
	afterFrame bool // the last line was a `File "…"` frame: a source line may follow
	// frameIndent is the indentation of the traceback's first `File "…"`
	// frame, 0 when unknown or none: its exception line is less indented.
	frameIndent int
	// benignFrames are records of harmless exceptions whose frame the
	// traceback holds.
	benignFrames []int32
	lastFrame    string   // the last frame seen, for a traceback cut before its end
	lastFrameAt  int64    // the line of lastFrame
	lastCode     string   // the source line under lastFrame, when one came
	framePaths   []string // the files of the frames, the first maxFramePaths
	ownFrame     string   // the last frame seen in sglang's own code
	msgOpen      bool     // the last exception's message may go on over further lines
	msgBlank     bool     // a blank line came after the exception line
	msgLines     int
	pending      int  // tracebacks opened in this event whose exception line is still to come
	upFrames     bool // frames came after the exception line: a traceback upside down
	sourceNext   bool // the last line was a frame without indentation: its source line may follow
	upsideDown   bool // its head came last
	pyspy        bool // it holds a py-spy dump, whose threads blank lines part
	ipython      bool // a traceback as IPython prints it (ipythonHead)
	group        int  // group of the next exception line
	hits         []hit
	excs         []exc
	// impliedExc is the exception a line names without being its
	// exception line, the error when none follows: asyncio's "future:
	// <Task … exception=…>", or the class Ray names when it re-raises a
	// remote error ("RayTaskError(OutOfMemoryError): ray::f() (pid=…)").
	impliedExc *exc
}

// Engine assembles the lines of one input into events and reports each
// matched event. It is not safe for concurrent use.
type Engine struct {
	m      *Matcher
	source string
	emit   func(Occurrence)

	line    int64        // lines consumed so far, since the last Restart
	before  int64        // lines consumed before the last Restart
	ready   atomic.Int64 // see ReadyLine
	evs     []*event     // open events, one per stream, oldest first
	free    []*event
	norm    []byte
	framer  framer // cuts what Write gets into whole lines
	prev    prevLine
	quiet   quietWords
	cands   []candidate
	owners  []int32
	scratch []byte

	// config is the server's configuration from its server_args line, the
	// latest one when the log holds several starts; known, when set, is
	// what is known before that line comes (the launch command, in run).
	config     *pyrepr.ServerArgs
	configLine int64
	mem        Memory             // the latest start-up's memory lines
	prevConfig *pyrepr.ServerArgs // the configuration of the start before the latest
	carried    bool               // the current line carried the learnt header
	known      Config
	cmd        commandReader // the launch command the input shows

	// A line whose proposed records did not confirm may have been
	// hard-wrapped: the next line is tried joined to it.
	failed     []int32 // records that did not confirm on the current line
	wrapLine   int64   // the line they failed on, or 0
	wrapOwners []int32
	wrapMsg    []byte
	wrapTime   []byte
	wrapRank   []byte
	joined     []byte

	// reversed counts the lines of a newest-first export that Scan read
	// oldest line first, or is 0.
	reversed int64

	// The learnt header, the lines held back while one is judged, and the
	// starts of the last lines, for a proposal to read back.
	recent    recentLines
	hdr       headerLearner
	inner     headerLearner // a header inside hdr
	held      []heldLine
	spare     []heldLine // held's other buffer, while held lines are replayed
	hnorm     []byte
	replaying int // the level of the learner whose held lines are replayed (see level)
	// Blank lines of a double-spaced input.
	spacing spacing
	// A JSON-structured line's message, fed as lines of its own.
	json   jsonLine
	inJSON bool
	jcands []candidate
	jscr   []byte
	// What records confirmed on the shapes of earlier lines.
	shapes shapeCache
	// The times and ranks of the latest events, which the next events
	// mostly repeat.
	times, ranks recentStrings
}

// recentStrings hands out the strings of short byte slices, the same
// string for the same bytes while they keep coming: the times and ranks
// of a flood of errors are made once, not once an event.
type recentStrings struct {
	s    [16]string
	next int
}

// of returns b as a string.
func (r *recentStrings) of(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	for k := range len(r.s) { // the newest first
		if s := r.s[(r.next+len(r.s)-1-k)%len(r.s)]; s == string(b) {
			return s
		}
	}
	s := string(b)
	r.s[r.next] = s
	r.next = (r.next + 1) % len(r.s)
	return s
}

// maxStreams bounds the events open at once; the oldest is closed first.
const maxStreams = 32

// NewEngine returns an engine for one input named source (such as a file
// name, or "-" for stdin). emit receives each occurrence as its event ends.
func (m *Matcher) NewEngine(source string, emit func(Occurrence)) *Engine {
	e := &Engine{m: m, source: source, emit: emit}
	e.inner.outer = &e.hdr
	return e
}

// KnowConfig gives the engine a configuration known before the input
// logs its own, such as the command that started the server. Call it
// before feeding input.
func (e *Engine) KnowConfig(c Config) { e.known = c }

// ServerConfig returns the configuration the input logged (sglang's
// server_args line) and its line, or nil.
func (e *Engine) ServerConfig() (*pyrepr.ServerArgs, int64) { return e.config, e.configLine }

// Lines returns the number of lines consumed so far.
func (e *Engine) Lines() int64 { return e.before + e.line }

// Write feeds raw bytes, split anywhere. Complete lines are processed at
// once; a partial last line waits for the rest or for Flush. Write never
// fails.
func (e *Engine) Write(p []byte) (int, error) {
	head, body, tail := e.framer.frame(p)
	for _, b := range [...][]byte{head, body, tail} {
		if len(b) > 0 {
			e.feed(b)
		}
	}
	return len(p), nil
}

// Flush processes a partial last line and ends the open events: the end of
// input.
func (e *Engine) Flush() {
	if line := e.framer.end(); line != nil {
		e.feed(line)
	}
	e.CloseEvents()
}

// release assembles the lines held for a proposed header that the input
// ended, or paused, before deciding. A header that every line of the
// input carried is learnt: a log of a line or two (an error pasted with
// its collector's prefix) has no more lines to repeat it.
func (e *Engine) release() {
	// Replaying the lines held for the outer header may hold lines for
	// an inner one.
	for p := e.proposing(); p != nil; p = e.proposing() {
		p.settle()
		e.replay(p)
	}
}

// CloseEvents ends the open events and reports them, as at the end of
// input, but keeps a partial last line: more of it may come.
func (e *Engine) CloseEvents() {
	e.release()
	for len(e.evs) > 0 {
		e.closeEvent(0)
	}
}

// Restart ends the input's partial line and open events, as Flush does,
// and numbers the lines that follow from 1 again: the input goes on with
// the start of another file, such as a log that was rotated.
func (e *Engine) Restart() {
	e.Flush()
	e.wrapLine = 0
	e.before += e.line
	e.line = 0
	e.ready.Store(0)
}

// feed processes a block of whole lines, each ending in '\n'.
func (e *Engine) feed(block []byte) {
	e.cands, e.scratch = e.m.candidates(block, e.cands[:0], e.scratch)
	e.feedLines(block, e.cands)
}

// feedLines processes a block of whole lines with its candidates. Lines with
// no candidate are only counted, unless an event is open.
func (e *Engine) feedLines(block []byte, cands []candidate) {
	pos, ci := 0, 0
	for pos < len(block) {
		if len(e.evs) == 0 && e.wrapLine == 0 && !e.hdr.watching() && !e.inner.watching() && !e.cmd.open {
			next := len(block)
			if ci < len(cands) {
				next = cands[ci].start
			}
			if next > pos {
				e.line += int64(bytes.Count(block[pos:next], newline))
				e.recent.skipped(block[pos:next])
				e.spacing.skipped(block[pos:next], e.line)
				pos = next
				if pos >= len(block) {
					return
				}
			}
		}
		end := pos + lineLen(block[pos:])
		e.owners = e.owners[:0]
		// A needle seen twice on a line, or on both the raw and the
		// normalized view of a line with escapes, proposes its owner
		// twice; confirm each owner once.
		for ci < len(cands) && cands[ci].start == pos {
			if !slices.Contains(e.owners, cands[ci].owner) {
				e.owners = append(e.owners, cands[ci].owner)
			}
			ci++
		}
		e.line++
		raw := block[pos:end]
		if len(raw) > MaxLine {
			raw = raw[:MaxLine]
		}
		if blank := isBlank(raw); e.spacing.push(e.line, blank) && blank {
			pos = end + 1
			continue // a blank line of a double-spaced stretch
		}
		e.processLine(raw, e.owners)
		e.recent.push(raw)
		pos = end + 1
	}
}

var newline = []byte{'\n'}

// LoadCaptures returns the named groups of the record's regex in the key
// line, worked out on first use: most occurrences of an error repeated
// many times only add to a finding that has its captures already, and
// running the regex again for each is most of a flood's cost.
func (o *Occurrence) LoadCaptures() map[string]string {
	if o.Captures == nil && o.capPat != nil {
		o.Captures = o.capPat.captures([]byte(o.capMsg))
	}
	o.capPat = nil
	return o.Captures
}

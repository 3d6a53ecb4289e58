package matcher

import (
	"bytes"
	"slices"

	"github.com/tailfix/tailfix/patterns"
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
	// Captures holds the named groups of the record's regex.
	Captures map[string]string
	// Source names the input; Line and EndLine are 1-based.
	Source        string
	Line, EndLine int64
	// Time is the log timestamp of the event's first headed line.
	Time string
	// Rank is the rank prefix of the event's first line ("TP3"), if any.
	Rank string
}

// Ids of findings that no record knows.
const (
	UnknownTraceback = "unknown/traceback"
	UnknownError     = "unknown/error"
)

// event states: what the next line may be.
type state uint8

const (
	stRecord   state = iota // a matched line; takes indented continuation lines
	stThread                // after "Exception in thread …": expects a traceback
	stFrames                // inside a traceback: frames until the exception line
	stAfterExc              // after an exception line: a chain may follow
	stChain                 // after "During handling…": expects a traceback
)

type hit struct {
	line int64
	pat  int32
	msg  string
}

type exc struct {
	line       int64
	class, msg string
}

// event is the one open event of an engine.
type event struct {
	state     state
	start     int64
	end       int64
	lines     int
	time      string
	rank      string
	first     string // message of the first line
	traceback bool
	native    bool // opened by a C++ "terminate called after throwing"
	hits      []hit
	excs      []exc
}

// Engine assembles the lines of one input into events and reports each
// matched event. It is not safe for concurrent use.
type Engine struct {
	m      *Matcher
	source string
	emit   func(Occurrence)

	line    int64 // lines consumed so far
	open    bool
	ev      event
	norm    []byte
	pending []byte // a partial last line, for Write
	cands   []candidate
	owners  []int32
	scratch []byte
}

// NewEngine returns an engine for one input named source (such as a file
// name, or "-" for stdin). emit receives each occurrence as its event ends.
func (m *Matcher) NewEngine(source string, emit func(Occurrence)) *Engine {
	return &Engine{m: m, source: source, emit: emit}
}

// Lines returns the number of lines consumed so far.
func (e *Engine) Lines() int64 { return e.line }

// Write feeds raw bytes, split anywhere. Complete lines are processed at
// once; a partial last line waits for the rest or for Close. Write never
// fails.
func (e *Engine) Write(p []byte) (int, error) {
	n := len(p)
	if len(e.pending) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			e.appendPending(p)
			return n, nil
		}
		e.appendPending(p[:i+1])
		if e.pending[len(e.pending)-1] != '\n' { // truncated long line
			e.pending = append(e.pending, '\n')
		}
		e.feed(e.pending)
		e.pending = e.pending[:0]
		p = p[i+1:]
	}
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		e.feed(p[:i+1])
		p = p[i+1:]
	}
	e.appendPending(p)
	return n, nil
}

// appendPending keeps at most MaxLine bytes of a partial line.
func (e *Engine) appendPending(p []byte) {
	if room := MaxLine - len(e.pending); len(p) > room {
		if room > 0 {
			e.pending = append(e.pending, p[:room]...)
		}
		if len(p) > 0 && p[len(p)-1] == '\n' && len(e.pending) > 0 {
			e.pending[len(e.pending)-1] = '\n'
		}
		return
	}
	e.pending = append(e.pending, p...)
}

// Flush processes a partial last line and ends the open event. Call it at
// end of input, or when the input has been idle long enough that a dying
// server's last event should be reported.
func (e *Engine) Flush() {
	if len(e.pending) > 0 {
		e.pending = append(e.pending, '\n')
		e.feed(e.pending)
		e.pending = e.pending[:0]
	}
	if e.open {
		e.closeEvent()
	}
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
		if !e.open {
			next := len(block)
			if ci < len(cands) {
				next = cands[ci].start
			}
			if next > pos {
				e.line += int64(bytes.Count(block[pos:next], newline))
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
		e.processLine(raw, e.owners)
		pos = end + 1
	}
}

var newline = []byte{'\n'}

// Chain separators of Python tracebacks.
var (
	duringHandling = []byte("During handling of the above exception, another exception occurred:")
	directCause    = []byte("The above exception was the direct cause of the following exception:")
	tracebackHead  = []byte("Traceback (most recent call last)")
	threadHead     = []byte("Exception in thread ")
)

// processLine runs one line through the open event, or opens one.
func (e *Engine) processLine(raw []byte, owners []int32) {
	e.norm = Normalize(e.norm[:0], raw)
	hdr, msg := SplitHeader(e.norm)
	if e.open {
		if e.continues(hdr, msg) {
			e.absorb(msg, owners)
			return
		}
		e.closeEvent()
	}
	if len(owners) == 0 {
		return
	}
	var hits []int32
	opens, native, isExc := false, false, false
	for _, o := range owners {
		switch {
		case o >= 0:
			if e.m.pats[o].confirm(msg) {
				hits = append(hits, o)
			}
		case marker(o) == markTraceback || marker(o) == markThread:
			opens = true
		case marker(o) == markNative:
			opens, native = true, true
		case marker(o) == markException:
			isExc = bareExcRE.Match(msg)
		}
	}
	if len(hits) == 0 && !opens && !isExc {
		return
	}
	e.open = true
	e.ev = event{state: stRecord, start: e.line, time: string(hdr.Time), rank: string(hdr.Ranks), first: string(msg), native: native}
	switch {
	case bytes.Contains(msg, tracebackHead):
		e.ev.state, e.ev.traceback = stFrames, true
	case bytes.HasPrefix(msg, threadHead):
		e.ev.state, e.ev.traceback = stThread, true
	case isExc:
		e.addExc(msg)
		if len(hdr.Time) == 0 {
			e.ev.state = stAfterExc
		}
	}
	e.ev.end, e.ev.lines = e.line, 1
	for _, h := range hits {
		e.addHit(h, msg)
	}
}

// continues reports whether a line belongs to the open event, and moves the
// event's state along.
func (e *Engine) continues(hdr Header, msg []byte) bool {
	ev := &e.ev
	if len(hdr.Time) > 0 || ev.lines >= maxEventLines {
		return false
	}
	indented := len(msg) > 0 && (msg[0] == ' ' || msg[0] == '\t')
	blank := len(bytes.TrimSpace(msg)) == 0
	switch ev.state {
	case stRecord:
		if bytes.HasPrefix(msg, tracebackHead) {
			ev.state, ev.traceback = stFrames, true
			return true
		}
		return indented
	case stThread, stChain:
		if bytes.HasPrefix(msg, tracebackHead) {
			ev.state, ev.traceback = stFrames, true
			return true
		}
		return blank && ev.state == stChain
	case stFrames:
		if indented || blank {
			return true
		}
		ev.state = stAfterExc
		e.addExc(msg)
		return true
	case stAfterExc:
		switch {
		case bytes.Equal(msg, duringHandling), bytes.Equal(msg, directCause):
			ev.state = stChain
			return true
		case bytes.HasPrefix(msg, tracebackHead):
			ev.state, ev.traceback = stFrames, true
			return true
		}
		return blank || indented
	}
	return false
}

// absorb adds a continuing line to the open event.
func (e *Engine) absorb(msg []byte, owners []int32) {
	if len(bytes.TrimSpace(msg)) > 0 {
		e.ev.end = e.line // a trailing blank line is not part of the event
	}
	e.ev.lines++
	for _, o := range owners {
		if o >= 0 && e.m.pats[o].confirm(msg) {
			e.addHit(o, msg)
		}
	}
}

func (e *Engine) addHit(pat int32, msg []byte) {
	if len(e.ev.hits) < maxEventHits {
		e.ev.hits = append(e.ev.hits, hit{line: e.line, pat: pat, msg: string(msg)})
	}
}

func (e *Engine) addExc(msg []byte) {
	if len(e.ev.excs) >= maxEventExcs {
		return
	}
	x := exc{line: e.line, msg: string(msg)}
	if sub := excLineRE.FindSubmatch(msg); sub != nil {
		x.class, x.msg = string(sub[1]), string(sub[2])
	}
	e.ev.excs = append(e.ev.excs, x)
}

// closeEvent decides what the open event was and reports it.
func (e *Engine) closeEvent() {
	e.open = false
	ev := &e.ev
	o := Occurrence{Source: e.source, Line: ev.start, EndLine: ev.end, Time: ev.time, Rank: ev.rank}
	if best := e.bestHit(); best != nil {
		p := &e.m.pats[best.pat]
		o.Record, o.ID, o.Message = p.rec, p.rec.ID, best.msg
		o.Captures = p.captures([]byte(best.msg))
		for _, x := range ev.excs {
			if x.line == best.line && x.class != "" {
				o.Exception, o.Message = x.class, x.msg
			}
		}
		if o.Exception == "" && p.rec.Role == patterns.RoleWrapper && len(ev.excs) > 0 {
			o.Exception = ev.excs[0].class
		}
	} else {
		switch {
		case len(ev.excs) > 0:
			root := ev.excs[0]
			o.ID, o.Exception, o.Message = UnknownError, root.class, root.msg
			if ev.traceback {
				o.ID = UnknownTraceback
			}
		case ev.traceback:
			o.ID, o.Message = UnknownTraceback, ev.first
		case ev.native:
			o.ID, o.Message = UnknownError, ev.first
		default:
			return
		}
	}
	e.emit(o)
}

// bestHit picks the event's key line: a cause or symptom before a wrapper,
// then the earliest line (the root of a chained traceback comes first).
func (e *Engine) bestHit() *hit {
	var best *hit
	for i := range e.ev.hits {
		h := &e.ev.hits[i]
		if best == nil {
			best = h
			continue
		}
		hw := e.m.pats[h.pat].rec.Role == patterns.RoleWrapper
		bw := e.m.pats[best.pat].rec.Role == patterns.RoleWrapper
		if bw && !hw {
			best = h
		}
	}
	return best
}

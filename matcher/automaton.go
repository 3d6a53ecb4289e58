package matcher

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"slices"

	"github.com/coregx/ahocorasick"

	"github.com/tailfix/tailfix/patterns"
)

// maxNeedle caps the length of a needle fed to the automaton. Any substring
// of a required literal is itself required, so a prefix is as safe as the
// whole literal and keeps the automaton small.
const maxNeedle = 48

// marker is a structural needle: text that starts or shapes an event
// whatever the patterns say.
type marker int32

const (
	markTraceback marker = -1 - iota // "Traceback (most recent call last):"
	markThread                       // "Exception in thread …"
	markException                    // "…Error: …", "…Exception: …": a bare exception line
	markNative                       // a native crash report: "terminate called …", "Fatal Python error: …"
	markProcess                      // multiprocessing's "Process SpawnProcess-1:"
	markLogging                      // "--- Logging error ---"
	markUsage                        // argparse's "usage: prog [-h] …"
	markLevel                        // a line that may state an error level
	markFrame                        // a traceback frame, `File "…", line N, in f`
)

var markers = []struct {
	text string
	kind marker
}{
	{"Traceback (most recent call last)", markTraceback},
	{"Exception in thread ", markThread},
	{"Error: ", markException},
	{"Exception: ", markException},
	{"Error:\n", markException},
	{"Exception:\n", markException},
	{"Error:\r", markException},
	{"Exception:\r", markException},
	{"terminate called ", markNative},
	{"Fatal Python error: ", markNative},
	{"Caught signal ", markNative},
	{"*** SIG", markNative},
	{"*** Aborted at", markNative},
	{"*** Check failure", markNative},
	{"Process-", markProcess},
	{"--- Logging error ---", markLogging},
	{`File "`, markFrame},
	{" [-h]", markUsage},
	// Level words, and the start of glog and torch lines at error level:
	// "E1129 10:01:02.553695 …", "[rank3]:[E1129 …", after a newline, a
	// compose bar or a platform timestamp. Needles with a newline name the
	// line after it; the first line of a block is checked on its own.
	{"ERROR", markLevel},
	{"CRITICAL", markLevel},
	{"FATAL", markLevel},
	{"Error ", markLevel},
	{"CUDA error", markLevel},
	{"NCCL error", markLevel},
	{"\nE0", markLevel}, {"\nE1", markLevel}, {"\nF0", markLevel}, {"\nF1", markLevel},
	{"| E0", markLevel}, {"| E1", markLevel}, {"| F0", markLevel}, {"| F1", markLevel},
	{"Z E0", markLevel}, {"Z E1", markLevel}, {"Z F0", markLevel}, {"Z F1", markLevel},
	{"\n[E", markLevel}, {"\n[F", markLevel}, {"]:[E", markLevel}, {"]:[F", markLevel},
}

// startsAtLevel reports whether a block's first line may be a glog or torch
// line at error level, which the newline needles cannot see.
func startsAtLevel(block []byte) bool {
	if len(block) > 0 && block[0] == '[' {
		block = block[1:]
	}
	return len(block) > 1 && (block[0] == 'E' || block[0] == 'F') && block[1] >= '0' && block[1] <= '9'
}

// excLineRE splits the line that ends a traceback into a dotted class name
// and its message ("KeyError: 'x'", "KeyboardInterrupt").
var excLineRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?::(?: (.*))?)?$`)

// bareExcRE recognises an exception line seen outside a traceback, where
// the class name must look like one: it ends in Error or Exception.
var bareExcRE = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z0-9_]*(?:Error|Exception): \S`)

// pattern is a record compiled for confirmation.
type pattern struct {
	rec *patterns.Record
	lit []byte         // Match.Message, or nil
	re  *regexp.Regexp // Match.Regex, or nil
}

// confirm reports whether the pattern matches a normalized message.
func (p *pattern) confirm(msg []byte) bool {
	if p.lit != nil {
		return bytes.Contains(msg, p.lit)
	}
	return p.re.Match(msg)
}

// captures returns the named groups of the pattern's regex in msg.
func (p *pattern) captures(msg []byte) map[string]string {
	if p.re == nil || p.re.NumSubexp() == 0 {
		return nil
	}
	sub := p.re.FindSubmatch(msg)
	if sub == nil {
		return nil
	}
	var caps map[string]string
	for i, name := range p.re.SubexpNames() {
		if name != "" && sub[i] != nil {
			if caps == nil {
				caps = make(map[string]string)
			}
			caps[name] = string(sub[i])
		}
	}
	return caps
}

// Matcher is a pack compiled into one automaton. It is built once and is
// safe for concurrent use; each input gets its own Engine.
type Matcher struct {
	pack *patterns.Pack
	pats []pattern
	ac   *ahocorasick.Automaton
	// owners maps a needle (automaton pattern id) to the patterns it
	// proposes, or to a marker (negative).
	owners [][]int32
}

// Compile builds the automaton for a pack: the needles of every record and
// the structural markers go into one multi-pattern matcher; each record's
// literal or regexp is kept to confirm the lines it proposes.
func Compile(pack *patterns.Pack) (*Matcher, error) {
	m := &Matcher{pack: pack, pats: make([]pattern, len(pack.Records))}
	index := map[string]int{}
	var needles [][]byte
	add := func(needle string, owner int32) {
		if len(needle) > maxNeedle {
			needle = needle[:maxNeedle]
		}
		i, ok := index[needle]
		if !ok {
			i = len(needles)
			index[needle] = i
			needles = append(needles, []byte(needle))
			m.owners = append(m.owners, nil)
		}
		for _, o := range m.owners[i] {
			if o == owner {
				return
			}
		}
		m.owners[i] = append(m.owners[i], owner)
	}
	for _, mk := range markers {
		add(mk.text, int32(mk.kind))
	}
	for i, rec := range pack.Records {
		p := &m.pats[i]
		p.rec = rec
		if rec.Match.Message != "" {
			p.lit = []byte(rec.Match.Message)
		} else {
			re, err := regexp.Compile(rec.Match.Regex)
			if err != nil {
				return nil, fmt.Errorf("compile %s: %w", rec.ID, err)
			}
			p.re = re
		}
		ns, err := rec.Needles()
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", rec.ID, err)
		}
		for _, n := range ns {
			add(n, int32(i))
		}
	}
	ac, err := ahocorasick.NewBuilder().AddPatterns(needles).Build()
	if err != nil {
		return nil, fmt.Errorf("build automaton: %w", err)
	}
	m.ac = ac
	return m, nil
}

// Pack returns the pack the matcher was compiled from.
func (m *Matcher) Pack() *patterns.Pack { return m.pack }

// candidate is a line the automaton proposes: the offset of the line's start
// in its block and the pattern (or marker, when negative) to confirm there.
type candidate struct {
	start int
	owner int32
}

// candidates appends to dst the candidates of a block of whole lines, in
// line order. Lines with ANSI escapes are also searched in their normalized
// form, since an escape may split a needle.
func (m *Matcher) candidates(block []byte, dst []candidate, scratch []byte) ([]candidate, []byte) {
	lineStart, lineEnd := -1, -1
	if startsAtLevel(block) {
		dst = append(dst, candidate{0, int32(markLevel)})
	}
	for _, h := range m.ac.FindAllOverlapping(block) {
		start := h.Start
		if block[start] == '\n' {
			start++ // a needle that names the line after the newline
		}
		if start >= lineEnd {
			lineStart = bytes.LastIndexByte(block[:start], '\n') + 1
			lineEnd = start + lineLen(block[start:])
		}
		for _, o := range m.owners[h.PatternID] {
			dst = append(dst, candidate{lineStart, o})
		}
	}
	if bytes.IndexByte(block, 0x1b) < 0 {
		return dst, scratch
	}
	unsorted := false
	for off := 0; ; {
		i := bytes.IndexByte(block[off:], 0x1b)
		if i < 0 {
			break
		}
		start := bytes.LastIndexByte(block[:off+i], '\n') + 1
		end := off + i + lineLen(block[off+i:])
		scratch = Normalize(scratch[:0], block[start:end])
		for _, h := range m.ac.FindAllOverlapping(scratch) {
			dst = append(dst, candidate{start, m.owners[h.PatternID][0]})
			for _, o := range m.owners[h.PatternID][1:] {
				dst = append(dst, candidate{start, o})
			}
			unsorted = true
		}
		off = end
	}
	if unsorted {
		sortCandidates(dst)
	}
	return dst, scratch
}

// lineLen returns the length of the line at the start of b, without its newline.
func lineLen(b []byte) int {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return i
	}
	return len(b)
}

// sortCandidates orders candidates by line, stably.
func sortCandidates(c []candidate) {
	slices.SortStableFunc(c, func(a, b candidate) int { return cmp.Compare(a.start, b.start) })
}

// MatchLine returns the records that match one raw log line, found the way
// a log is searched: through the automaton, then each proposed record's
// literal or regexp on the normalized message.
func (m *Matcher) MatchLine(line []byte) []*patterns.Record {
	line = bytes.TrimSuffix(line, newline)
	msg := Normalize(nil, line)
	_, msg = SplitHeader(msg)
	cands, _ := m.candidates(line, nil, nil)
	var out []*patterns.Record
	for _, c := range cands {
		if c.owner < 0 {
			continue
		}
		p := &m.pats[c.owner]
		if !slices.Contains(out, p.rec) && p.confirm(msg) {
			out = append(out, p.rec)
		}
	}
	return out
}

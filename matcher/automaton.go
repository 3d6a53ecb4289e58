package matcher

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

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
	markConfig                       // sglang's server_args=ServerArgs(…) line
	markWord                         // a word that may say something went wrong: "failed", "NaN", a 5xx status
	markMemory                       // one of sglang's start-up memory lines: "avail mem=…", "K size: …", "max_total_num_tokens=…"
	markCommand                      // a command that may start sglang: "python -m sglang.launch_server …", "sglang serve …"
	markReady                        // sglang's "The server is fired up and ready to roll!"
)

var markers = []struct {
	text string
	kind marker
}{
	{"Traceback (most recent call last)", markTraceback},
	{"Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ", markTraceback},
	{"Exception in thread ", markThread},
	{"Task exception was never retrieved", markThread},
	{"Future exception was never retrieved", markThread},
	{"Exception in callback ", markThread},
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
	{"!!!!!!! Segfault", markNative},
	{"Process-", markProcess},
	{"--- Logging error ---", markLogging},
	{`File "`, markFrame},
	{"server_args=ServerArgs(", markConfig},
	{"sglang.launch_server ", markCommand},
	{"sglang serve ", markCommand},
	{"launch_server.py ", markCommand},
	{"The server is fired up and ready to roll", markReady},
	{"avail mem=", markMemory},
	{"K size: ", markMemory},
	{"max_total_num_tokens=", markMemory},
	{"cuda graph begin", markMemory},
	{"CUDA graph begin", markMemory},
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

// splitExcLine splits the line that ends a traceback into a dotted class
// name and its message ("KeyError: 'x'", "KeyboardInterrupt"): the line is
// ^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?::(?: (.*))?)?$,
// read without a regexp (it is read on every line of a traceback). ok is
// true when the line is one; the class is msg[:class], and the message
// starts at text, or text is -1 when the line has no ": " after its class.
func splitExcLine(msg []byte) (class, text int, ok bool) {
	i := 0
	for {
		if i >= len(msg) || !(isLetter(msg[i]) || msg[i] == '_') {
			return 0, 0, false
		}
		for i < len(msg) && wordByte(msg[i]) {
			i++
		}
		if i < len(msg) && msg[i] == '.' {
			i++
			continue
		}
		break
	}
	switch {
	case i == len(msg):
		return i, -1, true
	case msg[i] != ':':
		return 0, 0, false
	case i+1 == len(msg):
		return i, -1, true
	case msg[i+1] != ' ' || bytes.IndexByte(msg[i+2:], '\n') >= 0:
		return 0, 0, false
	}
	return i, i + 2, true
}

// bareExc recognises an exception line seen outside a traceback, where the
// class name must look like one: it ends in Error or Exception ("KeyError:
// 'x'", "torch.OutOfMemoryError: CUDA out of memory"). It says what
// ^(?:[A-Za-z_]\w*\.)*\w*(?:Error|Exception): \S says, without a regex:
// the class is the run of word bytes and dots the line starts with, and
// each of its parts but the last starts with a letter or underscore.
func bareExc(msg []byte) bool {
	k := 0
	for k < len(msg) && (wordByte(msg[k]) || msg[k] == '.') {
		k++
	}
	if k+2 >= len(msg) || msg[k] != ':' || msg[k+1] != ' ' || isSpace(msg[k+2]) {
		return false
	}
	class := msg[:k]
	if !bytes.HasSuffix(class, []byte("Error")) && !bytes.HasSuffix(class, []byte("Exception")) {
		return false
	}
	parts := bytes.Split(class, []byte("."))
	for _, p := range parts[:len(parts)-1] {
		if len(p) == 0 || p[0] >= '0' && p[0] <= '9' {
			return false
		}
	}
	return true
}

// wordByte reports whether c is an ASCII letter, digit or underscore.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// isSpace reports whether c is a byte \s matches.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// pattern is a record compiled for confirmation.
type pattern struct {
	rec *patterns.Record
	lit []byte // Match.Message, or nil
	// re, frame and next are Match.Regex, Match.Frame and Match.Next,
	// compiled when first needed (compile): packs have thousands of
	// records, and most are never proposed. Validate has parsed them, which
	// is all that can fail in compiling them.
	re     *regexp.Regexp
	decide []decider // what decides a match of re faster, or nil (see deciders)
	once   sync.Once
	gen    bool // generated from sglang's source, not written by hand
	// diffusion is set for a generated record of sglang's diffusion
	// runtime: of two generated records that say the same of a line, the
	// server's is the one to name (see patterns.DiffusionFile).
	diffusion bool
	// benign is set for a record of a line known to be harmless: it
	// explains the line, and is no finding.
	benign bool
	// fallback is set for a generic record that yields to any other
	// hand-written record of the same line.
	fallback bool
	// raisedHere is set for a record found by a frame that must be the
	// traceback's innermost (patterns.TagRaisedHere).
	raisedHere bool
	// quiet is set for a generated record below warning level (a warning
	// only older releases print): it explains its line, so that the line
	// is no unknown error, but is no finding, and leaves the line to any
	// other record.
	quiet bool
	// next is Match.Next: a line logged just after the one matched that
	// goes on with it, or nil (see nextRE).
	next *regexp.Regexp
	// frame is Match.Frame (see frameRE). With hasFrame set, the pattern is
	// confirmed on a frame line, and re (when set) then checks the
	// traceback's exception message.
	frame    *regexp.Regexp
	hasFrame bool
	// anyFunction is set for a frame that names a file and any function
	// of it (`model_loader/\w+\.py", line \d+, in \w+`): it says where an
	// error of the record's kind is raised, but not that a traceback
	// through it is one, so a traceback cut before its exception is not
	// known by it.
	anyFunction bool
	// needles are the record's required literals whole: every match of
	// re holds one. The automaton proposes a line on a needle's first
	// bytes only; a message that holds none is refused without running
	// the regex, which most proposals of a flood line are.
	needles [][]byte
	// shape says which words of a message confirm cannot tell apart
	// (see analyseShape), worked out when first needed; nil when confirm
	// runs on every line.
	shape     *shapeSpec
	shapeOnce sync.Once
}

// compile compiles the pattern's expressions, once: the first line that
// needs one of them pays for them, and the matcher is shared by every
// input's engine. An expression that does not compile (a generated one the
// pack's tests would fault; a record's was parsed by Validate) is nil, and
// matches nothing.
func (p *pattern) compile() {
	p.once.Do(func() {
		m := &p.rec.Match
		if m.Regex != "" {
			if p.re, _ = regexp.Compile(m.Regex); p.re != nil {
				p.decide = deciders(m.Regex)
			}
		}
		if p.hasFrame {
			p.frame, _ = regexp.Compile(m.Frame)
		}
		if m.Next != "" {
			p.next, _ = regexp.Compile(m.Next)
		}
	})
}

// regexp returns the pattern's compiled regex, or nil.
func (p *pattern) regexp() *regexp.Regexp {
	p.compile()
	return p.re
}

// frameRE returns the pattern's compiled frame expression, or nil.
func (p *pattern) frameRE() *regexp.Regexp {
	p.compile()
	return p.frame
}

// wildFunctionRE is the end of a frame pattern whose function is any name.
var wildFunctionRE = regexp.MustCompile(`in (?:\\w\+|\[\\w<>\]\+|\[\\w\.<>\]\+|\\S\+|\.\+|\.\*)(?:\\b|\$)?\)*$`)

// anyFunction reports whether a record's frame pattern ends in a function
// of any name.
func anyFunction(frame string) bool {
	return wildFunctionRE.MatchString(frame)
}

// phase reports whether p is a record of a phase of the server's life: a
// generic wrapper known by a frame alone ("the server failed while loading
// the model"), which says where an error happened and nothing of what it
// was.
func (p *pattern) phase() bool {
	return p.fallback && p.hasFrame && p.rec.Role == patterns.RoleWrapper && p.rec.Match.Regex == ""
}

// nextRE returns the pattern's compiled expression of the line that goes
// on with its error, or nil.
func (p *pattern) nextRE() *regexp.Regexp {
	if p.rec.Match.Next == "" {
		return nil
	}
	p.compile()
	return p.next
}

// confirm reports whether the pattern matches a normalized message.
func (p *pattern) confirm(msg []byte) bool {
	if p.hasFrame {
		fr := p.frameRE()
		return fr != nil && fr.Match(msg)
	}
	if p.lit != nil {
		return bytes.Contains(msg, p.lit)
	}
	if p.needles != nil && !p.hasNeedle(msg) {
		return false
	}
	re := p.regexp()
	if re == nil {
		return false
	}
	if p.decide != nil {
		return slices.ContainsFunc(p.decide, func(d decider) bool { return d.match(msg) })
	}
	return re.Match(msg)
}

// shapeSpec returns what confirm cannot tell apart in a message, or nil
// when each message is to be confirmed: a record confirmed by a literal,
// which costs no more than a look-up, or a regexp not analysed. Equal
// specs are one value, interned in specs.
func (p *pattern) shapeSpec(m *Matcher) *shapeSpec {
	p.shapeOnce.Do(func() {
		expr := p.rec.Match.Regex
		if p.hasFrame {
			expr = p.rec.Match.Frame
		}
		if p.lit != nil || expr == "" {
			return
		}
		sp := analyseShape(expr)
		if sp == nil || !sp.masksAny() {
			return
		}
		p.shape = m.intern(sp)
	})
	return p.shape
}

// hasNeedle reports whether msg holds one of the record's needles, which
// every match holds.
func (p *pattern) hasNeedle(msg []byte) bool {
	return slices.ContainsFunc(p.needles, func(n []byte) bool { return bytes.Contains(msg, n) })
}

// captures returns the named groups of the pattern's regex in msg.
func (p *pattern) captures(msg []byte) map[string]string {
	if p.lit != nil || p.rec.Match.Regex == "" {
		return nil
	}
	re := p.regexp()
	if re == nil || re.NumSubexp() == 0 {
		return nil
	}
	sub := re.FindSubmatch(msg)
	if sub == nil {
		return nil
	}
	var caps map[string]string
	for i, name := range re.SubexpNames() {
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
	// proposes, or to a marker (negative); needles holds the needles.
	owners  [][]int32
	needles [][]byte
	// windows finds the needles past the automaton's: the windows of a
	// user's pack of thousands of records; nil when there are none.
	windows *windowIndex
	// raised indexes the generated records of messages sglang raises
	// (raise and assert) by the first four bytes of their needles: they
	// are looked for only in the exception lines of events no
	// hand-written record explains, which are short and few, so a map
	// lookup per byte there is cheap, and the thousands of needles cost
	// no automaton.
	raised map[uint32][]raisedNeedle
	// libs holds the records of the libraries sglang runs on, each read
	// when a traceback first passes through it (library).
	libs sync.Map
	// specs interns the records' shape specs (shapeSpec), so that records
	// that mask alike share a line's shape.
	specMu sync.Mutex
	specs  map[shapeSpec]*shapeSpec
	// noQuiet is set when no line may be skipped as quiet; quietMask
	// masks the digits of a quiet shape, and quietGuard finds what
	// masking may hide (see quietShapes).
	noQuiet    bool
	quietMask  [256]byte // each byte as itself, and a digit as a byte no needle holds
	quietGuard quietGuard
}

// intern returns the one spec equal to sp, numbered.
func (m *Matcher) intern(sp *shapeSpec) *shapeSpec {
	m.specMu.Lock()
	defer m.specMu.Unlock()
	if have := m.specs[*sp]; have != nil {
		return have
	}
	if m.specs == nil {
		m.specs = map[shapeSpec]*shapeSpec{}
	}
	m.specs[*sp] = sp
	sp.id = uint64(len(m.specs))
	return sp
}

// raisedNeedle is one needle of a raised message's record.
type raisedNeedle struct {
	needle string
	pat    int32
}

// gram is the index key of the four bytes at the start of b.
func gram(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// handNeedle caps the needles of hand-written records. Most of the
// automaton's states were theirs at 48 bytes, and its build time with them;
// 16 bytes of a record's literal still propose few lines, and each
// proposal is confirmed by the record's own regexp.
const handNeedle = 24

// genNeedle caps the needles of generated records: with thousands of
// records, shorter needles keep the automaton small and quick to build,
// and 12 bytes of a message's text still propose few lines.
const genNeedle = 12

// needleSet collects needles for one automaton.
type needleSet struct {
	index   map[string]int
	needles [][]byte
	owners  [][]int32
}

func (n *needleSet) add(needle string, limit int, owner int32) {
	if len(needle) > limit {
		needle = needle[:limit]
	}
	if n.index == nil {
		n.index = map[string]int{}
	}
	i, ok := n.index[needle]
	if !ok {
		i = len(n.needles)
		n.index[needle] = i
		n.needles = append(n.needles, []byte(needle))
		n.owners = append(n.owners, nil)
	}
	if !slices.Contains(n.owners[i], owner) {
		n.owners[i] = append(n.owners[i], owner)
	}
}

// pendingNeedle is a record's required literal before the automaton
// takes a window of it.
type pendingNeedle struct {
	text  string
	limit int
	owner int32
	// words says that only windows starting a word are candidates: a
	// user's pack of thousands of records has tens of windows per literal,
	// and counting them all would take seconds.
	words bool
}

// rareWindows cuts each generated needle longer than its limit to the
// window of that length the fewest other needles share: "Failed to get
// prefill parallel info" is proposed on "prefill para", not on "Failed to
// ge", which the start of many other messages, and of many lines no record
// explains, share. Any window of a required literal is as safe as its
// prefix.
func rareWindows(pend []pendingNeedle) []pendingNeedle {
	n := 0
	for _, p := range pend {
		n += max(len(p.text)-p.limit+1, 0)
	}
	counts := make(map[uint64]int32, n/4)
	for _, p := range pend {
		for k := 0; len(p.text) > p.limit && k+p.limit <= len(p.text); k++ {
			if p.candidate(k) {
				counts[windowHash(p.text[k:k+p.limit])]++
			}
		}
	}
	out := make([]pendingNeedle, len(pend))
	for i, p := range pend {
		out[i] = p
		if len(p.text) <= p.limit {
			continue
		}
		best, fewest := 0, counts[windowHash(p.text[:p.limit])]
		for k := 1; k+p.limit <= len(p.text); k++ {
			if !p.candidate(k) {
				continue
			}
			if c := counts[windowHash(p.text[k:k+p.limit])]; c < fewest {
				best, fewest = k, c
			}
		}
		out[i].text = p.text[best : best+p.limit]
	}
	return out
}

// candidate reports whether the window at k may be the needle's.
func (p pendingNeedle) candidate(k int) bool {
	return !p.words || k == 0 || p.text[k-1] == ' '
}

// windowHash is FNV-1a of a needle's window.
func windowHash(w string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		h ^= uint64(w[i])
		h *= 1099511628211
	}
	return h
}

func (n *needleSet) build() (*ahocorasick.Automaton, error) {
	if len(n.needles) == 0 {
		return nil, nil
	}
	ac, err := ahocorasick.NewBuilder().AddPatterns(n.needles).Build()
	if err != nil {
		return nil, fmt.Errorf("build automaton: %w", err)
	}
	return ac, nil
}

// Compile builds the automaton for a pack: the needles of every record and
// the structural markers go into one multi-pattern matcher; each record's
// literal or regexp is kept to confirm the lines it proposes. Generated
// records of raised messages get an automaton of their own, built when
// first needed.
func Compile(pack *patterns.Pack) (*Matcher, error) {
	return compile(pack, windowIndexMin)
}

// compile is Compile, with the windows of a user's pack indexed when they
// are at least indexMin.
func compile(pack *patterns.Pack, indexMin int) (*Matcher, error) {
	m := &Matcher{pack: pack, pats: make([]pattern, len(pack.Records))}
	var main needleSet
	var pend []pendingNeedle
	for _, mk := range markers {
		main.add(mk.text, maxNeedle, int32(mk.kind))
	}
	for _, w := range wordNeedles {
		main.add(w, maxNeedle, int32(markWord))
	}
	for i, rec := range pack.Records {
		p := &m.pats[i]
		p.rec, p.gen, p.diffusion = rec, rec.Gen != nil, rec.Diffusion()
		p.benign = rec.Benign()
		p.fallback = rec.HasTag(patterns.TagFallback)
		p.raisedHere = rec.HasTag(patterns.TagRaisedHere)
		p.quiet = p.gen && rec.Severity < patterns.SeverityWarning
		p.hasFrame = rec.Match.Frame != ""
		p.anyFunction = p.hasFrame && anyFunction(rec.Match.Frame)
		if rec.Match.Message != "" {
			p.lit = []byte(rec.Match.Message)
		}
		if g := rec.Gen; g != nil && (g.Kind == "raise" || g.Kind == "assert") {
			if m.raised == nil {
				m.raised = map[uint32][]raisedNeedle{}
			}
			for _, n := range g.Needles {
				if len(n) >= 4 {
					k := gram([]byte(n))
					m.raised[k] = append(m.raised[k], raisedNeedle{n, int32(i)})
				}
			}
			continue
		}
		// A user's records are windowed as generated ones are: a pack of
		// thousands would otherwise take most of the automaton.
		ns, limit, windowed := []string(nil), handNeedle, rec.Gen != nil || rec.User()
		if windowed {
			limit = genNeedle
		}
		if g := rec.Gen; g != nil {
			ns = g.Needles
		} else {
			var err error
			if ns, err = rec.Needles(); err != nil {
				return nil, fmt.Errorf("compile %s: %w", rec.ID, err)
			}
		}
		if p.lit == nil && rec.Match.Frame == "" && slices.ContainsFunc(ns, func(n string) bool { return len(n) > limit }) {
			p.needles = make([][]byte, len(ns))
			for k, n := range ns {
				p.needles[k] = []byte(n)
			}
		}
		for _, n := range ns {
			if !windowed {
				// A hand-written record's needle stays the start of its
				// literal: the shorter the stretch of a raw line a needle
				// spans, the less an escape or a colour code can break it.
				main.add(n, limit, int32(i))
				continue
			}
			pend = append(pend, pendingNeedle{n, limit, int32(i), rec.User()})
		}
	}
	// A user's pack of thousands of records is looked for by its windows
	// in an index (windowIndex) rather than in the automaton, whose states
	// would take a second and tens of megabytes per ten thousand windows.
	wins := rareWindows(pend)
	var indexed []pendingNeedle
	if n := countFunc(wins, func(n pendingNeedle) bool { return m.indexable(n) }); n >= indexMin {
		indexed = make([]pendingNeedle, 0, n)
	}
	for _, n := range wins {
		if indexed != nil && m.indexable(n) {
			indexed = append(indexed, n)
			continue
		}
		main.add(n.text, n.limit, n.owner)
	}
	inAutomaton := len(main.needles)
	for _, n := range indexed {
		main.add(n.text, n.limit, n.owner)
	}
	ac, err := (&needleSet{needles: main.needles[:inAutomaton]}).build()
	if err != nil {
		return nil, err
	}
	m.ac, m.owners, m.needles = ac, main.owners, main.needles
	m.windows = newWindowIndex(main.needles, inAutomaton)
	if err := m.quietSetup(); err != nil {
		return nil, err
	}
	return m, nil
}

// indexable reports whether a record's window may be looked for in the
// window index: a user's, of genNeedle bytes.
func (m *Matcher) indexable(n pendingNeedle) bool {
	return len(n.text) >= genNeedle && m.pats[n.owner].rec.User()
}

func countFunc[T any](s []T, f func(T) bool) int {
	n := 0
	for _, x := range s {
		if f(x) {
			n++
		}
	}
	return n
}

// raisedCandidates calls fn for each raised message's record one of whose
// needles occurs in msg, once per record.
func (m *Matcher) raisedCandidates(msg []byte, fn func(pat int32)) {
	raisedCandidatesIn(m.raised, msg, fn)
}

func raisedCandidatesIn(raised map[uint32][]raisedNeedle, msg []byte, fn func(pat int32)) {
	var seen []int32
	for i := 0; i+4 <= len(msg); i++ {
		for _, rn := range raised[gram(msg[i:])] {
			if !bytes.HasPrefix(msg[i:], []byte(rn.needle)) || slices.Contains(seen, rn.pat) {
				continue
			}
			seen = append(seen, rn.pat)
			fn(rn.pat)
		}
	}
}

// raisedMatch returns the generated record of a message sglang raises that
// matches an exception (class and message), or nil. When several do, the
// longest message is the most specific; of two as long, the server's
// rather than the diffusion runtime's. Failing sglang's own, the errors of
// the libraries the traceback passed through (inFrames says whether a
// package's code is in its frames) are looked in: a library's message
// alone may be another's.
func (m *Matcher) raisedMatch(class, msg string, inFrames func(pkg string) bool) *pattern {
	b := []byte(msg)
	if i := bestRaised(m.pats, m.raised, class, b); i >= 0 {
		return &m.pats[i]
	}
	if inFrames == nil {
		return nil
	}
	for _, lib := range patterns.Libraries() {
		if !inFrames(lib) {
			continue
		}
		if ls := m.library(lib); ls != nil {
			if i := bestRaised(ls.pats, ls.raised, class, b); i >= 0 {
				return &ls.pats[i]
			}
		}
	}
	return nil
}

// bestRaised is raisedMatch in one set of records.
func bestRaised(pats []pattern, raised map[uint32][]raisedNeedle, class string, msg []byte) int32 {
	best := int32(-1)
	raisedCandidatesIn(raised, msg, func(o int32) {
		p := &pats[o]
		if best >= 0 {
			q := &pats[best]
			if n, k := len(p.rec.Match.Regex), len(q.rec.Match.Regex); n < k || n == k && (p.diffusion || !q.diffusion) {
				return
			}
		}
		if c := p.rec.Match.Exception; c != "" && class != "" && !SameClass(c, class) {
			return
		}
		if p.confirm(msg) {
			best = o
		}
	})
	return best
}

// libSet is a library's generated records, compiled for confirmation and
// indexed like sglang's raised messages.
type libSet struct {
	pats   []pattern
	raised map[uint32][]raisedNeedle
}

// library returns a library's records, read and indexed on first use; nil
// when they cannot be read.
func (m *Matcher) library(pkg string) *libSet {
	f, _ := m.libs.LoadOrStore(pkg, sync.OnceValue(func() *libSet {
		recs, err := patterns.LibraryRecords(pkg)
		if err != nil {
			return nil
		}
		ls := &libSet{pats: make([]pattern, len(recs)), raised: map[uint32][]raisedNeedle{}}
		for i, rec := range recs {
			ls.pats[i] = pattern{rec: rec, gen: true}
			for _, n := range rec.Gen.Needles {
				if len(n) >= 4 {
					k := gram([]byte(n))
					ls.raised[k] = append(ls.raised[k], raisedNeedle{n, int32(i)})
				}
			}
		}
		return ls
	}))
	return f.(func() *libSet)()
}

// SameClass compares exception classes with or without their module:
// "torch.OutOfMemoryError" is "OutOfMemoryError".
func SameClass(a, b string) bool {
	return a == b || strings.HasSuffix(a, "."+b) || strings.HasSuffix(b, "."+a)
}

// Pack returns the pack the matcher was compiled from.
func (m *Matcher) Pack() *patterns.Pack { return m.pack }

// searchPiece is about how much of a block the automaton searches at
// once (see candidates).
const searchPiece = 16 << 10

// candidate is a line the automaton proposes: the offset of the line's start
// in its block and the pattern (or marker, when negative) to confirm there.
type candidate struct {
	start int
	owner int32
}

// candidates appends to dst the candidates of a block of whole lines, in
// line order. Lines with ANSI escapes, or escapes spelt out in text, are
// also searched in their normalized form, since an escape may split a
// needle.
func (m *Matcher) candidates(block []byte, dst []candidate, scratch []byte) ([]candidate, []byte) {
	return m.candidatesQuiet(block, dst, scratch, nil)
}

// candidatesQuiet is candidates, with the lines of a shape q knows to be
// quiet not searched (see quietShapes); q may be nil.
func (m *Matcher) candidatesQuiet(block []byte, dst []candidate, scratch []byte, q *quietShapes) ([]candidate, []byte) {
	if startsAtLevel(block) {
		dst = append(dst, candidate{0, int32(markLevel)})
	}
	if q == nil || m.noQuiet {
		dst = m.search(block, 0, len(block), dst)
	} else {
		// The lines between quiet ones are searched together, from the
		// newline before the first (a needle may start with it) to the
		// newline after the last. A block's first line is always
		// searched: no newline of the block comes before it.
		from := 0
		for pos := 0; pos < len(block); {
			end := pos + lineLen(block[pos:])
			if end == len(block) {
				break // a line without its newline: searched with the rest
			}
			if pos > 0 && q.skips(m, block, pos, end) {
				if from < pos-1 {
					dst = m.search(block, from, pos, dst)
				}
				from = end
			}
			pos = end + 1
		}
		if from < len(block)-1 {
			dst = m.search(block, from, len(block), dst)
		}
	}
	unsorted := false
	dst, scratch, unsorted = m.jsonCandidates(block, dst, scratch)
	dst, scratch, unsorted = m.viewCandidates(block, dst, scratch, unsorted)
	nextText := textEscapeIndex(block) // where the next escape spelt out in text starts, from off on
	text := nextText >= 0
	if !text && bytes.IndexByte(block, 0x1b) < 0 {
		if unsorted {
			sortCandidates(dst)
		}
		return dst, scratch
	}
	for off := 0; ; {
		i := bytes.IndexByte(block[off:], 0x1b)
		if text {
			if nextText < off {
				if nextText = textEscapeIndex(block[off:]); nextText >= 0 {
					nextText += off
				} else {
					text = false
				}
			}
			if nextText >= 0 && (i < 0 || nextText-off < i) {
				i = nextText - off
			}
		}
		if i < 0 {
			break
		}
		start := bytes.LastIndexByte(block[:off+i], '\n') + 1
		end := off + i + lineLen(block[off+i:])
		scratch = Normalize(scratch[:0], block[start:end])
		for _, h := range m.find(scratch) {
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

// smartQuote is the start of the UTF-8 encoding of the typographic quotes
// Normalize folds (U+2018, U+2019, U+201C, U+201D), and of other
// punctuation (dashes, an ellipsis).
var smartQuote = []byte{0xe2, 0x80}

// quoteTail reports whether b ends one of the typographic quotes after
// smartQuote.
func quoteTail(b byte) bool {
	return b == 0x98 || b == 0x99 || b == 0x9c || b == 0x9d
}

// viewCandidates appends the candidates of the lines of a block that are
// searched in their matching view as well, as processLine reads them, and
// reports whether it appended any: lines with typographic quotes (a
// needle with a quote, "name '", is found in a log whose quotes a paste
// smartened), and a traceback's frames pasted with escaped quotes
// (`File \"/x/scheduler.py\", line 9, in run_batch`). Lines with escapes
// are searched in that view with the escapes.
func (m *Matcher) viewCandidates(block []byte, dst []candidate, scratch []byte, unsorted bool) ([]candidate, []byte, bool) {
	search := func(start, end int) {
		line := block[start:end]
		if bytes.IndexByte(line, 0x1b) >= 0 || textEscapeIndex(line) >= 0 {
			return // searched in its normalized form with the escapes
		}
		scratch = Normalize(scratch[:0], line)
		if escapedFrameLine(scratch) {
			scratch = unescapeQuotes(scratch)
		}
		for _, h := range m.find(scratch) {
			for _, o := range m.owners[h.PatternID] {
				dst = append(dst, candidate{start, o})
			}
			unsorted = true
		}
	}
	// Looked for by their middle byte, which a progress bar's blocks
	// (U+2588, E2 96 88) do not have.
	for off := 1; off < len(block); {
		i := bytes.IndexByte(block[off:], smartQuote[1])
		if i < 0 {
			break
		}
		i += off
		if block[i-1] != smartQuote[0] || i+1 >= len(block) || !quoteTail(block[i+1]) {
			off = i + 1 // another character: a dash, an ellipsis, a CJK character
			continue
		}
		start, end := bytes.LastIndexByte(block[:i], '\n')+1, i+lineLen(block[i:])
		search(start, end)
		off = end
	}
	// A backslash is rare in a log, "File " is not: look for the one.
	for off := 0; off < len(block); {
		i := bytes.IndexByte(block[off:], '\\')
		if i < 0 {
			break
		}
		i += off
		if i+1 >= len(block) || block[i+1] != '"' || !bytes.HasSuffix(block[:i], escapedFrame[:len(escapedFrame)-2]) {
			off = i + 1
			continue
		}
		start, end := bytes.LastIndexByte(block[:i], '\n')+1, i+lineLen(block[i:])
		search(start, end)
		off = end
	}
	return dst, scratch, unsorted
}

// search appends the candidates the automaton proposes in block[from:to]:
// from is a line's start or the newline before it, and to is just past a
// newline or the block's end.
func (m *Matcher) search(block []byte, from, to int, dst []candidate) []candidate {
	lineStart, lineEnd := -1, -1
	// The automaton returns every hit of what it searches at once: it is
	// given a piece of lines at a time, so that the hits of a flood of
	// error lines stay a small slice in cache rather than one the size of
	// the block, grown and copied as it fills. Two pieces share the
	// newline between them, so that a needle that starts with it ("\nE0",
	// the start of the line after) or ends with it is found whole.
	for off := from; off < to; {
		end := to
		if end-off > searchPiece {
			if i := bytes.IndexByte(block[off+searchPiece:to], '\n'); i >= 0 && off+searchPiece+i+1 < to {
				end = off + searchPiece + i + 1
			}
		}
		for _, h := range m.find(block[off:end]) {
			start := off + h.Start
			if block[start] == '\n' {
				start++ // a needle that names the line after the newline
			}
			if start >= lineEnd {
				if lineEnd >= 0 && lineEnd < start && bytes.IndexByte(block[lineEnd+1:start], '\n') < 0 {
					// The line after the last one proposed, as in a flood of
					// errors: no need to look back along it.
					lineStart = lineEnd + 1
				} else {
					lineStart = bytes.LastIndexByte(block[:start], '\n') + 1
				}
				lineEnd = start + lineLen(block[start:])
			}
			for _, o := range m.owners[h.PatternID] {
				dst = append(dst, candidate{lineStart, o})
			}
		}
		if end == to {
			break
		}
		off = end - 1 // the newline, again
	}
	return dst
}

// jsonCandidates appends the candidates of the JSON-structured lines of a
// block whose message has escapes: a needle with a quote, a backslash or a
// tab ("File \"") is found in the message's text, not in its escaped form.
// It reports whether it appended any.
func (m *Matcher) jsonCandidates(block []byte, dst []candidate, scratch []byte) ([]candidate, []byte, bool) {
	added := false
	for off := 0; off < len(block); {
		i := bytes.IndexByte(block[off:], '\\')
		if i < 0 {
			break
		}
		start := bytes.LastIndexByte(block[:off+i], '\n') + 1
		end := off + i + lineLen(block[off+i:])
		off = end + 1
		var j jsonLine
		msg, ok := j.parse(block[start:end])
		if !ok || bytes.IndexByte(msg, '\\') < 0 {
			continue
		}
		scratch = unescapeJSON(scratch[:0], msg)
		for _, h := range m.find(scratch) {
			for _, o := range m.owners[h.PatternID] {
				dst = append(dst, candidate{start, o})
				added = true
			}
		}
	}
	return dst, scratch, added
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
// a log is searched: through the automata, then each proposed record's
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
	m.raisedCandidates(msg, func(o int32) {
		if p := &m.pats[o]; !slices.Contains(out, p.rec) && p.confirm(msg) {
			out = append(out, p.rec)
		}
	})
	return out
}

package matcher

import (
	"encoding/binary"
	"math/bits"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// A line's shape is its message with the words that differ from one
// occurrence of an error to the next masked: numbers, hexadecimal ids
// and addresses. An error logged for every request has one shape however
// many requests fail, and what a record's regexp decided on one line of a
// shape it decides on every other, when the regexp cannot tell such
// words apart: the engine then confirms a shape once (see shapeCache).
//
// A word is a maximal run of ASCII letters, digits and underscores, as
// regexp's \b reads one. Three kinds are masked:
const (
	wordNumber = iota // digits only: "7000", "3"
	wordHex           // eight or more of 0-9a-f, digits and letters: a request id
	wordAddr          // "0x" and hexadecimal digits: an address
	wordKinds
)

// minHexWord is the shortest run of hexadecimal digits read as an id.
const minHexWord = 8

// kindAlphabet is what the words of a kind are made of.
var kindAlphabet = [wordKinds]string{
	wordNumber: "0123456789",
	wordHex:    "0123456789abcdef",
	wordAddr:   "0123456789abcdefABCDEFx",
}

// maskWord is a word of a message that a shape may mask.
type maskWord struct {
	start, end int32
	kind       int8
}

// appendWords appends the words of msg that a shape may mask, in order.
// Every such word holds a digit: the digits are found eight bytes at a
// time, and the word around each taken whole.
func appendWords(dst []maskWord, msg []byte) []maskWord {
	for i := 0; i < len(msg); {
		d := nextDigit(msg, i)
		if d < 0 {
			break
		}
		start, end, seen := d, d+1, uint8(charDigit)
		for start > i {
			c := charClass[msg[start-1]]
			if c == 0 {
				break
			}
			seen |= c
			start--
		}
		for end < len(msg) {
			c := charClass[msg[end]]
			if c == 0 {
				break
			}
			seen |= c
			end++
		}
		if k := wordKind(msg[start:end], seen); k >= 0 {
			dst = append(dst, maskWord{int32(start), int32(end), int8(k)})
		}
		i = end
	}
	return dst
}

// charClass sorts the bytes of words: a digit, a letter a-f, another word
// byte; 0 for a byte outside words.
var charClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case '0' <= c && c <= '9':
			t[c] = charDigit
		case 'a' <= c && c <= 'f':
			t[c] = charHex
		case wordByte(byte(c)):
			t[c] = charOther
		}
	}
	return t
}()

const (
	charDigit = 1 << iota
	charHex
	charOther
)

// nextDigit returns the index of the first ASCII digit in msg from i, or
// -1.
func nextDigit(msg []byte, i int) int {
	const (
		low  = 0x7f7f7f7f7f7f7f7f
		high = 0x8080808080808080
	)
	for ; i+8 <= len(msg); i += 8 {
		v := binary.LittleEndian.Uint64(msg[i:])
		x := v & low
		ge0 := x + 0x5050505050505050 // bit 7 set where x >= '0'
		gt9 := x + 0x4646464646464646 // where x > '9'
		if m := ge0 &^ gt9 &^ v & high; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(msg); i++ {
		if '0' <= msg[i] && msg[i] <= '9' {
			return i
		}
	}
	return -1
}

// wordKind returns the kind of a word that holds a digit, given the
// classes of its bytes (charClass), or -1 for a word that is not masked.
func wordKind(w []byte, seen uint8) int {
	switch {
	case seen == charDigit:
		return wordNumber
	case seen == charDigit|charHex && len(w) >= minHexWord:
		return wordHex
	case len(w) > 2 && w[0] == '0' && w[1] == 'x':
		for _, c := range w[2:] {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return -1
			}
		}
		return wordAddr
	}
	return -1
}

// shapeSpec says which words of a message one regexp cannot tell apart
// from others of their kind: for each kind, whether its words are masked
// at all, and the bytes after which a word of the kind is kept as it is
// (the regexp may read into a word that follows one of them). A word at
// the start of the message is masked only when its kind is.
type shapeSpec struct {
	masked [wordKinds]bool
	keep   [wordKinds]byteSet
	id     uint64 // its number among the matcher's specs, from 1; 0 until interned
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }
func (s *byteSet) union(t *byteSet) {
	s[0], s[1], s[2], s[3] = s[0]|t[0], s[1]|t[1], s[2]|t[2], s[3]|t[3]
}

// coarseSpec masks every word of every kind: the shape most records'
// specs give a message (see keepsAny). Its id is 0.
var coarseSpec = shapeSpec{masked: [wordKinds]bool{true, true, true}}

// keepsAny reports whether sp keeps any of the words of msg that
// coarseSpec masks: whether the shape of msg under sp differs from its
// coarse shape.
func (sp *shapeSpec) keepsAny(msg []byte, words []maskWord) bool {
	for _, w := range words {
		if !sp.masked[w.kind] || w.start > 0 && sp.keep[w.kind].has(msg[w.start-1]) {
			return true
		}
	}
	return false
}

// masksAny reports whether the spec masks any word.
func (sp *shapeSpec) masksAny() bool {
	for k := range wordKinds {
		if sp.masked[k] {
			return true
		}
	}
	return false
}

// appendShape appends the shape of msg under sp to dst, given the words
// of msg that a shape may mask (appendWords): each masked word is written
// as a NUL and a letter for its kind. msg must hold no NUL, so that two
// messages have the same shape only when they differ in masked words
// alone.
func appendShape(dst, msg []byte, words []maskWord, sp *shapeSpec) []byte {
	at := 0
	for _, w := range words {
		if !sp.masked[w.kind] || w.start > 0 && sp.keep[w.kind].has(msg[w.start-1]) {
			continue
		}
		dst = append(dst, msg[at:w.start]...)
		dst = append(dst, 0, "NHA"[w.kind])
		at = int(w.end)
	}
	return append(dst, msg[at:]...)
}

// maxShapePositions bounds the regexps analysed: a larger one is
// confirmed line by line.
const maxShapePositions = 1024

// analyseShape works out which words of a message a regexp cannot tell
// apart from others of their kind, or returns nil when it cannot say: the
// regexp is then run on every line.
//
// It reads the regexp as a Glushkov automaton: one position for each
// character it consumes, and which positions may follow which. A word of
// the message is consumed, if at all, by a contiguous stretch of the
// match. A position whose characters include some of a kind's alphabet
// "touches" the kind, unless it lies in a run of word characters of one
// literal that holds a character outside that alphabet (such a run lies
// within one word of the message, which then is not of the kind). A
// touching position is "good" when its characters include the whole
// alphabet, it may follow itself, and no other touching position may
// follow it: a word it enters is consumed by it alone, and another word
// of the kind, of any length, is consumed by it as well. Any other
// touching position is "bad". A word that a bad position may read is kept:
// such a stretch enters the word from a touching position reached after
// a non-word byte just before the word (which must be that byte), or at
// the start of a match, which may be anywhere (the kind is then not
// masked).
//
// Assertions are false inside a word (\b, ^, $) and true or false at its
// ends alike for every word of a kind, so they are left out of the
// automaton, which only adds ways for positions to follow each other;
// \B, and any assertion inside a repeat, are not analysed.
func analyseShape(expr string) *shapeSpec {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	g := glushkov{}
	if !g.build(re.Simplify()) {
		return nil
	}
	sp := &shapeSpec{}
	for k := range wordKinds {
		g.kind(k, sp)
	}
	return sp
}

// gpos is a position of a Glushkov automaton: a set of characters and,
// for each kind, whether it lies in a literal's run of word characters
// that no word of the kind can hold.
type gpos struct {
	ranges  []rune // pairs, inclusive, as syntax.Regexp.Rune
	blocked [wordKinds]bool
}

// posSet is a set of positions.
type posSet []uint64

func (b posSet) set(i int)      { b[i>>6] |= 1 << (i & 63) }
func (b posSet) has(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }
func (b posSet) or(c posSet) {
	for i := range b {
		b[i] |= c[i]
	}
}

// gnode is what build works out for a subexpression: whether it matches
// the empty string, and its first and last positions.
type gnode struct {
	nullable    bool
	first, last posSet
}

// glushkov is a regexp's Glushkov automaton: its positions, the positions
// that may follow each, and those a match may start with.
type glushkov struct {
	pos    []gpos
	follow []posSet
	first  posSet
	words  int  // uint64s in a position set
	ok     bool // false once build met what it does not analyse
}

// build makes the automaton of re; false when it is not analysed.
func (g *glushkov) build(re *syntax.Regexp) bool {
	n := countPositions(re)
	if n < 0 || n > maxShapePositions {
		return false
	}
	g.words = (n + 63) / 64
	if g.words == 0 {
		g.words = 1
	}
	g.ok = true
	root := g.walk(re, false)
	if !g.ok {
		return false
	}
	g.first = root.first
	return true
}

func (g *glushkov) newSet() posSet { return make(posSet, g.words) }

// countPositions counts the characters re consumes, or returns -1 when re
// holds what is not analysed.
func countPositions(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpNoWordBoundary, syntax.OpNoMatch:
		return -1
	}
	n := 0
	for _, s := range re.Sub {
		k := countPositions(s)
		if k < 0 {
			return -1
		}
		n += k
	}
	return n
}

// walk builds the positions of re and the follow sets within it; inLoop
// is true inside a repeat.
func (g *glushkov) walk(re *syntax.Regexp, inLoop bool) gnode {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return gnode{nullable: true, first: g.newSet(), last: g.newSet()}
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary:
		if inLoop {
			g.ok = false
		}
		return gnode{nullable: true, first: g.newSet(), last: g.newSet()}
	case syntax.OpLiteral:
		return g.literal(re)
	case syntax.OpCharClass:
		return g.leaf(gpos{ranges: re.Rune})
	case syntax.OpAnyCharNotNL:
		return g.leaf(gpos{ranges: []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}})
	case syntax.OpAnyChar:
		return g.leaf(gpos{ranges: []rune{0, unicode.MaxRune}})
	case syntax.OpCapture:
		return g.walk(re.Sub[0], inLoop)
	case syntax.OpConcat:
		out := gnode{nullable: true, first: g.newSet(), last: g.newSet()}
		for _, s := range re.Sub {
			n := g.walk(s, inLoop)
			g.link(out.last, n.first)
			if out.nullable {
				out.first.or(n.first)
			}
			if n.nullable {
				out.last.or(n.last)
			} else {
				out.last = n.last
			}
			out.nullable = out.nullable && n.nullable
		}
		return out
	case syntax.OpAlternate:
		out := gnode{first: g.newSet(), last: g.newSet()}
		for _, s := range re.Sub {
			n := g.walk(s, inLoop)
			out.first.or(n.first)
			out.last.or(n.last)
			out.nullable = out.nullable || n.nullable
		}
		return out
	case syntax.OpQuest:
		n := g.walk(re.Sub[0], inLoop)
		n.nullable = true
		return n
	case syntax.OpStar, syntax.OpPlus:
		n := g.walk(re.Sub[0], true)
		g.link(n.last, n.first)
		n.nullable = n.nullable || re.Op == syntax.OpStar
		return n
	}
	// OpRepeat does not survive Simplify; anything else is not analysed.
	g.ok = false
	return gnode{first: g.newSet(), last: g.newSet()}
}

// link lets every position of to follow every position of from.
func (g *glushkov) link(from, to posSet) {
	for i := range g.pos {
		if from.has(i) {
			g.follow[i].or(to)
		}
	}
}

// leaf adds one position.
func (g *glushkov) leaf(p gpos) gnode {
	i := len(g.pos)
	g.pos = append(g.pos, p)
	g.follow = append(g.follow, g.newSet())
	n := gnode{first: g.newSet(), last: g.newSet()}
	n.first.set(i)
	n.last.set(i)
	return n
}

// literal adds the positions of a literal, each with the characters it
// matches (its case variants too, under (?i)), and marks those in a run
// of word characters that holds a character no word of a kind holds.
func (g *glushkov) literal(re *syntax.Regexp) gnode {
	fold := re.Flags&syntax.FoldCase != 0
	start := len(g.pos)
	out := gnode{first: g.newSet(), last: g.newSet()}
	for k, r := range re.Rune {
		var ranges []rune
		for _, v := range orbit(r, fold) {
			ranges = append(ranges, v, v)
		}
		n := g.leaf(gpos{ranges: ranges})
		if k == 0 {
			out.first = n.first
		} else {
			g.follow[len(g.pos)-2].or(n.first)
		}
		out.last = n.last
	}
	// Runs of characters that can only be ASCII word characters.
	for i := 0; i < len(re.Rune); {
		if !wordRune(re.Rune[i], fold) {
			i++
			continue
		}
		j := i
		for j < len(re.Rune) && wordRune(re.Rune[j], fold) {
			j++
		}
		for k := range wordKinds {
			outside := false
			for _, r := range re.Rune[i:j] {
				if !touchesAlphabet(orbit(r, fold), k) {
					outside = true
				}
			}
			for p := i; p < j && outside; p++ {
				g.pos[start+p].blocked[k] = true
			}
		}
		i = j
	}
	if len(re.Rune) == 0 {
		out.nullable = true
	}
	return out
}

// orbit is a rune and, under case folding, its other cases.
func orbit(r rune, fold bool) []rune {
	out := []rune{r}
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			out = append(out, f)
		}
	}
	return out
}

// wordRune reports whether a literal's rune can only match an ASCII word
// character.
func wordRune(r rune, fold bool) bool {
	for _, v := range orbit(r, fold) {
		if v >= utf8.RuneSelf || !wordByte(byte(v)) {
			return false
		}
	}
	return true
}

// touchesAlphabet reports whether any of the runes is in a kind's
// alphabet.
func touchesAlphabet(runes []rune, k int) bool {
	for _, r := range runes {
		for i := 0; i < len(kindAlphabet[k]); i++ {
			if r == rune(kindAlphabet[k][i]) {
				return true
			}
		}
	}
	return false
}

// has reports whether r is one of the position's characters.
func (p *gpos) has(r rune) bool {
	for i := 0; i+1 < len(p.ranges); i += 2 {
		if p.ranges[i] <= r && r <= p.ranges[i+1] {
			return true
		}
	}
	return false
}

// touches reports whether the position may consume a character of a word
// of kind k.
func (p *gpos) touches(k int) bool {
	if p.blocked[k] {
		return false
	}
	for i := 0; i < len(kindAlphabet[k]); i++ {
		if p.has(rune(kindAlphabet[k][i])) {
			return true
		}
	}
	return false
}

// covers reports whether the position consumes every character of kind
// k's alphabet.
func (p *gpos) covers(k int) bool {
	for i := 0; i < len(kindAlphabet[k]); i++ {
		if !p.has(rune(kindAlphabet[k][i])) {
			return false
		}
	}
	return true
}

// nonWordBytes returns the bytes that can end a character of p that is
// not an ASCII word character: the byte itself for ASCII, every byte from
// 0x80 for the rest (the last byte of a longer character, or an invalid
// byte, which the regexp reads as U+FFFD).
func (p *gpos) nonWordBytes() byteSet {
	var s byteSet
	for c := 0; c < utf8.RuneSelf; c++ {
		if !wordByte(byte(c)) && p.has(rune(c)) {
			s.add(byte(c))
		}
	}
	for i := 0; i+1 < len(p.ranges); i += 2 {
		if p.ranges[i+1] >= utf8.RuneSelf {
			for c := 0x80; c < 0x100; c++ {
				s.add(byte(c))
			}
			break
		}
	}
	return s
}

// kind fills in sp for words of kind k.
func (g *glushkov) kind(k int, sp *shapeSpec) {
	n := len(g.pos)
	touching := g.newSet()
	for i := range g.pos {
		if g.pos[i].touches(k) {
			touching.set(i)
		}
	}
	bad := g.newSet()
	anyBad := false
	for i := range g.pos {
		if !touching.has(i) {
			continue
		}
		good := g.pos[i].covers(k) && g.follow[i].has(i)
		for j := 0; j < n && good; j++ {
			if j != i && touching.has(j) && g.follow[i].has(j) {
				good = false
			}
		}
		if !good {
			bad.set(i)
			anyBad = true
		}
	}
	sp.masked[k] = true
	if !anyBad {
		return
	}
	// The touching positions from which a bad one can be reached through
	// touching positions alone: where a stretch that reads a bad
	// position inside a word may have entered the word.
	entries := g.newSet()
	copy(entries, bad)
	for changed := true; changed; {
		changed = false
		for i := range g.pos {
			if !touching.has(i) || entries.has(i) {
				continue
			}
			for j := 0; j < n; j++ {
				if entries.has(j) && g.follow[i].has(j) {
					entries.set(i)
					changed = true
					break
				}
			}
		}
	}
	for e := 0; e < n; e++ {
		if !entries.has(e) {
			continue
		}
		if g.first.has(e) {
			sp.masked[k] = false // a match may start inside any word
			return
		}
		for r := 0; r < n; r++ {
			if g.follow[r].has(e) {
				b := g.pos[r].nonWordBytes()
				sp.keep[k].union(&b)
			}
		}
	}
}

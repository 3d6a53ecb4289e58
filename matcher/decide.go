package matcher

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// A decider tells whether a message holds a match of a regex, as fast as
// the regex allows: confirming a proposal needs a yes or no, not where
// the match is or what it captured. It is a literal searched with
// bytes.Contains, or a regexp.
type decider struct {
	lit []byte
	re  *regexp.Regexp
	// A regex that can only match within width bytes before its first
	// literal, skip, is run from there: Go's regexp skips ahead only to a
	// literal prefix, and tries every position of the line before it.
	skip  []byte
	width int
}

func (d decider) match(msg []byte) bool {
	if d.re == nil {
		return bytes.Contains(msg, d.lit)
	}
	if d.skip != nil {
		i := bytes.Index(msg, d.skip)
		if i < 0 {
			return false
		}
		msg = msg[max(0, i-d.width):]
	}
	return d.re.Match(msg)
}

// deciders returns the deciders of expr: a message holds a match of expr
// when one of them matches it. Each is a branch of an alternation at the
// top of expr ("A|B|C": an alternation has no literal prefix for Go's
// regexp to skip ahead to, so the whole regex would be tried at every
// position of a line), cut to what decides a match: what may match
// nothing at either end is dropped ("rank=(\d+)(?: .*? with (.+))?" is
// decided by "rank=\d"), and a repeat at an end is kept once (Simplify has
// written counted repeats as these). What is left is often a literal. It returns nil when expr
// does not parse or nothing can be cut; the regex itself decides then.
func deciders(expr string) []decider {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	branches := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate && len(re.Sub) <= 32 {
		branches = re.Sub
	}
	var cuts []*syntax.Regexp
	changed := len(branches) > 1
	for _, b := range branches {
		cut, ok := trimEnds(b)
		if !ok {
			// A branch that may match nothing matches every message.
			return nil
		}
		changed = changed || !cut.Equal(b)
		alts := []*syntax.Regexp{cut}
		for range 3 {
			var next []*syntax.Regexp
			for _, a := range alts {
				if d := distribute(a); d != nil {
					next = append(next, d...)
				} else {
					next = append(next, a)
				}
			}
			if len(next) == len(alts) || len(next) > 8 {
				break
			}
			alts, changed = next, true
		}
		cuts = append(cuts, alts...)
	}
	out := make([]decider, 0, len(cuts))
	for _, cut := range cuts {
		if lit, ok := plainLiteral(cut); ok {
			out = append(out, decider{lit: lit})
			continue
		}
		d, err := regexp.Compile(cut.String())
		if err != nil {
			return nil
		}
		skip, width := leadLiteral(cut)
		changed = changed || skip != nil
		out = append(out, decider{re: d, skip: skip, width: width})
	}
	if !changed {
		return nil
	}
	return out
}

// distribute writes a concatenation whose start is an alternation after
// characters of fixed width ("(?:^|Error: )No module named",
// "[^\"'](?:Mooncake memory|Failed to register)") as the alternation of
// its branches, each with the rest ("^No module named|Error: No module
// named"), so that each branch has a literal near its start. It returns
// nil for any other regex, or when that would make more than 8 branches.
func distribute(re *syntax.Regexp) []*syntax.Regexp {
	if re.Op != syntax.OpConcat {
		return nil
	}
	for i, sub := range re.Sub {
		if sub.Op == syntax.OpCapture {
			sub = sub.Sub[0]
		}
		if sub.Op == syntax.OpAlternate {
			if len(sub.Sub) > 8 {
				return nil
			}
			out := make([]*syntax.Regexp, len(sub.Sub))
			for k, alt := range sub.Sub {
				c := *re
				c.Sub = append(append(append([]*syntax.Regexp(nil), re.Sub[:i]...), alt), re.Sub[i+1:]...)
				out[k] = simplifyConcat(&c)
			}
			return out
		}
		if _, ok := charWidth(sub); !ok {
			return nil
		}
	}
	return nil
}

// simplifyConcat flattens the concatenations distribute made inside one
// and joins the literals that come next to each other.
func simplifyConcat(re *syntax.Regexp) *syntax.Regexp {
	var subs []*syntax.Regexp
	add := func(s *syntax.Regexp) {
		if n := len(subs); n > 0 && s.Op == syntax.OpLiteral && subs[n-1].Op == syntax.OpLiteral && subs[n-1].Flags == s.Flags {
			joined := *s
			joined.Rune = append(append([]rune(nil), subs[n-1].Rune...), s.Rune...)
			subs[n-1] = &joined
			return
		}
		subs = append(subs, s)
	}
	for _, s := range re.Sub {
		switch s.Op {
		case syntax.OpConcat:
			for _, t := range s.Sub {
				add(t)
			}
		case syntax.OpEmptyMatch:
		default:
			add(s)
		}
	}
	if len(subs) == 1 {
		return subs[0]
	}
	c := *re
	c.Sub = subs
	return &c
}

// leadLiteral returns the literal a concatenation must hold after at most
// width bytes of single characters from where a match starts, or nil. A
// regex that starts with an assertion on what comes before (^, \b) has
// none: it cannot be run from the middle of a line.
func leadLiteral(re *syntax.Regexp) (lit []byte, width int) {
	if re.Op != syntax.OpConcat {
		return nil, 0
	}
	for _, sub := range re.Sub {
		if l, ok := plainLiteral(sub); ok && width > 0 {
			return l, width
		}
		w, ok := charWidth(sub)
		if !ok {
			return nil, 0
		}
		width += w
	}
	return nil, 0
}

// charWidth returns the most bytes re matches when it matches a fixed
// number of characters and no assertion.
func charWidth(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += max(utf8.RuneLen(r), 1)
		}
		if re.Flags&syntax.FoldCase != 0 {
			n *= 2 // a folded rune may be written longer (K, the Kelvin sign)
		}
		return n, true
	case syntax.OpCharClass:
		if len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] < utf8.RuneSelf {
			return 1, true
		}
		return utf8.UTFMax, true
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax, true
	case syntax.OpCapture:
		return charWidth(re.Sub[0])
	}
	return 0, false
}

// trimEnds cuts re to the part that decides whether a message holds a
// match anywhere, or says it matches the empty string. The cut matches
// where re does, and where the cut matches re matches too, on a stretch
// that may be longer at either end: both hold because only what can match
// nothing is dropped from an end and a repeat is kept once there. re is
// simplified: it holds no counted repeat.
func trimEnds(re *syntax.Regexp) (*syntax.Regexp, bool) {
	r, ok := trimSide(re, true)
	if !ok {
		return nil, false
	}
	return trimSide(r, false)
}

// trimSide cuts the right (or left) end of re; false means re matches the
// empty string, so that end is all of it.
func trimSide(re *syntax.Regexp, right bool) (*syntax.Regexp, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpQuest, syntax.OpStar:
		return nil, false
	case syntax.OpCapture, syntax.OpPlus:
		return trimSide(re.Sub[0], right)
	case syntax.OpConcat:
		subs := append([]*syntax.Regexp(nil), re.Sub...)
		for len(subs) > 0 {
			i := 0
			if right {
				i = len(subs) - 1
			}
			t, ok := trimSide(subs[i], right)
			if ok {
				subs[i] = t
				break
			}
			if right {
				subs = subs[:i]
			} else {
				subs = subs[1:]
			}
		}
		switch len(subs) {
		case 0:
			return nil, false
		case 1:
			return subs[0], true
		}
		c := *re
		c.Sub = subs
		return simplifyConcat(&c), true
	case syntax.OpAlternate:
		subs := make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			t, ok := trimSide(s, right)
			if !ok {
				return nil, false
			}
			subs[i] = t
		}
		c := *re
		c.Sub = subs
		return &c, true
	}
	return re, true
}

// plainLiteral returns the bytes of a regex that is a case-sensitive
// literal, which bytes.Contains finds as the regex would.
func plainLiteral(re *syntax.Regexp) ([]byte, bool) {
	if re.Op != syntax.OpLiteral || re.Flags&syntax.FoldCase != 0 {
		return nil, false
	}
	s := string(re.Rune)
	if !utf8.ValidString(s) || bytes.ContainsRune([]byte(s), utf8.RuneError) {
		// The regex reads an invalid byte as U+FFFD; Contains would not.
		return nil, false
	}
	return []byte(s), true
}

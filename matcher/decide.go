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
}

func (d decider) match(msg []byte) bool {
	if d.re != nil {
		return d.re.Match(msg)
	}
	return bytes.Contains(msg, d.lit)
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
	out := make([]decider, 0, len(branches))
	changed := len(branches) > 1
	for _, b := range branches {
		cut, ok := trimEnds(b)
		if !ok {
			// A branch that may match nothing matches every message.
			return nil
		}
		s := cut.String()
		changed = changed || s != b.String()
		if lit, ok := plainLiteral(cut); ok {
			out = append(out, decider{lit: lit})
			continue
		}
		d, err := regexp.Compile(s)
		if err != nil {
			return nil
		}
		out = append(out, decider{re: d})
	}
	if !changed {
		return nil
	}
	return out
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
		return &c, true
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

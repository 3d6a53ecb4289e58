package patterns

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// MinNeedle is the shortest literal a record may be recognised by. Shorter
// needles would make the prefilter propose too many lines.
const MinNeedle = 4

// ErrNoNeedle is returned by Needles when a record's regex has no literal of
// at least MinNeedle bytes that every match must contain.
var ErrNoNeedle = errors.New("no required literal to prefilter on")

// Needles returns literal strings such that every line the record matches
// contains at least one of them. The matcher feeds them to its multi-pattern
// automaton; a line that contains none cannot match the record.
func (r *Record) Needles() ([]string, error) {
	if r.Match.Message != "" {
		return []string{r.Match.Message}, nil
	}
	if c := r.needles; c != nil && c.of == r.Match {
		return c.needles, nil
	}
	re, err := syntax.Parse(r.needleSource(), syntax.Perl)
	if err != nil {
		return nil, err
	}
	return needlesOf(re)
}

// needleSource is the expression a record's needles come from: its frame
// when it has one (the frame line is the one proposed), else its regex.
func (r *Record) needleSource() string {
	if r.Match.Frame != "" {
		return r.Match.Frame
	}
	return r.Match.Regex
}

// needlesOf returns the needles of a parsed expression, as Needles does.
func needlesOf(re *syntax.Regexp) ([]string, error) {
	set, ok := required(re.Simplify())
	if !ok || minLen(set) < MinNeedle {
		return nil, fmt.Errorf("%w: every match must contain a literal of at least %d bytes", ErrNoNeedle, MinNeedle)
	}
	return set, nil
}

// required returns a set of literals at least one of which occurs in every
// match of re, choosing the most selective set it can prove. ok is false when
// nothing can be proven.
func required(re *syntax.Regexp) (set []string, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
		return nil, false
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			s, ok := required(sub)
			if !ok {
				return nil, false
			}
			set = append(set, s...)
		}
		return set, true
	case syntax.OpConcat:
		return requiredConcat(re.Sub)
	}
	return nil, false
}

// requiredConcat takes the products of adjacent subexpressions whose
// matches are few known strings ("Failed to (?:parse JSON content
// from|read JSON)" is one of two strings) and picks the best set among
// those and the other subexpressions' sets.
func requiredConcat(subs []*syntax.Regexp) ([]string, bool) {
	var best []string
	found := false
	consider := func(s []string) {
		s = dropRedundant(s)
		if !found || better(s, best) {
			best, found = s, true
		}
	}
	cur := []string{""} // the product of the exact run so far
	flush := func() {
		if len(cur) > 1 || cur[0] != "" {
			consider(cur)
		}
		cur = []string{""}
	}
	for _, sub := range subs {
		if s, ok := exact(sub); ok {
			if len(cur)*len(s) > maxExact {
				flush()
			}
			cur = product(cur, s)
			continue
		}
		flush()
		if s, ok := required(sub); ok {
			consider(s)
		}
	}
	flush()
	return best, found
}

// maxExact bounds the strings exact and requiredConcat enumerate.
const maxExact = 16

// exact returns every string re matches when they are few: literals, and
// concatenations, alternations and options of them, with empty-width
// assertions matching "".
func exact(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpCapture:
		return exact(re.Sub[0])
	case syntax.OpQuest:
		s, ok := exact(re.Sub[0])
		if !ok || len(s) >= maxExact {
			return nil, false
		}
		return append([]string{""}, s...), true
	case syntax.OpCharClass:
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi-lo >= maxExact || len(set)+int(hi-lo)+1 > 4 {
				return nil, false
			}
			for r := lo; r <= hi; r++ {
				set = append(set, string(r))
			}
		}
		return set, len(set) > 0
	case syntax.OpConcat:
		set := []string{""}
		for _, sub := range re.Sub {
			s, ok := exact(sub)
			if !ok || len(set)*len(s) > maxExact {
				return nil, false
			}
			set = product(set, s)
		}
		return set, true
	case syntax.OpAlternate:
		var set []string
		for _, sub := range re.Sub {
			s, ok := exact(sub)
			if !ok || len(set)+len(s) > maxExact {
				return nil, false
			}
			set = append(set, s...)
		}
		return set, true
	}
	return nil, false
}

// product returns every a followed by every b.
func product(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// dropRedundant removes from a set of needles each member that contains
// another: a line with the longer one has the shorter one too.
func dropRedundant(set []string) []string {
	out := set[:0:0]
	for i, s := range set {
		redundant := false
		for j, t := range set {
			if i != j && strings.Contains(s, t) && (len(t) < len(s) || j < i) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, s)
		}
	}
	return out
}

// better prefers the set whose shortest member says more; then fewer
// members. What a member says is its length without traceback
// scaffolding: a literal such as `.py", line ` is in every frame of every
// traceback, so it would propose all of them.
func better(a, b []string) bool {
	if ma, mb := minSelective(a), minSelective(b); ma != mb {
		return ma > mb
	}
	return len(a) < len(b)
}

// scaffolding is the text every line of a Python traceback's frames
// repeats: the frame's syntax and the directories sglang runs from.
var scaffolding = []string{`.py", line `, `File "`, `", line `, `, in `,
	`site-packages/`, `dist-packages/`, `python/sglang/`, `sglang/srt/`}

// minSelective is the length of the set's shortest member, not counting
// scaffolding.
func minSelective(set []string) int {
	m := -1
	for _, s := range set {
		for _, c := range scaffolding {
			s = strings.ReplaceAll(s, c, "")
		}
		if n := len(s); m < 0 || n < m {
			m = n
		}
	}
	return max(m, 0)
}

func minLen(set []string) int {
	m := -1
	for _, s := range set {
		if n := len(s); m < 0 || n < m {
			m = n
		}
	}
	if m < 0 {
		return 0
	}
	return m
}

// validUTF8 reports whether all strings are valid UTF-8.
func validUTF8(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

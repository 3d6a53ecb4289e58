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
	src := r.Match.Regex
	if r.Match.Frame != "" {
		src = r.Match.Frame // the frame line is the one proposed
	}
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, err
	}
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

// requiredConcat joins adjacent literals into runs and picks the best set
// among the runs and the subexpressions.
func requiredConcat(subs []*syntax.Regexp) ([]string, bool) {
	var best []string
	found := false
	consider := func(s []string) {
		if !found || better(s, best) {
			best, found = s, true
		}
	}
	var run []rune
	flush := func() {
		if len(run) > 0 {
			consider([]string{string(run)})
			run = run[:0]
		}
	}
	for _, sub := range subs {
		if sub.Op == syntax.OpLiteral && sub.Flags&syntax.FoldCase == 0 {
			run = append(run, sub.Rune...)
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

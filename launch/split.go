package launch

import (
	"errors"
	"fmt"
	"strings"
)

// ErrQuote is returned by Split when a quote is not closed.
var ErrQuote = errors.New("unterminated quote")

// Split splits the first command in s into words the way a POSIX shell
// would, without expanding anything: single quotes keep everything,
// double quotes keep everything but \" \\ \$ \` and a backslash-newline,
// and a backslash outside quotes keeps the next character (a
// backslash-newline joins lines, as in a launch script). The command ends
// at an unquoted newline, ';', '&' or '|'; redirections (`> log`, `2>&1`)
// are dropped with their targets, and `#` at the start of a word begins a
// comment. Blank lines and comment lines before the command are skipped.
func Split(s string) ([]string, error) {
	var (
		words   []string
		cur     strings.Builder
		inWord  bool // cur holds a word, possibly empty ("")
		redirTo bool // the next word is a redirection target
	)
	end := func() {
		if !inWord {
			return
		}
		if redirTo {
			redirTo = false
		} else {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 == len(s) {
				cur.WriteByte(c)
				inWord = true
				continue
			}
			i++
			if s[i] == '\n' {
				continue // line continuation
			}
			cur.WriteByte(s[i])
			inWord = true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("%w: ' opened at byte %d", ErrQuote, i+1)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			start := i
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					switch s[i+1] {
					case '"', '\\', '$', '`':
						i++
					case '\n':
						i++
						continue
					}
				}
				cur.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, fmt.Errorf("%w: \" opened at byte %d", ErrQuote, start+1)
			}
			inWord = true
		case c == ' ' || c == '\t' || c == '\r':
			end()
		case c == '#' && !inWord:
			// A comment runs to the end of the line.
			for i+1 < len(s) && s[i+1] != '\n' {
				i++
			}
		case c == '\n' || c == ';' || c == '&' || c == '|':
			if c == '&' && i > 0 && s[i-1] == '>' {
				// ">&" as in 2>&1: the rest is the redirection target.
				redirTo, inWord = true, false
				cur.Reset()
				continue
			}
			if c == '&' && i+1 < len(s) && s[i+1] == '>' {
				// "&>" and "&>>" redirect both streams.
				end()
				i++
				if i+1 < len(s) && s[i+1] == '>' {
					i++
				}
				redirTo = true
				continue
			}
			end()
			if len(words) > 0 || redirTo {
				return words, nil
			}
		case c == '>' || c == '<':
			// A redirection: a word of digits before it is its descriptor.
			if inWord && isDigits(cur.String()) {
				cur.Reset()
				inWord = false
			} else {
				end()
			}
			for i+1 < len(s) && (s[i+1] == '>' || s[i+1] == '<') {
				i++
			}
			redirTo = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Quote returns s as one shell word: unchanged when it needs no quoting,
// otherwise in single quotes.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	if !strings.ContainsAny(s, " \t\n\"'\\$`;&|<>()*?[]{}#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

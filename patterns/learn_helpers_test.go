package patterns

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// templateFromRegex reads back a regex made by templateRegex (or any regex of that
// syntax): ok is false when it holds anything else.
func templateFromRegex(re string) (parts []tmplPart, ok bool) {
	var b tmplBuilder
	for i := 0; i < len(re); {
		if strings.HasPrefix(re[i:], learnPlaceholder) {
			b.ph("…")
			i += len(learnPlaceholder)
			continue
		}
		c := re[i]
		switch {
		case c == '\\':
			if i+1 >= len(re) {
				return nil, false
			}
			n := re[i+1]
			switch {
			case n == 'n':
				b.lit.WriteByte('\n')
			case n == 't':
				b.lit.WriteByte('\t')
			case n == 'r':
				b.lit.WriteByte('\r')
			case n == 'x':
				if i+4 > len(re) {
					return nil, false
				}
				v, err := strconv.ParseUint(re[i+2:i+4], 16, 8)
				if err != nil {
					return nil, false
				}
				b.lit.WriteRune(rune(v))
				i += 4
				continue
			case n < utf8.RuneSelf && (n == ' ' || unicode.IsPunct(rune(n)) || unicode.IsSymbol(rune(n))):
				b.lit.WriteByte(n)
			default:
				return nil, false
			}
			i += 2
		case strings.IndexByte(`.+*?()|[]{}^$`, c) >= 0:
			return nil, false
		default:
			b.lit.WriteByte(c)
			i++
		}
	}
	return b.done(), true
}

// fillLine writes a template with repl for each run-time part.
func fillLine(line []tmplPart, repl string) string {
	var b strings.Builder
	for _, pt := range line {
		if pt.ph {
			b.WriteString(repl)
		} else {
			b.WriteString(pt.lit)
		}
	}
	return b.String()
}

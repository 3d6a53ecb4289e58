package launch

import "strings"

// SpellingOf before a dest asks a configuration how the user wrote the
// dest's flag: a command answers with the name it passes.
const SpellingOf = "spelling of "

// Lookup makes a command a server configuration, as sglang's server_args
// line is one: a dest's value as the command gives it, or sglang's default.
// Integer flags come out as int64 and switches as bools, so that remedies
// can work with them; other values as written.
//
// Lookup(SpellingOf+dest) is the name the command gives the dest's flag
// ("--tp"), or nothing when it does not pass it.
func (c *Command) Lookup(dest string) (any, bool) {
	if d, ok := strings.CutPrefix(dest, SpellingOf); ok {
		if a := c.last[d]; a != nil {
			return a.Name, true
		}
		return nil, false
	}
	fl := c.table.Lookup(dest)
	if fl == nil || fl.Dest != dest {
		return nil, false
	}
	s := c.Str(dest)
	switch {
	case s == "" && !c.Given(dest):
		return nil, true // None by default
	case !fl.TakesValue():
		return s == "true", true
	case fl.Type == "int":
		if n, err := parseInt(s); err == nil {
			return int64(n), true
		}
	}
	return s, true
}

package launch

import (
	"fmt"
	"strings"

	"github.com/tailfix/tailfix/patterns"
)

// ParseText parses a launch command given as one string, such as a line
// of a launch script or a flag's value: Split, then Parse. It returns nil
// and no error when the text holds no command (blank, or comments only).
// A text that does not split is an error that wraps ErrQuote and names
// source.
func ParseText(text, source string, table *patterns.FlagTable) (*Command, error) {
	words, err := Split(text)
	if err != nil {
		return nil, fmt.Errorf("cannot split the %s: %w", source, err)
	}
	if len(words) == 0 {
		return nil, nil
	}
	return parseWords(words, source, table)
}

// ParseWords parses a launch command given as words, as after -- on a
// command line. A single word with blanks in it is the whole command
// quoted as one, and is split as by ParseText; unlike ParseText, no
// command at all is an error (ErrNotLaunch).
func ParseWords(words []string, source string, table *patterns.FlagTable) (*Command, error) {
	if len(words) == 1 && strings.ContainsAny(words[0], " \t\n") {
		var err error
		if words, err = Split(words[0]); err != nil {
			return nil, fmt.Errorf("cannot split the %s: %w", source, err)
		}
	}
	return parseWords(words, source, table)
}

func parseWords(words []string, source string, table *patterns.FlagTable) (*Command, error) {
	c, err := Parse(words, source, table)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return c, nil
}

// ParseWrapped parses the command line of a process that may be an sglang
// server: the words as a launch command or, when they do not start sglang
// but the second word is a flag (a wrapper script that passes sglang's
// flags on), the words after the first. The error is Parse's for the
// words as given.
func ParseWrapped(words []string, source string, table *patterns.FlagTable) (*Command, error) {
	c, err := Parse(words, source, table)
	if err == nil {
		return c, nil
	}
	if len(words) > 1 && strings.HasPrefix(words[1], "--") {
		if c, err := Parse(words[1:], source, table); err == nil {
			return c, nil
		}
	}
	return nil, err
}

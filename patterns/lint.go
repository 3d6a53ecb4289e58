package patterns

import (
	"fmt"
	"regexp"
	"strings"
)

// Problem is something wrong with one record of a pack, found by Lint or
// by a check that runs the pack over lines.
type Problem struct {
	Record *Record
	What   string
}

// String is the problem with where the record is from and its id:
// "origin: id: what".
func (p Problem) String() string {
	return fmt.Sprintf("%s: %s: %s", p.Record.place(), p.Record.ID, p.What)
}

// Lint checks each record of the pack on its own beyond what loading
// checks: its regex compiles, and it has a literal of at least MinNeedle
// bytes to prefilter on (a generated record, its first needle). A record
// whose regex does not compile has no other problem reported. Ids are
// unique already, as NewPack checks.
func (p *Pack) Lint() []Problem {
	var out []Problem
	for _, r := range p.Records {
		if r.Match.Regex != "" {
			if _, err := regexp.Compile(r.Match.Regex); err != nil {
				out = append(out, Problem{r, fmt.Sprintf("regex does not compile: %v", err)})
				continue
			}
		}
		if r.Gen == nil {
			if _, err := r.Needles(); err != nil {
				out = append(out, Problem{r, err.Error()})
			}
		} else if len(r.Gen.Needles) == 0 || len(r.Gen.Needles[0]) < MinNeedle {
			out = append(out, Problem{r, fmt.Sprintf("no literal of %d bytes to prefilter on", MinNeedle)})
		}
	}
	return out
}

// Generated counts the records generated from sglang's source.
func (p *Pack) Generated() int {
	n := 0
	for _, r := range p.Records {
		if r.Gen != nil {
			n++
		}
	}
	return n
}

// LiteralValue is a flag of a fix template written with a literal value
// rather than a placeholder.
type LiteralValue struct {
	Flag  *Flag
	Value string
}

// LiteralValues returns the flags of a fix template (`--flag value` or
// `--flag=value`) whose value is written as a literal, not a placeholder.
func (t *FlagTable) LiteralValues(tmpl string) []LiteralValue {
	if !strings.Contains(tmpl, "--") {
		return nil
	}
	var out []LiteralValue
	words := strings.Fields(tmpl)
	for i, w := range words {
		if !strings.HasPrefix(w, "--") {
			continue
		}
		name, val, eq := strings.Cut(w, "=")
		fl := t.Lookup(name)
		if fl == nil || !fl.TakesValue() {
			continue
		}
		if !eq && i+1 < len(words) {
			val = words[i+1]
		}
		if val != "" && !strings.HasPrefix(val, "-") && !strings.Contains(val, "{") {
			out = append(out, LiteralValue{fl, val})
		}
	}
	return out
}

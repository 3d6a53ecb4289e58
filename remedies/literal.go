package remedies

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
)

// Literal is a value a hand-written fix writes out where the server's
// configuration carries the user's own: shown on every log, it reads as
// a diff of the user's command and is not.
type Literal struct {
	Record *patterns.Record
	// Side is "before" or "after" (of the record's otherwise change:
	// "otherwise.before", "otherwise.after").
	Side  string
	Flag  string
	Value string
}

func (l Literal) String() string {
	return fmt.Sprintf("%s: %s: the fix's %s writes %s %s where the server's configuration has its own (a placeholder: {%s|%s})",
		l.Record.Origin, l.Record.ID, l.Side, l.Flag, l.Value, l.dest(), l.Value)
}

func (l Literal) dest() string {
	return strings.ReplaceAll(strings.TrimPrefix(l.Flag, "--"), "-", "_")
}

// LiteralFixes returns the literal values of the hand-written records'
// fixes that the server's configuration carries: in a before, a flag's
// value that is the user's own choosing (a size, a count, a port, a path,
// an address; not a switch, a choice of the flag's list or a name such
// as EAGLE, which the error itself implies); in an after, a number other
// than 0 or 1 for a flag the before draws from the configuration, where
// the new value is worked from the old ({tp_size*2}), not fixed (a new
// path or address is the user's to choose, and an example). A fix that shows
// two servers (prefill: … decode: …) is left out: one of them is not the
// server whose log it is.
func LiteralFixes(pack *patterns.Pack, table *patterns.FlagTable) []Literal {
	var out []Literal
	_ = pack.LoadAll() // a record that cannot be read again has no fix
	for _, r := range pack.Records {
		if r.Gen != nil {
			continue
		}
		changes := []struct {
			side          string
			before, after string
		}{{"", r.Fix.Before, r.Fix.After}}
		if o := r.Fix.Otherwise; o != nil {
			changes = append(changes, struct {
				side          string
				before, after string
			}{"otherwise.", o.Before, o.After})
		}
		for _, c := range changes {
			if servers.MatchString(c.before) || servers.MatchString(c.after) {
				continue
			}
			placed := map[string]bool{}
			for _, v := range flagValues(c.before, table) {
				if v.placed {
					placed[v.flag.Dest] = true
				} else if free(v) {
					out = append(out, Literal{r, c.side + "before", v.name, v.value})
				}
			}
			for _, v := range flagValues(c.after, table) {
				if !v.placed && placed[v.flag.Dest] && numberRE.MatchString(v.value) && v.value != "0" && v.value != "1" {
					out = append(out, Literal{r, c.side + "after", v.name, v.value})
				}
			}
		}
	}
	return out
}

// flagValue is an sglang flag of a fix template with its value.
type flagValue struct {
	flag   *patterns.Flag
	name   string
	value  string
	placed bool // the value is, or holds, a placeholder
}

// placeholderSpanRE finds a template's placeholders.
var placeholderSpanRE = regexp.MustCompile(`\{[^{}]*\}`)

// flagValues returns the sglang flags of a fix template that take a
// value, as launch_server would parse them.
func flagValues(tmpl string, table *patterns.FlagTable) []flagValue {
	const mark = "\x01"
	args := launch.FixArgs(placeholderSpanRE.ReplaceAllStringFunc(tmpl, func(p string) string {
		if exprs, _ := alternatives(p[1 : len(p)-1]); exprs == nil {
			return p
		}
		return mark
	}), table)
	var out []flagValue
	for i := 0; i < len(args); i++ {
		name, value, eq := strings.Cut(args[i], "=")
		fl := table.Lookup(name)
		if fl == nil || !fl.TakesValue() {
			continue
		}
		if !eq {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
				continue
			}
			i++
			value = args[i]
		}
		out = append(out, flagValue{fl, name, value, strings.Contains(value, mark)})
	}
	return out
}

// free reports whether a flag's literal value is of the user's own
// choosing, not one the error implies: not one of the flag's choices,
// and not a name.
func free(v flagValue) bool {
	return !slices.Contains(v.flag.Choices, v.value) && !nameRE.MatchString(v.value) && v.value != "None" && !strings.HasPrefix(v.value, "<")
}

// numberRE is a number as a flag's value is written.
var numberRE = regexp.MustCompile(`^-?[0-9]+(?:\.[0-9]+)?$`)

// nameRE is a value that names something (EAGLE, qwen25, all), not a
// size, a path or an address.
var nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

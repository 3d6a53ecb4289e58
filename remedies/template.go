package remedies

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tailfix/tailfix/pyrepr"
)

// Config is a server's configuration as a log shows it (sglang's
// ServerArgs): a field's value by its name, "tp_size".
type Config interface {
	Lookup(name string) (any, bool)
}

// Render fills a record's before/after template with a server's values.
// A placeholder is {expr} or {expr|default}: expr is a field name or
// integer arithmetic over fields and numbers ("tp_size*pp_size"), and the
// default is shown when the configuration does not give the value. It
// returns the text and whether every placeholder came from the
// configuration; a template without placeholders is returned as it is.
func Render(tmpl string, cfg Config) (string, bool) {
	if !strings.Contains(tmpl, "{") {
		return tmpl, false
	}
	var b strings.Builder
	all := true
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			break
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			b.WriteString(tmpl)
			break
		}
		b.WriteString(tmpl[:i])
		expr, def, _ := strings.Cut(tmpl[i+1:i+j], "|")
		if !placeholderRE.MatchString(expr) {
			// Braces that are not a placeholder, as in a JSON value.
			b.WriteString(tmpl[i : i+j+1])
			tmpl = tmpl[i+j+1:]
			continue
		}
		if v, ok := eval(strings.TrimSpace(expr), cfg); ok {
			b.WriteString(v)
		} else {
			all = false
			b.WriteString(def)
		}
		tmpl = tmpl[i+j+1:]
	}
	return b.String(), all
}

// placeholderRE is what a placeholder's expression looks like: field
// names, numbers and + - * /.
var placeholderRE = regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_.]*(?:\s*[-+*/]\s*[A-Za-z0-9_.]+)*\s*$`)

// eval computes a placeholder: a field as it would be written on a command
// line, or integer arithmetic with + - * / left to right.
func eval(expr string, cfg Config) (string, bool) {
	if cfg == nil || expr == "" {
		return "", false
	}
	if !strings.ContainsAny(expr, "+-*/") {
		v, ok := cfg.Lookup(expr)
		if !ok || v == nil {
			return "", false
		}
		return flagText(v), true
	}
	var acc int64
	op := byte('+')
	for len(expr) > 0 {
		k := strings.IndexAny(expr, "+-*/")
		term := expr
		if k >= 0 {
			term = expr[:k]
		}
		n, ok := intTerm(strings.TrimSpace(term), cfg)
		if !ok {
			return "", false
		}
		switch op {
		case '+':
			acc += n
		case '-':
			acc -= n
		case '*':
			acc *= n
		case '/':
			if n == 0 {
				return "", false
			}
			acc /= n
		}
		if k < 0 {
			break
		}
		op, expr = expr[k], expr[k+1:]
	}
	return strconv.FormatInt(acc, 10), true
}

// intTerm is a number or an integer field.
func intTerm(term string, cfg Config) (int64, bool) {
	if n, err := strconv.ParseInt(term, 10, 64); err == nil {
		return n, true
	}
	v, ok := cfg.Lookup(term)
	if !ok {
		return 0, false
	}
	return pyrepr.IntValue(v)
}

// flagText writes a value as a command line would carry it.
func flagText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = flagText(e)
		}
		return strings.Join(parts, " ")
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

package remedies

import (
	"fmt"
	"math"
	"path"
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
// A placeholder is {expr}, {expr|default} or {expr|expr|…|default}: expr
// is a field name or arithmetic over fields and numbers
// ("tp_size*pp_size"), tried in order, and the default is shown when the
// configuration gives none of them. It
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
		exprs, def := alternatives(tmpl[i+1 : i+j])
		if exprs == nil {
			// Braces that are not a placeholder, as in a JSON value.
			b.WriteString(tmpl[i : i+j+1])
			tmpl = tmpl[i+j+1:]
			continue
		}
		v, ok := "", false
		for _, expr := range exprs {
			if v, ok = eval(strings.TrimSpace(expr), cfg); ok {
				break
			}
		}
		if ok {
			b.WriteString(v)
		} else {
			all = false
			b.WriteString(def)
		}
		tmpl = tmpl[i+j+1:]
	}
	return b.String(), all
}

// alternatives splits a placeholder into its expressions and its default,
// or returns nil when the braces hold something else.
func alternatives(inner string) ([]string, string) {
	parts := strings.Split(inner, "|")
	exprs, def := parts, ""
	if len(parts) > 1 {
		exprs, def = parts[:len(parts)-1], parts[len(parts)-1]
	}
	for _, e := range exprs {
		if !placeholderRE.MatchString(e) {
			return nil, ""
		}
	}
	return exprs, def
}

// placeholderRE is what a placeholder's expression looks like: field
// names, numbers and + - * /.
var placeholderRE = regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_.]*(?:\s*[-+*/]\s*[A-Za-z0-9_.]+)*\s*$`)

// eval computes a placeholder: a field as it would be written on a command
// line, or arithmetic with + - * / left to right: integer arithmetic over
// integers ("tp_size*pp_size"), and over a fraction ("mem_fraction_static-0.05")
// a result rounded to two decimals.
func eval(expr string, cfg Config) (string, bool) {
	if cfg == nil || expr == "" {
		return "", false
	}
	if !strings.ContainsAny(expr, "+-*/") {
		v, ok := cfg.Lookup(expr)
		if !ok || v == nil {
			if field, found := strings.CutSuffix(expr, ".base"); found {
				return baseName(field, cfg)
			}
			return "", false
		}
		return flagText(v), true
	}
	var acc, facc float64
	ints := true
	op := byte('+')
	for len(expr) > 0 {
		k := strings.IndexAny(expr, "+-*/")
		term := expr
		if k >= 0 {
			term = expr[:k]
		}
		n, isInt, ok := numTerm(strings.TrimSpace(term), cfg)
		if !ok {
			return "", false
		}
		ints = ints && isInt
		switch op {
		case '+':
			acc, facc = acc+n, facc+n
		case '-':
			acc, facc = acc-n, facc-n
		case '*':
			acc, facc = acc*n, facc*n
		case '/':
			if n == 0 || ints && isInt && acc != 0 && math.Trunc(acc/n) == 0 {
				// A count divided down to nothing (a TP size of 1
				// halved): no flag takes that.
				return "", false
			}
			acc, facc = math.Trunc(acc/n), facc/n
		}
		if math.Abs(facc) > maxExact || math.IsNaN(facc) {
			return "", false // no command line takes such a number: the arithmetic overflowed
		}
		if k < 0 {
			break
		}
		op, expr = expr[k], expr[k+1:]
	}
	if ints {
		return strconv.FormatInt(int64(acc), 10), true
	}
	return strconv.FormatFloat(math.Round(facc*100)/100, 'f', -1, 64), true
}

// baseName is a path's or repository id's last element, as "field.base"
// asks for it: the directory a download of --model-path Qwen/Qwen3-8B
// goes into is /models/{model_path.base}, /models/Qwen3-8B.
func baseName(field string, cfg Config) (string, bool) {
	v, ok := cfg.Lookup(field)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	switch base := path.Base(strings.ReplaceAll(s, `\`, "/")); base {
	case "/", ".", "..":
		return "", false
	default:
		return base, true
	}
}

// maxExact is the largest magnitude worked arithmetic gives: every integer
// up to it is exact in a float64 and an int64.
const maxExact = 1 << 53

// numTerm is a number or a numeric field, and whether it is an integer.
func numTerm(term string, cfg Config) (float64, bool, bool) {
	if n, err := strconv.ParseInt(term, 10, 64); err == nil {
		return float64(n), true, true
	}
	if f, err := strconv.ParseFloat(term, 64); err == nil {
		return f, false, true
	}
	v, ok := cfg.Lookup(term)
	if !ok {
		return 0, false, false
	}
	if n, ok := pyrepr.IntValue(v); ok {
		if n < 0 {
			// sglang's -1 means "off" or "auto" (chunked_prefill_size=-1):
			// no number to work from.
			return 0, false, false
		}
		return float64(n), true, true
	}
	switch x := v.(type) {
	case float64:
		return x, false, true
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return float64(n), true, true
		}
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f, false, true
		}
	}
	return 0, false, false
}

// Values is what a template draws on: a finding's captures (the values
// its message states: a port, a size) before its server's configuration.
type Values struct {
	Captures map[string]string
	Config   Config
}

// Lookup returns a capture, or the configuration's field.
func (v Values) Lookup(name string) (any, bool) {
	if c, ok := v.Captures[name]; ok && c != "" {
		return c, true
	}
	if v.Config == nil {
		return nil, false
	}
	return v.Config.Lookup(name)
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

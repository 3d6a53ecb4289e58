package matcher

import (
	"fmt"
	"strings"

	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/pyrepr"
)

// ServerConfig is one input's configuration, as its log gave it.
type ServerConfig struct {
	Source string
	Line   int64 // the line that gave it
	Config Config
}

// PDMismatches pairs the prefill and decode servers among the inputs, by
// their disaggregation_mode, and reports each setting they must agree on
// but do not: before the runtime error it leads to, or beside it. Each
// occurrence names the record of that error, and its Config answers
// "prefill.x" and "decode.x" so that the remedy shows both sides' flags.
func (m *Matcher) PDMismatches(servers []ServerConfig) []Occurrence {
	var prefills, decodes []ServerConfig
	for _, s := range servers {
		switch mode, _ := stringField(s.Config, "disaggregation_mode"); mode {
		case "prefill":
			prefills = append(prefills, s)
		case "decode":
			decodes = append(decodes, s)
		}
	}
	var out []Occurrence
	for _, p := range prefills {
		for _, d := range decodes {
			pair := pairConfig{p.Config, d.Config}
			path, _ := stringField(p.Config, "model_path")
			model := launch.ModelFromName(path)
			for i := range launch.PDAgreements {
				st := &launch.PDAgreements[i]
				if !st.Applies(model) {
					continue
				}
				pv, dv, bad := st.Disagree(p.Config, d.Config)
				if !bad {
					continue
				}
				rec := m.pack.Lookup(st.Record)
				if rec == nil {
					continue
				}
				out = append(out, Occurrence{
					Record: rec, ID: rec.ID,
					Message: fmt.Sprintf("prefill (%s) runs %s %v, decode (%s) %s %v",
						p.Source, st.Flag, pv, d.Source, st.Flag, dv),
					Captures: map[string]string{"prefill": fmt.Sprint(pv), "decode": fmt.Sprint(dv)},
					Source:   p.Source, Line: p.Line, EndLine: p.Line,
					Config: pair,
				})
			}
		}
	}
	return out
}

// pairConfig answers "prefill.x" and "decode.x" from the two servers.
type pairConfig struct{ prefill, decode Config }

func (c pairConfig) Lookup(name string) (any, bool) {
	side, field, ok := strings.Cut(name, ".")
	if !ok {
		return c.prefill.Lookup(name)
	}
	if side != "prefill" && side != "decode" {
		return nil, false
	}
	cfg := c.prefill
	if side == "decode" {
		cfg = c.decode
	}
	if st := launch.PDAgreement(field); st != nil {
		return st.Value(cfg)
	}
	v, ok := cfg.Lookup(field)
	return v, ok && v != nil
}

func stringField(c Config, name string) (string, bool) {
	v, ok := c.Lookup(name)
	s, isString := v.(string)
	return s, ok && isString
}

// IntValue is a configuration value as an integer: an int, or a float
// with no fraction ("300.0"). It is pyrepr.IntValue.
func IntValue(v any) (int64, bool) { return pyrepr.IntValue(v) }

// sideConfig is one server's configuration that also answers "prefill.x"
// or "decode.x" when the server is that side of a pair, so that a record's
// two-sided template shows the side the log knows.
type sideConfig struct{ *pyrepr.ServerArgs }

func (c sideConfig) Lookup(name string) (any, bool) {
	side, field, ok := strings.Cut(name, ".")
	if ok && (side == "prefill" || side == "decode") {
		if mode, _ := c.String("disaggregation_mode"); mode != side {
			return nil, false
		}
		return pairConfig{c.ServerArgs, c.ServerArgs}.Lookup(side + "." + field)
	}
	return c.ServerArgs.Lookup(name)
}

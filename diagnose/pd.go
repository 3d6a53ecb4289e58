package diagnose

import (
	"fmt"
	"strings"

	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/pyrepr"
)

// serverConfig is one input's configuration, as its log gave it.
type serverConfig struct {
	Source string
	Line   int64 // the line that gave it
	Config matcher.Config
}

// pdMismatches pairs the prefill and decode servers among the inputs, by
// their disaggregation_mode, and reports each setting they must agree on
// but do not: before the runtime error it leads to, or beside it. Each
// occurrence names the record of that error, and its Config answers
// "prefill.x" and "decode.x" so that the remedy shows both sides' flags.
func pdMismatches(pack *patterns.Pack, servers []serverConfig) []matcher.Occurrence {
	var prefills, decodes []serverConfig
	for _, s := range servers {
		switch mode, _ := stringField(s.Config, "disaggregation_mode"); mode {
		case "prefill":
			prefills = append(prefills, s)
		case "decode":
			decodes = append(decodes, s)
		}
	}
	var out []matcher.Occurrence
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
				rec := pack.Lookup(st.Record)
				if rec == nil {
					continue
				}
				out = append(out, matcher.Occurrence{
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
type pairConfig struct{ prefill, decode matcher.Config }

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

func stringField(c matcher.Config, name string) (string, bool) {
	v, ok := c.Lookup(name)
	s, isString := v.(string)
	return s, ok && isString
}

// isPair reports whether c is the configuration of a prefill/decode pair:
// it says more about a disagreement between the two servers than one
// side's configuration.
func isPair(c matcher.Config) bool {
	_, ok := c.(pairConfig)
	return ok
}

// withSides is the configuration an occurrence is shown with: a server's
// logged configuration also answers "prefill.x" or "decode.x" for its own
// side.
func withSides(c matcher.Config) matcher.Config {
	if c == nil {
		return nil
	}
	if sa, ok := c.(*pyrepr.ServerArgs); ok && sa == nil {
		return c
	}
	if _, ok := c.(pairConfig); ok {
		return c
	}
	return sideConfig{c}
}

// ServerArgs returns the ServerArgs line a finding's configuration was
// read from, or nil: for a configuration of another kind (a launch
// command), or of two servers.
func ServerArgs(c matcher.Config) *pyrepr.ServerArgs {
	switch x := c.(type) {
	case *pyrepr.ServerArgs:
		return x
	case sideConfig:
		return ServerArgs(x.Config)
	}
	if base, ok := matcher.BaseConfig(c); ok {
		return ServerArgs(base)
	}
	return nil
}

// sideConfig is one server's configuration that also answers "prefill.x"
// or "decode.x" when the server is that side of a pair, so that a record's
// two-sided template shows the side the log knows.
type sideConfig struct{ matcher.Config }

func (c sideConfig) Lookup(name string) (any, bool) {
	side, field, ok := strings.Cut(name, ".")
	if ok && (side == "prefill" || side == "decode") {
		if mode, _ := stringField(c.Config, "disaggregation_mode"); mode != side {
			return nil, false
		}
		return pairConfig{c.Config, c.Config}.Lookup(side + "." + field)
	}
	return c.Config.Lookup(name)
}

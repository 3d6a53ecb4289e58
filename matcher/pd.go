package matcher

import (
	"fmt"
	"strings"

	"github.com/tailfix/tailfix/pyrepr"
)

// ServerConfig is one input's configuration, as its log gave it.
type ServerConfig struct {
	Source string
	Line   int64 // the line that gave it
	Config Config
}

// pdSetting is a setting that prefill and decode servers must agree on,
// and the record of the error a disagreement leads to.
type pdSetting struct {
	field, flag, record string
	def                 any    // sglang's default, for a server that does not set it
	family              string // only for this model family, when set
}

var pdSettings = []pdSetting{
	{field: "page_size", flag: "--page-size", record: "sglang/pd-page-size-mismatch", def: int64(1)},
	{field: "kv_cache_dtype", flag: "--kv-cache-dtype", record: "sglang/pd-kv-cache-dtype-mismatch", def: "auto"},
	{field: "disaggregation_transfer_backend", flag: "--disaggregation-transfer-backend", record: "sglang/pd-transfer-backend-mismatch", def: "mooncake"},
	{field: "attention_tp_size", flag: "--tp-size", record: "sglang/pd-minimax-sparse-hetero-tp", family: "minimax"},
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
			model, _ := stringField(p.Config, "model_path")
			for _, st := range pdSettings {
				if st.family != "" && !strings.Contains(strings.ToLower(model), st.family) {
					continue
				}
				pv, dv := pair.field("prefill", st), pair.field("decode", st)
				if pv == nil || dv == nil || fmt.Sprint(pv) == fmt.Sprint(dv) {
					continue
				}
				rec := m.pack.Lookup(st.record)
				if rec == nil {
					continue
				}
				out = append(out, Occurrence{
					Record: rec, ID: rec.ID,
					Message: fmt.Sprintf("prefill (%s) runs %s %v, decode (%s) %s %v",
						p.Source, st.flag, pv, d.Source, st.flag, dv),
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
	st := pdSetting{field: field}
	for _, s := range pdSettings {
		if s.field == field {
			st = s
		}
	}
	v := c.field(side, st)
	return v, v != nil
}

// field is one side's value of a setting, with sglang's default when the
// server leaves it unset, and attention TP worked out from tp and dp.
func (c pairConfig) field(side string, st pdSetting) any {
	cfg := c.prefill
	if side == "decode" {
		cfg = c.decode
	}
	if st.field == "attention_tp_size" {
		tp, ok := intField(cfg, "tp_size")
		if !ok {
			return nil
		}
		if dp, ok := intField(cfg, "dp_size"); ok && dp > 1 {
			if on, _ := cfg.Lookup("enable_dp_attention"); on == true {
				return tp / dp
			}
		}
		return tp
	}
	v, ok := cfg.Lookup(st.field)
	if !ok || v == nil {
		return st.def
	}
	return v
}

func stringField(c Config, name string) (string, bool) {
	v, ok := c.Lookup(name)
	s, isString := v.(string)
	return s, ok && isString
}

func intField(c Config, name string) (int64, bool) {
	v, ok := c.Lookup(name)
	if !ok {
		return 0, false
	}
	return pyrepr.IntValue(v)
}

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

package diagnose

import (
	"testing"

	"github.com/tailfix/tailfix/patterns"
)

type mapConfig map[string]any

func (m mapConfig) Lookup(name string) (any, bool) { v, ok := m[name]; return v, ok }

// Prefill and decode servers are paired by their mode, and each setting
// they must agree on but do not is reported with both sides' values.
func TestPDMismatches(t *testing.T) {
	pack, err := patterns.Curated()
	if err != nil {
		t.Fatal(err)
	}
	prefill := mapConfig{"disaggregation_mode": "prefill", "model_path": "MiniMaxAI/MiniMax-M3", "page_size": int64(64),
		"kv_cache_dtype": "fp8_e4m3", "tp_size": int64(8), "disaggregation_transfer_backend": "mooncake"}
	decode := mapConfig{"disaggregation_mode": "decode", "model_path": "MiniMaxAI/MiniMax-M3", "page_size": nil,
		"kv_cache_dtype": "fp8_e4m3", "tp_size": int64(8), "dp_size": int64(2), "enable_dp_attention": true,
		"disaggregation_transfer_backend": "mooncake"}
	other := mapConfig{"disaggregation_mode": "null", "page_size": int64(16)}
	got := pdMismatches(pack, []serverConfig{{"p.log", 3, prefill}, {"d.log", 4, decode}, {"x.log", 1, other}})
	want := map[string]string{
		"sglang/pd-page-size-mismatch":       "prefill (p.log) runs --page-size 64, decode (d.log) --page-size 1",
		"sglang/pd-minimax-sparse-hetero-tp": "prefill (p.log) runs --tp-size 8, decode (d.log) --tp-size 4",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d mismatches: %+v", len(got), got)
	}
	for _, o := range got {
		if want[o.ID] != o.Message || o.Source != "p.log" || o.Line != 3 {
			t.Errorf("%s: %q at %s:%d", o.ID, o.Message, o.Source, o.Line)
		}
		if v, _ := o.Config.Lookup("decode.page_size"); o.ID == "sglang/pd-page-size-mismatch" && v != int64(1) {
			t.Errorf("decode.page_size = %v, want the default 1", v)
		}
	}
	// Servers that agree, or a model outside the family, give nothing.
	decode["page_size"], decode["enable_dp_attention"] = int64(64), false
	if got := pdMismatches(pack, []serverConfig{{"p.log", 3, prefill}, {"d.log", 4, decode}}); len(got) != 0 {
		t.Errorf("agreeing servers: %+v", got)
	}
}

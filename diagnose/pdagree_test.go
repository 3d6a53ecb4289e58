package diagnose

import (
	"fmt"
	"maps"
	"testing"

	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
)

// TestPDAgreementsAgree runs every setting of launch.PDAgreements through
// both of its readers: tailfix check on a prefill and a decode command,
// and PDMismatches on the configurations those servers log. Both must
// find the same settings in disagreement, with the same values.
func TestPDAgreementsAgree(t *testing.T) {
	pack, err := patterns.Curated()
	if err != nil {
		t.Fatal(err)
	}
	table, err := patterns.Flags()
	if err != nil {
		t.Fatal(err)
	}
	const (
		qwen    = "Qwen/Qwen3-8B"
		minimax = "MiniMaxAI/MiniMax-M3"
	)
	type side struct {
		flags  string    // after --model-path and --disaggregation-mode
		logged mapConfig // server_args as the server logs them
	}
	tests := []struct {
		name            string
		model           string
		prefill, decode side
		want            map[string][2]string // record: prefill and decode values
	}{
		{"page size given on one side", qwen,
			side{"--page-size 64", mapConfig{"page_size": int64(64)}},
			side{"", mapConfig{"page_size": nil}},
			map[string][2]string{"sglang/pd-page-size-mismatch": {"64", "1"}}},
		{"page size logged as a float", qwen,
			side{"--page-size 16", mapConfig{"page_size": 16.0}},
			side{"--page-size 16", mapConfig{"page_size": int64(16)}},
			nil},
		{"kv cache dtype against the default", qwen,
			side{"--kv-cache-dtype fp8_e4m3", mapConfig{"kv_cache_dtype": "fp8_e4m3"}},
			side{"", mapConfig{}},
			map[string][2]string{"sglang/pd-kv-cache-dtype-mismatch": {"fp8_e4m3", "auto"}}},
		{"mooncake_tcp is mooncake", qwen,
			side{"--disaggregation-transfer-backend mooncake_tcp", mapConfig{"disaggregation_transfer_backend": "mooncake"}},
			side{"--disaggregation-transfer-backend mooncake", mapConfig{"disaggregation_transfer_backend": "mooncake"}},
			nil},
		{"transfer backends differ", qwen,
			side{"--disaggregation-transfer-backend nixl", mapConfig{"disaggregation_transfer_backend": "nixl"}},
			// sglang logs "mooncake" for mooncake_tcp; should a log keep
			// the spelling, it is still mooncake.
			side{"--disaggregation-transfer-backend mooncake_tcp", mapConfig{"disaggregation_transfer_backend": "mooncake_tcp"}},
			map[string][2]string{"sglang/pd-transfer-backend-mismatch": {"nixl", "mooncake"}}},
		{"attention TP divided by DP attention", minimax,
			side{"--tp-size 8", mapConfig{"tp_size": int64(8), "dp_size": int64(1), "enable_dp_attention": false}},
			side{"--tp-size 8 --dp-size 2 --enable-dp-attention", mapConfig{"tp_size": int64(8), "dp_size": int64(2), "enable_dp_attention": true}},
			map[string][2]string{"sglang/pd-minimax-sparse-hetero-tp": {"8", "4"}}},
		{"dp without DP attention keeps attention TP", minimax,
			side{"--tp-size 8", mapConfig{"tp_size": int64(8)}},
			side{"--tp-size 8 --dp-size 2", mapConfig{"tp_size": int64(8), "dp_size": int64(2), "enable_dp_attention": false}},
			nil},
		{"attention TP divided by attention CP", minimax,
			side{"--tp-size 8", mapConfig{"tp_size": int64(8), "attn_cp_size": int64(1)}},
			side{"--tp-size 8 --attn-cp-size 2", mapConfig{"tp_size": int64(8), "attn_cp_size": int64(2)}},
			map[string][2]string{"sglang/pd-minimax-sparse-hetero-tp": {"8", "4"}}},
		{"attention CP and DP attention make up for a larger tp", minimax,
			side{"--tp-size 4", mapConfig{"tp_size": int64(4)}},
			side{"--tp-size 16 --dp-size 2 --enable-dp-attention --attn-cp-size 2",
				mapConfig{"tp_size": int64(16), "dp_size": int64(2), "enable_dp_attention": true, "attn_cp_size": int64(2)}},
			nil},
		{"attention TP of a model outside the family", qwen,
			side{"--tp-size 8", mapConfig{"tp_size": int64(8)}},
			side{"--tp-size 4", mapConfig{"tp_size": int64(4)}},
			nil},
		{"attention TP of a dense MiniMax", "MiniMaxAI/MiniMax-M2.5",
			side{"--tp-size 8", mapConfig{"tp_size": int64(8)}},
			side{"--tp-size 4", mapConfig{"tp_size": int64(4)}},
			nil},
		{"every setting at once", minimax,
			side{"--page-size 32 --kv-cache-dtype bf16 --disaggregation-transfer-backend mori --tp-size 2",
				mapConfig{"page_size": int64(32), "kv_cache_dtype": "bf16", "disaggregation_transfer_backend": "mori", "tp_size": int64(2)}},
			side{"--tp-size 4", mapConfig{"page_size": int64(1), "kv_cache_dtype": "auto", "tp_size": int64(4)}},
			map[string][2]string{
				"sglang/pd-page-size-mismatch":        {"32", "1"},
				"sglang/pd-kv-cache-dtype-mismatch":   {"bf16", "auto"},
				"sglang/pd-transfer-backend-mismatch": {"mori", "mooncake"},
				"sglang/pd-minimax-sparse-hetero-tp":  {"2", "4"},
			}},
	}
	tested := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			command := func(mode string, s side) *launch.Command {
				words, err := launch.Split("sglang serve --model-path " + tt.model + " --disaggregation-mode " + mode + " " + s.flags)
				if err != nil {
					t.Fatal(err)
				}
				c, err := launch.Parse(words, mode+" command", table)
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			logged := func(mode string, s side) mapConfig {
				cfg := maps.Clone(s.logged)
				cfg["model_path"], cfg["disaggregation_mode"] = tt.model, mode
				return cfg
			}
			pc, dc := command("prefill", tt.prefill), command("decode", tt.decode)

			fromCheck := map[string][2]string{}
			for _, is := range launch.CheckPair(pc, dc, launch.Options{}) {
				for _, st := range launch.PDAgreements {
					if is.ID != st.Record {
						continue
					}
					pv, _ := st.Value(pc)
					dv, _ := st.Value(dc)
					fromCheck[is.ID] = [2]string{fmt.Sprint(pv), fmt.Sprint(dv)}
				}
			}
			fromLogs := map[string][2]string{}
			servers := []serverConfig{{"p.log", 1, logged("prefill", tt.prefill)}, {"d.log", 1, logged("decode", tt.decode)}}
			for _, o := range pdMismatches(pack, servers) {
				fromLogs[o.ID] = [2]string{o.Captures["prefill"], o.Captures["decode"]}
			}

			if !maps.Equal(fromCheck, fromLogs) {
				t.Errorf("check finds %v, the logs %v", fromCheck, fromLogs)
			}
			if !maps.Equal(fromLogs, tt.want) && !(len(fromLogs) == 0 && len(tt.want) == 0) {
				t.Errorf("got %v, want %v", fromLogs, tt.want)
			}
			for id := range tt.want {
				tested[id] = true
			}
		})
	}
	for _, st := range launch.PDAgreements {
		if !tested[st.Record] {
			t.Errorf("no case finds %s (%s) in disagreement", st.Field, st.Record)
		}
	}
}

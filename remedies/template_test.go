package remedies

import "testing"

type mapConfig map[string]any

func (m mapConfig) Lookup(name string) (any, bool) { v, ok := m[name]; return v, ok }

func TestRender(t *testing.T) {
	cfg := mapConfig{"tp_size": int64(4), "pp_size": int64(2), "disaggregation_mode": "prefill",
		"mem_fraction_static": 0.88, "cuda_graph_bs": []any{int64(1), int64(2)}, "nothing": nil}
	tests := []struct {
		tmpl string
		cfg  Config
		want string
		all  bool
	}{
		{"--pp-size {pp_size|2}", cfg, "--pp-size 2", true},
		{"--tp-size {tp_size*pp_size|8} --pp-size 1", cfg, "--tp-size 8 --pp-size 1", true},
		{"--tp-size {tp_size*pp_size|8} --pp-size 1", nil, "--tp-size 8 --pp-size 1", false},
		{"--disaggregation-mode {disaggregation_mode|prefill}", cfg, "--disaggregation-mode prefill", true},
		{"--mem-fraction-static {mem_fraction_static|0.9}", cfg, "--mem-fraction-static 0.88", true},
		{"--cuda-graph-bs {cuda_graph_bs|1 2 4}", cfg, "--cuda-graph-bs 1 2", true},
		{"--x {missing|7}", cfg, "--x 7", false},
		{"--x {nothing|7}", cfg, "--x 7", false},
		{"--x {tp_size/pp_size-1|1}", cfg, "--x 1", true},
		{"--x {tp_size/0|3}", cfg, "--x 3", false},
		{"--tp-size {tp_size/8|2}", cfg, "--tp-size 2", false}, // 4/8 is no TP size
		{"--x {tp_size*1000000000000*1000000000000|3}", cfg, "--x 3", false},
		{"--tp-size 8", cfg, "--tp-size 8", false},
		{"unclosed {tp_size", cfg, "unclosed {tp_size", true},
		{`--ib-device '{"0": "mlx5_0"}' --tp-size {tp_size|8}`, cfg, `--ib-device '{"0": "mlx5_0"}' --tp-size 4`, true},
		{`{"max_tokens": 32768}`, cfg, `{"max_tokens": 32768}`, true},
		// A fraction: arithmetic rounded to two decimals.
		{"--mem-fraction-static {mem_fraction_static-0.05|0.85}", cfg, "--mem-fraction-static 0.83", true},
		{"--mem-fraction-static {mem_fraction_static+0.05|0.85}", cfg, "--mem-fraction-static 0.93", true},
		{"--x {tp_size*0.5|2}", cfg, "--x 2", true},
		// -1 is sglang's "off": nothing to work from, so the example shows.
		{"--chunked-prefill-size {chunked_prefill_size/2|4096}", mapConfig{"chunked_prefill_size": int64(-1)}, "--chunked-prefill-size 4096", false},
		{"--chunked-prefill-size {chunked_prefill_size|8192}", mapConfig{"chunked_prefill_size": int64(-1)}, "--chunked-prefill-size -1", true},
		// The message's values come before the configuration's.
		{"--port {port+10|30010}", Values{Captures: map[string]string{"port": "31000"}, Config: mapConfig{"port": int64(30000)}}, "--port 31010", true},
		{"--port {port+10|30010}", Values{Config: mapConfig{"port": int64(30000)}}, "--port 30010", true},
		{"--port {port|30000}", Values{Captures: map[string]string{"port": ""}}, "--port 30000", false},
		// A path's or repository id's last element.
		{"--local-dir /models/{model_path.base|M}", mapConfig{"model_path": "Qwen/Qwen3-32B"}, "--local-dir /models/Qwen3-32B", true},
		{"--local-dir /models/{model_path.base|M}", mapConfig{"model_path": "/data/ckpt/my-model/"}, "--local-dir /models/my-model", true},
		{"--local-dir /models/{model_path.base|M}", mapConfig{"model_path": "llama-3"}, "--local-dir /models/llama-3", true},
		{"--local-dir /models/{model_path.base|M}", mapConfig{"model_path": "/"}, "--local-dir /models/M", false},
		{"--local-dir /models/{model_path.base|M}", mapConfig{"model_path": `D:\ckpt\qwen`}, "--local-dir /models/qwen", true},
		{"--local-dir /models/{model_path.base|M}", mapConfig{"model_path": int64(3)}, "--local-dir /models/M", false},
		{"--local-dir /models/{model_path.base|M}", cfg, "--local-dir /models/M", false},
	}
	for _, tt := range tests {
		got, all := Render(tt.tmpl, tt.cfg)
		if got != tt.want || all != tt.all {
			t.Errorf("Render(%q) = %q, %v; want %q, %v", tt.tmpl, got, all, tt.want, tt.all)
		}
	}
}

func TestRenderAlternatives(t *testing.T) {
	cfg := mapConfig{"mem_fraction_static": 0.88, "suggested": 0.853}
	tests := []struct {
		tmpl string
		want string
		all  bool
	}{
		{"{missing|mem_fraction_static-0.05|0.85}", "0.83", true},
		{"{mem_fraction_static-0.05|missing|0.85}", "0.83", true},
		{"{missing|other|0.85}", "0.85", false},
		{"{suggested+0.03|mem_fraction_static|0.9}", "0.88", true},
		{"{missing|}", "", false},
		{"{a|b c|d}", "{a|b c|d}", true},
	}
	for _, tt := range tests {
		got, all := Render(tt.tmpl, cfg)
		if got != tt.want || all != tt.all {
			t.Errorf("Render(%q) = %q, %v; want %q, %v", tt.tmpl, got, all, tt.want, tt.all)
		}
	}
}

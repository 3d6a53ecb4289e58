package remedies

import "testing"

func TestComponentOf(t *testing.T) {
	tests := []struct{ frame, feature string }{
		{`File "/usr/local/lib/python3.12/dist-packages/sglang/srt/speculative/eagle_worker.py", line 310, in forward_draft_extend`, "speculative decoding"},
		{`File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/hiradix_cache.py", line 412, in writing_check`, "hierarchical cache (HiCache)"},
		{`File "/sgl-workspace/sglang/python/sglang/srt/mem_cache/radix_cache.py", line 412, in evict`, ""},
		{`File "/opt/sglang/srt/constrained/xgrammar_backend.py", line 88, in dispatch_json`, "structured output (xgrammar grammar backend)"},
		{`File "/x/sglang/srt/disaggregation/mooncake/conn.py", line 675, in transfer_worker`, "PD disaggregation's mooncake transfer backend"},
		{`File "/x/sglang/srt/disaggregation/prefill.py", line 675, in process`, "PD disaggregation"},
		{`File "/x/sglang/srt/layers/attention/flashinfer_backend.py", line 1, in init_forward_metadata`, "flashinfer attention backend"},
		{`File "/x/sglang/srt/layers/quantization/awq.py", line 1, in apply`, "awq quantization"},
		{`File "/x/sglang/srt/models/deepseek_v2.py", line 1, in load_weights`, "deepseek_v2 model implementation"},
		{`File "/x/sglang/srt/model_executor/cuda_graph_runner.py", line 1, in capture`, "CUDA graph capture"},
		{`File "/x/sglang/srt/managers/scheduler.py", line 1, in event_loop`, ""},
		{`File "/x/vllm/model_executor/models/llama.py", line 1, in forward`, ""},
		{"not a frame", ""},
	}
	for _, tt := range tests {
		feature, isolate := componentOf(tt.frame)
		if feature != tt.feature || (feature != "") != (isolate != "") {
			t.Errorf("componentOf(%q) = %q, %q; want %q", tt.frame, feature, isolate, tt.feature)
		}
	}
}

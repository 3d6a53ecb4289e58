package remedies

import (
	"strings"
	"testing"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/patterns"
)

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

// A record tagged isolate gains the step that runs the server without the
// part of sglang its traceback came through; other records do not, and
// neither does one whose traceback names no known part.
func TestIsolateTagAddsTheComponentStep(t *testing.T) {
	const spec = `  File "/sgl-workspace/sglang/python/sglang/srt/speculative/eagle_worker.py", line 312, in verify`
	tests := []struct {
		name  string
		tags  []string
		own   string
		extra bool
	}{
		{"tagged, through speculative decoding", []string{patterns.TagIsolate}, spec, true},
		{"not tagged", nil, spec, false},
		{"tagged, no frame in sglang", []string{patterns.TagIsolate}, "", false},
		{"tagged, a part with no isolating run", []string{patterns.TagIsolate},
			`  File "/x/sglang/srt/managers/scheduler.py", line 1, in run`, false},
	}
	for _, tt := range tests {
		rec := &patterns.Record{ID: "t/x", Title: "t", Severity: patterns.SeverityError, Tags: tt.tags,
			Fix: patterns.Fix{Steps: []string{"Check the install"}}}
		r := For(&diagnose.Finding{Record: rec, Line: 3, OwnFrame: tt.own})
		got := len(r.Steps) == 2 && strings.Contains(r.Steps[1], "--speculative-algorithm")
		if got != tt.extra || len(r.Steps) != 1 && !got {
			t.Errorf("%s: steps %q; want the component step: %v", tt.name, r.Steps, tt.extra)
		}
	}
}

package diagnose

import (
	"strings"
	"testing"
)

// Python's own errors raised in sglang's code are known by their class
// and by the innermost frame being sglang's: one raised in a library that
// sglang called, or one whose message a record knows (a generated raise
// site, a specific hand-written record), is not taken for them.
func TestInternalErrorsAreKnownWhereRaised(t *testing.T) {
	m := builtinMatcher(t)
	const head = "[2025-12-05 09:19:39 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
		"  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2900, in run_scheduler_process\n" +
		"    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank)\n"
	frame := func(path, fn string) string {
		return "  File \"" + path + "\", line 98, in " + fn + "\n    x = y\n"
	}
	const own = "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py"
	tests := []struct {
		name, log, want string
	}{
		{"attribute error raised in sglang",
			head + frame(own, "capture") + "AttributeError: 'CustomAllreduce' object has no attribute 'original_disabled'\n",
			"sglang/internal-attribute-error"},
		{"None compared in sglang",
			head + frame(own, "capture") + "TypeError: '<=' not supported between instances of 'NoneType' and 'int'\n",
			"sglang/internal-type-error"},
		{"index error in sglang",
			head + frame(own, "capture") + "IndexError: list index out of range\n",
			"sglang/internal-index-error"},
		{"key error in sglang",
			head + frame(own, "capture") + "KeyError: 'rope_type'\n",
			"sglang/internal-key-error"},
		{"bare assert in sglang",
			head + frame(own, "capture") + "AssertionError\n",
			"sglang/internal-assert-failed"},
		{"raised in a library sglang called",
			head + frame(own, "capture") +
				frame("/usr/local/lib/python3.12/dist-packages/transformers/configuration_utils.py", "__getattribute__") +
				"AttributeError: 'LlamaConfig' object has no attribute 'rope_theta'\n",
			"!sglang/internal-attribute-error"},
		{"raised in a library sglang called, no record of it",
			head + frame(own, "capture") +
				frame("/usr/local/lib/python3.12/dist-packages/flashinfer/prefill.py", "plan") +
				"AttributeError: 'NoneType' object has no attribute 'shape'\n",
			"unknown/traceback"},
		{"a module's attribute is a dependency's version",
			head + frame(own, "capture") + "AttributeError: module 'deep_gemm' has no attribute 'get_compile_mode'\n",
			"python/dependency-api-mismatch"},
		{"a rename halfway has its own record",
			head + frame(own, "capture") + "AttributeError: 'ModelConfig' object has no attribute 'hf_text_cfg'. Did you mean: 'hf_text_config'?\n",
			"!sglang/internal-attribute-error"},
		{"a call's signature has its own record",
			head + frame(own, "capture") + "TypeError: forward() got an unexpected keyword argument 'pp_proxy'\n",
			"sglang/internal-call-signature-mismatch"},
		{"an assert whose message a generated record knows",
			head + frame("/sgl-workspace/sglang/python/sglang/srt/layers/attention/dsa/dsa_indexer.py", "forward") +
				"AssertionError: Internal error: piecewise CUDA graph is only supported on CUDA\n",
			"!sglang/internal-assert-failed"},
		{"a bare assert whose site a generated record knows",
			head + "  File \"/sgl-workspace/sglang/python/sglang/srt/batch_overlap/operations.py\", line 134, in next\n" +
				"    assert not self.done\nAssertionError\n",
			"sglang-src/srt.batch_overlap.operations/stageexecutor-next-assert"},
		{"a shape that does not fit, in torch under sglang's model code",
			head + frame("/sgl-workspace/sglang/python/sglang/srt/models/gemma3_mm.py", "get_image_feature") +
				frame("/usr/local/lib/python3.12/dist-packages/torch/nn/modules/linear.py", "forward") +
				"RuntimeError: mat1 and mat2 shapes cannot be multiplied (2520x256 and 768x1152)\n",
			"torch/tensor-shape-mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := scanText(t, m, tt.log).Findings()
			if len(fs) == 0 {
				t.Fatal("no finding")
			}
			got := fs[0].ID
			if not, ok := strings.CutPrefix(tt.want, "!"); ok {
				if got == not {
					t.Errorf("first finding %s, want another", got)
				}
				return
			}
			if got != tt.want {
				t.Errorf("first finding %s, want %s", got, tt.want)
			}
		})
	}
}

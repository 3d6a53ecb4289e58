package launch

import (
	"slices"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/patterns"
)

// parseIDs are the ids of problems parsing finds, which the rule tests'
// commands must not have.
var parseIDs = []string{idUnrecognized, idAmbiguous, idInvalidChoice, idInvalidValue, idRepeated, idDeprecated, idRequired}

// checkLine checks a command line, failing on parse problems it did not
// expect.
func checkLine(t *testing.T, line string) []Issue {
	t.Helper()
	issues := Check(parse(t, line), Options{})
	for _, is := range issues {
		if slices.Contains(parseIDs, is.ID) {
			t.Fatalf("%s: parse problem %s: %s", line, is.ID, is.Message)
		}
	}
	return issues
}

func TestRules(t *testing.T) {
	const (
		serve   = "sglang serve --model-path Qwen/Qwen3-8B "
		sala    = "sglang serve --model-path openbmb/MiniCPM-SALA "
		minimax = "python -m sglang.launch_server --model-path /models/MiniMax-M3-Sparse "
	)
	indexValue := writeConfig(t, "m3", `{"architectures": ["MiniMaxM3SparseForCausalLM"],
		"sparse_attention_config": {"sparse_attention_freq": [0, 1], "sparse_disable_index_value": [0, 0]}}`)
	kOnly := writeConfig(t, "m3", `{"architectures": ["MiniMaxM3SparseForCausalLM"],
		"sparse_attention_config": {"sparse_attention_freq": [0, 1], "sparse_disable_index_value": [0, 1]}}`)
	tests := []struct {
		id  string
		yes []string // commands that must report id
		no  []string // commands that must not
	}{
		{"sglang/pd-minimax-sparse-pp",
			[]string{minimax + "--disaggregation-mode prefill --tp-size 4 --pp-size 2",
				"sglang serve --model-path " + kOnly + " --disaggregation-mode prefill --pp-size 2"},
			[]string{minimax + "--disaggregation-mode decode --tp-size 4 --pp-size 2",
				minimax + "--disaggregation-mode prefill --tp-size 8 --pp-size 1",
				minimax + "--tp-size 4 --pp-size 2",
				"sglang serve --model-path MiniMaxAI/MiniMax-M2.5 --disaggregation-mode prefill --pp-size 2"}},
		{"sglang/pd-minimax-sparse-index-value",
			[]string{"sglang serve --model-path " + indexValue + " --disaggregation-mode decode"},
			[]string{"sglang serve --model-path " + indexValue, "sglang serve --model-path " + kOnly + " --disaggregation-mode decode",
				minimax + "--disaggregation-mode decode"}},
		{"sglang/minicpm-sparse-pd",
			[]string{sala + "--disaggregation-mode prefill",
				sala + "--disaggregation-mode decode --attention-backend fa3 --decode-attention-backend minicpm_flashattn",
				sala + "--disaggregation-mode decode --prefill-attention-backend minicpm_flashinfer"},
			[]string{sala + "--disaggregation-mode prefill --attention-backend fa3",
				sala + "--disaggregation-mode prefill --decode-attention-backend flashinfer",
				"SGLANG_MINICPM_FORCE_DENSE=1 " + sala + "--disaggregation-mode prefill",
				sala, sala + "--attention-backend minicpm_flashattn",
				"sglang serve --model-path openbmb/MiniCPM4-8B --disaggregation-mode prefill"}},
		{"sglang/model-path-is-a-file",
			[]string{"python -m sglang.launch_server --model-path ./out/full_sft_768.pth --port 8998",
				"sglang serve --model-path /models/Qwen3-8B/model.safetensors",
				"sglang serve --model-path /ckpt/step-1000/PYTORCH_MODEL.BIN"},
			[]string{serve, "sglang serve --model-path /models/Qwen3-8B", "sglang serve --model-path /models/q/qwen3-8b-q4_k_m.gguf",
				"sglang serve --model-path /models/pth-exports/llama"}},
		{"sglang/minicpm-dp-attention",
			[]string{sala + "--tp 4 --dp 4 --enable-dp-attention", "sglang serve --model-path openbmb/MiniCPM4-8B --enable-dp-attention"},
			[]string{serve + "--tp 4 --dp 4 --enable-dp-attention", sala + "--tp 4 --dp 4"}},
		{"sglang/minicpm-sala-hicache",
			[]string{sala + "--enable-hierarchical-cache --hicache-ratio 2"},
			[]string{"sglang serve --model-path openbmb/MiniCPM4-8B --enable-hierarchical-cache", sala}},
		{"sglang/kv-cache-dtype-unsupported",
			[]string{"sglang serve --model-path deepseek-ai/DeepSeek-V3.2 --kv-cache-dtype fp8_e5m2"},
			[]string{"sglang serve --model-path deepseek-ai/DeepSeek-V3.2 --kv-cache-dtype fp8_e4m3",
				"sglang serve --model-path deepseek-ai/DeepSeek-V3.2 --kv-cache-dtype bf16", serve + "--kv-cache-dtype fp8_e5m2"}},
		{"sglang/model-requires-attention-backend",
			[]string{"sglang serve --model-path nvidia/Nemotron-H-8B-Base-8K --attention-backend triton"},
			[]string{"sglang serve --model-path nvidia/Nemotron-H-8B-Base-8K --attention-backend flashinfer", serve + "--attention-backend triton"}},
		{"sglang/tp-not-divisible-by-dp",
			[]string{serve + "--tp 6 --dp 4 --enable-dp-attention", serve + "--tp 8 --attn-cp-size 3"},
			[]string{serve + "--tp 8 --dp 4 --enable-dp-attention", serve + "--tp 6 --dp 4", serve + "--tp 8 --attn-cp-size 2"}},
		{"sglang/tp-not-divisible-by-nnodes",
			[]string{serve + "--tp 8 --nnodes 3"},
			[]string{serve + "--tp 8 --nnodes 2", serve + "--tp 4 --pp-size 3 --nnodes 3"}},
		{"sglang/multinode-dp-needs-dp-attention",
			[]string{serve + "--tp 16 --dp 2 --nnodes 2"},
			[]string{serve + "--tp 16 --dp 2 --nnodes 2 --enable-dp-attention", serve + "--tp 8 --dp 2"}},
		{"sglang/chunked-prefill-not-multiple-of-page-size",
			[]string{serve + "--page-size 64 --chunked-prefill-size 6000", serve + "--disaggregation-mode prefill --page-size 128 --chunked-prefill-size 4000"},
			[]string{serve + "--page-size 64 --chunked-prefill-size 8192", serve + "--page-size 64 --chunked-prefill-size 6000 --disaggregation-mode decode",
				serve + "--chunked-prefill-size 6000", serve + "--page-size 64 --chunked-prefill-size -1"}},
		{"sglang/pp-incompatible-options",
			[]string{serve + "--tp 4 --pp-size 2 --speculative-algorithm EAGLE"},
			[]string{serve + "--tp 4 --pp-size 2", serve + "--tp 8 --speculative-algorithm EAGLE"}},
		{"sglang/spec-with-mixed-chunk",
			[]string{serve + "--speculative-algorithm EAGLE --enable-mixed-chunk"},
			[]string{serve + "--enable-mixed-chunk", serve + "--speculative-algorithm None --enable-mixed-chunk"}},
		{"sglang/spec-topk-unsupported",
			[]string{serve + "--speculative-algorithm EAGLE --speculative-eagle-topk 4 --page-size 64 --attention-backend triton",
				serve + "--speculative-algorithm EAGLE --speculative-eagle-topk 4 --attention-backend trtllm_mha",
				serve + "--speculative-algorithm NGRAM --speculative-eagle-topk 4 --page-size 16 --attention-backend fa3"},
			[]string{serve + "--speculative-algorithm EAGLE --speculative-eagle-topk 4 --page-size 64 --attention-backend fa3",
				serve + "--speculative-algorithm EAGLE --speculative-eagle-topk 1 --page-size 64 --attention-backend triton",
				serve + "--speculative-algorithm EAGLE --speculative-eagle-topk 4 --page-size 64"}},
		{"sglang/spec-no-dp-attention",
			[]string{serve + "--tp 8 --dp 8 --enable-dp-attention --speculative-algorithm NGRAM",
				serve + "--tp 8 --dp 8 --enable-dp-attention --speculative-algorithm standalone"},
			[]string{serve + "--tp 8 --dp 8 --enable-dp-attention --speculative-algorithm EAGLE3", serve + "--speculative-algorithm NGRAM"}},
		{"sglang/requires-dp-attention",
			[]string{serve + "--tp 8 --enable-dp-lm-head", serve + "--tp 8 --moe-a2a-backend flashinfer",
				serve + "--tp 8 --dp 4 --enable-dp-attention --moe-a2a-backend flashinfer", serve + "--tp 8 --enable-two-batch-overlap",
				serve + "--tp 8 --enable-dp-attention --moe-a2a-backend pplx"},
			[]string{serve + "--tp 8 --dp 8 --enable-dp-attention --enable-dp-lm-head", serve + "--tp 8 --enable-two-batch-overlap --moe-a2a-backend deepep",
				serve + "--tp 8 --dp 8 --enable-dp-attention --moe-a2a-backend flashinfer", serve + "--tp 8 --no-enable-tp-lm-head-all-to-all"}},
		{"sglang/hicache-without-radix-cache",
			[]string{serve + "--enable-hierarchical-cache --disable-radix-cache"},
			[]string{serve + "--enable-hierarchical-cache", serve + "--disable-radix-cache"}},
		{"sglang/served-model-name-colon",
			[]string{serve + "--served-model-name qwen3:8b"},
			[]string{serve + "--served-model-name qwen3-8b"}},
		{"sglang/gpus-not-visible",
			[]string{"CUDA_VISIBLE_DEVICES=0,1 " + serve + "--tp 4", "CUDA_VISIBLE_DEVICES=0,1,2,3 " + serve + "--tp 2 --dp 4",
				"CUDA_VISIBLE_DEVICES=0,1,2,3 " + serve + "--tp 2 --base-gpu-id 3", "CUDA_VISIBLE_DEVICES= " + serve},
			[]string{"CUDA_VISIBLE_DEVICES=0,1,2,3 " + serve + "--tp 4", "CUDA_VISIBLE_DEVICES=4,5,6,7 " + serve + "--tp 4 --dp 4 --enable-dp-attention",
				"CUDA_VISIBLE_DEVICES=0,1,2,3 " + serve + "--tp 8 --nnodes 2", serve + "--tp 8"}},
		{"sglang/pd-mode-option-conflict",
			[]string{serve + "--disaggregation-mode decode --enable-prefill-cp", serve + "--disaggregation-decode-enable-offload-kvcache",
				serve + "--disaggregation-mode prefill --disaggregation-decode-retraction-backup host_pool",
				serve + "--disaggregation-mode prefill --language-model-only", serve + "--disaggregation-mode decode --mamba-radix-cache-strategy extra_buffer_lazy",
				serve + "--disaggregation-mode decode --enable-dsa-cache-layer-split", serve + "--disaggregation-mode decode --dwdp-size 2"},
			[]string{serve + "--disaggregation-mode prefill --enable-prefill-cp", serve + "--disaggregation-mode decode --disaggregation-decode-enable-offload-kvcache",
				serve + "--language-model-only", serve + "--mamba-radix-cache-strategy extra_buffer_lazy"}},
		{"sglang/pd-decode-radix-cache-conflict",
			[]string{serve + "--disaggregation-mode decode --disaggregation-decode-enable-radix-cache --speculative-algorithm EAGLE",
				serve + "--disaggregation-mode decode --disaggregation-decode-enable-radix-cache --enable-hisparse",
				serve + "--disaggregation-mode decode --dcp-size 2 --enable-hierarchical-cache"},
			[]string{serve + "--disaggregation-mode decode --disaggregation-decode-enable-radix-cache",
				serve + "--disaggregation-mode prefill --disaggregation-decode-enable-radix-cache --speculative-algorithm EAGLE"}},
		{"sglang/pd-backend-feature-unsupported",
			[]string{serve + "--disaggregation-mode prefill --disaggregation-transfer-backend fake",
				serve + "--disaggregation-mode decode --dcp-size 2 --disaggregation-transfer-backend mori",
				serve + "--disaggregation-mode prefill --enable-unified-memory --disaggregation-transfer-backend nixl",
				"SGLANG_DISAGG_STAGING_BUFFER=1 " + serve + "--disaggregation-mode decode --disaggregation-transfer-backend mori",
				"SGLANG_DISAGG_STAGING_BUFFER=true " + serve + "--disaggregation-mode prefill --pp-size 2 --disaggregation-transfer-backend nixl"},
			[]string{serve + "--disaggregation-mode decode --disaggregation-transfer-backend fake", serve + "--disaggregation-mode prefill --enable-unified-memory",
				serve + "--disaggregation-transfer-backend fake", "SGLANG_DISAGG_STAGING_BUFFER=0 " + serve + "--disaggregation-mode decode --disaggregation-transfer-backend mori"}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.id] = true
		for _, line := range tt.yes {
			if !slices.Contains(issueIDs(checkLine(t, line)), tt.id) {
				t.Errorf("%s: not reported for %s", tt.id, line)
			}
		}
		for _, line := range tt.no {
			if got := issueIDs(checkLine(t, line)); slices.Contains(got, tt.id) {
				t.Errorf("%s: reported for %s", tt.id, line)
			}
		}
	}
	for _, r := range rules {
		if !covered[r.id] {
			t.Errorf("rule %s has no test", r.id)
		}
	}
}

func TestValidCommandsPass(t *testing.T) {
	for _, line := range []string{
		"python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp 2 --port 30000",
		"CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 sglang serve --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp 8 --enable-dp-attention --trust-remote-code",
		"sglang serve --model-path /models/MiniMax-M3-Sparse --disaggregation-mode prefill --tp-size 8 --page-size 64 --chunked-prefill-size 8192",
		"sglang serve --model-path openbmb/MiniCPM-SALA --disaggregation-mode decode --attention-backend fa3",
		"sglang serve --model-path Qwen/Qwen3-8B --speculative-algorithm EAGLE3 --speculative-eagle-topk 1 --page-size 64",
	} {
		if issues := Check(parse(t, line), Options{}); len(issues) > 0 {
			t.Errorf("%s: %+v", line, issues)
		}
	}
}

func TestRequiredModelPath(t *testing.T) {
	if got := issueIDs(Check(parse(t, "sglang serve --tp 2"), Options{})); !slices.Contains(got, idRequired) {
		t.Errorf("no --model-path: got %v", got)
	}
	if got := issueIDs(Check(parse(t, "sglang serve --config server.yaml"), Options{})); slices.Contains(got, idRequired) {
		t.Errorf("--config may hold the model path: got %v", got)
	}
}

// TestSeedFixes checks the before/after of the two seed errors and the
// cross-side TP check in the user's own flags.
func TestSeedFixes(t *testing.T) {
	find := func(issues []Issue, id string) Issue {
		t.Helper()
		for _, is := range issues {
			if is.ID == id {
				return is
			}
		}
		t.Fatalf("no %s in %+v", id, issues)
		return Issue{}
	}
	is := find(checkLine(t, "python -m sglang.launch_server --model-path /models/MiniMax-M3-Sparse --disaggregation-mode prefill --tp-size 4 --pp-size 2"),
		"sglang/pd-minimax-sparse-pp")
	if is.Before != "--disaggregation-mode prefill --tp-size 4 --pp-size 2" || is.After != "--disaggregation-mode prefill --tp-size 8 --pp-size 1" {
		t.Errorf("MiniMax PP fix: %q → %q", is.Before, is.After)
	}
	if !strings.Contains(is.Message, "family assumed from the name") || is.Captures["pp_size"] != "2" {
		t.Errorf("MiniMax PP message %q, captures %v", is.Message, is.Captures)
	}

	is = find(checkLine(t, "sglang serve --model-path openbmb/MiniCPM-SALA --disaggregation-mode prefill"), "sglang/minicpm-sparse-pd")
	if is.Before != "--disaggregation-mode prefill" || is.After != "--disaggregation-mode prefill --attention-backend fa3" {
		t.Errorf("MiniCPM fix: %q → %q", is.Before, is.After)
	}
	is = find(checkLine(t, "sglang serve --model-path openbmb/MiniCPM-SALA --disaggregation-mode decode --attention-backend minicpm_flashinfer"), "sglang/minicpm-sparse-pd")
	if is.After != "--disaggregation-mode decode --attention-backend flashinfer" {
		t.Errorf("MiniCPM fix with a sparse backend: %q → %q", is.Before, is.After)
	}

	p, d := parse(t, "sglang serve --model-path /models/MiniMax-M3-Sparse --disaggregation-mode prefill --tp-size 8"),
		parse(t, "sglang serve --model-path /models/MiniMax-M3-Sparse --disaggregation-mode decode --tp-size 4")
	p.Source, d.Source = "prefill command", "decode command"
	is = find(CheckPair(p, d, Options{}), "sglang/pd-minimax-sparse-hetero-tp")
	if is.Before != "prefill: --tp-size 8   decode: --tp-size 4" || is.After != "prefill: --tp-size 8   decode: --tp-size 8" || is.Side != PairSide {
		t.Errorf("hetero TP fix: %q → %q (%s)", is.Before, is.After, is.Side)
	}
}

func TestPairRules(t *testing.T) {
	const (
		pre = "sglang serve --disaggregation-mode prefill "
		dec = "sglang serve --disaggregation-mode decode "
		mm  = "--model-path /models/MiniMax-M3-Sparse "
		qw  = "--model-path Qwen/Qwen3-8B "
	)
	tests := []struct {
		id              string
		prefill, decode string
		want            bool
	}{
		{"sglang/pd-minimax-sparse-hetero-tp", pre + mm + "--tp 8", dec + mm + "--tp 4", true},
		{"sglang/pd-minimax-sparse-hetero-tp", pre + mm + "--tp 8", dec + mm + "--tp 8 --dp 2 --enable-dp-attention", true},
		{"sglang/pd-minimax-sparse-hetero-tp", pre + mm + "--tp 8", dec + mm + "--tp 16 --dp 2 --enable-dp-attention", false},
		{"sglang/pd-minimax-sparse-hetero-tp", pre + mm + "--tp 8", dec + mm + "--tp 8 --attn-cp-size 2", true},
		{"sglang/pd-minimax-sparse-hetero-tp", pre + mm + "--tp 8", dec + mm + "--tp 16 --attention-context-parallel-size 2", false},
		{"sglang/pd-minimax-sparse-hetero-tp", pre + mm + "--tp 8", dec + mm + "--tensor-parallel-size 8", false},
		{"sglang/pd-minimax-sparse-hetero-tp", pre + qw + "--tp 8", dec + qw + "--tp 4", false},
		{"sglang/pd-hetero-tp-unsupported", pre + "--model-path openai/gpt-oss-120b --tp 1", dec + "--model-path openai/gpt-oss-120b --tp 4", true},
		{"sglang/pd-hetero-tp-unsupported", pre + qw + "--tp 2 --enable-unified-memory", dec + qw + "--tp 4 --enable-unified-memory", true},
		{"sglang/pd-hetero-tp-unsupported", pre + qw + "--tp 1", dec + qw + "--tp 4", false},
		{"sglang/pd-hetero-tp-unsupported", pre + mm + "--tp 8", dec + mm + "--tp 4", false},
		{"sglang/pd-page-size-mismatch", pre + qw + "--page-size 64", dec + qw, true},
		{"sglang/pd-page-size-mismatch", pre + qw + "--page-size 64", dec + qw + "--page-size 32", true},
		{"sglang/pd-page-size-mismatch", pre + qw + "--page-size 64", dec + qw + "--page-size 64", false},
		{"sglang/pd-page-size-mismatch", pre + qw + "--page-size 1", dec + qw, false},
		{"sglang/pd-kv-cache-dtype-mismatch", pre + qw + "--kv-cache-dtype fp8_e4m3", dec + qw, true},
		{"sglang/pd-kv-cache-dtype-mismatch", pre + qw + "--kv-cache-dtype auto", dec + qw, false},
		{"sglang/pd-transfer-backend-mismatch", pre + qw + "--disaggregation-transfer-backend nixl", dec + qw, true},
		{"sglang/pd-transfer-backend-mismatch", pre + qw + "--disaggregation-transfer-backend mooncake_tcp", dec + qw, false},
		{"sglang/pd-model-mismatch", pre + "--model-path Qwen/Qwen3-32B", dec + qw, true},
		{"sglang/pd-model-mismatch", pre + "--model-path /a/Qwen3-8B", dec + "--model-path /b/qwen3-8b/", false},
		{"sglang/pd-bootstrap-unreachable", "sglang serve " + qw, dec + qw, true},
		{"sglang/pd-bootstrap-unreachable", pre + qw, dec + qw, false},
		{"sglang/pd-mode-option-conflict", pre + qw, "sglang serve " + qw + "--disaggregation-mode prefill", true},
		{"sglang/pd-mode-option-conflict", pre + qw, dec + qw, false},
		{"sglang/pd-unified-memory-mismatch", pre + qw + "--enable-unified-memory", dec + qw, true},
		{"sglang/pd-unified-memory-mismatch", pre + qw + "--enable-unified-memory", dec + qw + "--enable-unified-memory", false},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.id] = true
		p, d := parse(t, tt.prefill), parse(t, tt.decode)
		p.Source, d.Source = "prefill command", "decode command"
		got := issueIDs(CheckPair(p, d, Options{}))
		if slices.Contains(got, tt.id) != tt.want {
			t.Errorf("%s = %v for\n  prefill: %s\n  decode:  %s\n  got %v", tt.id, !tt.want, tt.prefill, tt.decode, got)
		}
	}
	for _, r := range pairRules {
		if !covered[r.id] {
			t.Errorf("pair rule %s has no test", r.id)
		}
	}
	// One side alone is checked on its own.
	if got := issueIDs(CheckPair(parse(t, pre+mm+"--pp-size 2"), nil, Options{})); !slices.Contains(got, "sglang/pd-minimax-sparse-pp") {
		t.Errorf("prefill alone: %v", got)
	}
}

// TestIDsExist guards against a rule naming a record the pack lacks.
func TestIDsExist(t *testing.T) {
	pack, err := patterns.Curated()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range IDs() {
		if pack.Lookup(id) == nil {
			t.Errorf("no record %s", id)
		}
	}
	if n := len(rules) + len(pairRules); n < 20 {
		t.Errorf("%d rules", n)
	}
}

// The fix for a checkpoint file given as the model path is the directory
// that holds it, written as the user wrote it.
func TestModelPathIsAFileFix(t *testing.T) {
	for _, tc := range []struct{ line, after string }{
		{"sglang serve --model-path ./out/full_sft_768.pth", "--model-path ./out"},
		{"sglang serve --model-path /models/Qwen3-8B/model.safetensors", "--model-path /models/Qwen3-8B"},
		{"sglang serve --model-path /model.bin", "--model-path /"},
		{"sglang serve --model-path model.pt", "--model-path ."},
	} {
		var got *Issue
		for _, is := range checkLine(t, tc.line) {
			if is.ID == "sglang/model-path-is-a-file" {
				got = &is
			}
		}
		if got == nil || got.After != tc.after {
			t.Errorf("%s: fix %+v, want after %q", tc.line, got, tc.after)
		}
	}
}

package remedies

import (
	"fmt"
	"regexp"
	"strings"
)

// A component is a part of sglang an unrecognised error can come through,
// known by where its code lives, with the way to take it out of the
// picture: the run that tells whether the error is that feature's.
type component struct {
	path    *regexp.Regexp // matched against the frame's path under sglang/srt/
	feature string         // what it is, for "in sglang's …"
	isolate string         // how to run without it, or "" when it cannot be
}

// components are tried in order; the first whose path matches names the
// feature. $1 in feature or isolate is the path's first group.
var components = []component{
	{regexp.MustCompile(`^speculative/`), "speculative decoding",
		"run once without `--speculative-algorithm`: if the error goes, it is the draft path's"},
	{regexp.MustCompile(`^(?:mem_cache/(?:hiradix_cache|hi_\w+|swa_hiradix_cache|hicache_storage)|mem_cache/storage/|managers/cache_controller)`), "hierarchical cache (HiCache)",
		"run once without `--enable-hierarchical-cache`"},
	{regexp.MustCompile(`^lora/`), "LoRA adapters",
		"run once without `--lora-paths` (and `--enable-lora`), or with one adapter, to tell the adapter from the server"},
	{regexp.MustCompile(`^constrained/(\w+?)_backend`), "structured output ($1 grammar backend)",
		"send the request without `response_format`/`regex`/`ebnf`, or start with another `--grammar-backend` (xgrammar, outlines, llguidance)"},
	{regexp.MustCompile(`^constrained/`), "structured output",
		"send the request without `response_format`/`regex`/`ebnf`, or start with another `--grammar-backend`"},
	{regexp.MustCompile(`^disaggregation/(mooncake|nixl|mori|ascend|fake)/`), "PD disaggregation's $1 transfer backend",
		"try the other `--disaggregation-transfer-backend` (mooncake, nixl), and check the transfer network between prefill and decode"},
	{regexp.MustCompile(`^disaggregation/`), "PD disaggregation",
		"start prefill and decode with the same sglang release, model and flags that must agree, and check the bootstrap port is reachable"},
	{regexp.MustCompile(`^layers/attention/(\w+?)_backend`), "$1 attention backend",
		"start once with another `--attention-backend` (e.g. triton or flashinfer): if the error goes, it is the backend's"},
	{regexp.MustCompile(`^layers/quantization/(\w+)`), "$1 quantization",
		"check the checkpoint's quantization matches `--quantization` and that this GPU supports it; an unquantized or differently quantized checkpoint tells the method from the model"},
	{regexp.MustCompile(`^layers/moe/.*(?:deepep|ep_moe)`), "expert parallelism (DeepEP)",
		"start once without `--moe-a2a-backend deepep` (or with `--ep-size 1`) to tell the all-to-all from the model"},
	{regexp.MustCompile(`^layers/moe/`), "MoE layers",
		"try another `--moe-runner-backend`, and check the expert count divides by `--ep-size`/`--tp-size`"},
	{regexp.MustCompile(`^model_executor/(?:cuda_graph_runner|piecewise_cuda_graph)`), "CUDA graph capture",
		"start once with `--disable-cuda-graph`: if it starts, lower `--cuda-graph-max-bs` and capture again"},
	{regexp.MustCompile(`^(?:compilation/|model_executor/compilation)`), "torch.compile",
		"start once without `--enable-torch-compile`"},
	{regexp.MustCompile(`^models/(\w+)\.py`), "$1 model implementation",
		"check the model is supported by your sglang release (its architecture in the model's config.json), and try the newest release: model code changes often"},
	{regexp.MustCompile(`^model_loader/`), "weight loading",
		"check the checkpoint is complete and matches the model's config.json (a partial download, a different revision or quantization), and that `--load-format` fits it"},
	{regexp.MustCompile(`^(?:multimodal/|managers/mm_utils|managers/multimodal_processor)`), "multimodal input processing",
		"send the request without images or video; check the processor's dependencies (transformers, torchvision, decord) match your release"},
	{regexp.MustCompile(`^(?:function_call/|parser/|reasoning_parser)`), "tool-call or reasoning parsing",
		"send the request without `tools`, or start without `--tool-call-parser`/`--reasoning-parser`, to tell the parser from the model"},
	{regexp.MustCompile(`^entrypoints/openai/`), "OpenAI-compatible API layer",
		"find the request that triggered it (the access log line just before) and send it again alone; a malformed field is the usual cause"},
	{regexp.MustCompile(`^distributed/`), "distributed layer (NCCL, custom all-reduce)",
		"start once with `--disable-custom-all-reduce`, and with `NCCL_DEBUG=INFO` to see which link fails"},
	{regexp.MustCompile(`^(?:managers/tokenizer_manager|managers/detokenizer_manager|hf_transformers_utils|utils/hf_transformers)`), "tokenizing and detokenizing",
		"check the tokenizer loads on its own (`AutoTokenizer.from_pretrained(...)`) with the transformers version your release pins"},
}

// componentOf names the sglang feature a frame line's file belongs to and
// how to isolate it, or "" when the frame is not in a known part.
func componentOf(frame string) (feature, isolate string) {
	m := frameRE.FindStringSubmatch(strings.TrimSpace(frame))
	if m == nil {
		return "", ""
	}
	i := strings.LastIndex(m[1], "sglang/srt/")
	if i < 0 {
		return "", ""
	}
	rel := m[1][i+len("sglang/srt/"):]
	for _, c := range components {
		sub := c.path.FindStringSubmatchIndex(rel)
		if sub == nil {
			continue
		}
		feature = string(c.path.ExpandString(nil, c.feature, rel, sub))
		isolate = string(c.path.ExpandString(nil, c.isolate, rel, sub))
		return feature, isolate
	}
	return "", ""
}

// componentStep is the step an unrecognised error raised through a known
// part of sglang gets: take that part out of the picture.
func componentStep(ownFrame string) string {
	feature, isolate := componentOf(ownFrame)
	if feature == "" || isolate == "" {
		return ""
	}
	return fmt.Sprintf("It came through sglang's %s; to tell whether it is that feature's: %s", feature, isolate)
}

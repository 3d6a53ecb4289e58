package launch

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tailfix/tailfix/patterns"
)

// env is what a rule looks at: one command and its model.
type env struct {
	c *Command
	m *Model
}

// rule predicts one known error from a single command.
type rule struct {
	id    string
	check func(e *env) []Issue
}

// pairRule predicts one known error from a prefill and a decode command.
type pairRule struct {
	id    string
	check func(p, d *env) []Issue
}

// issue builds an issue of a rule about e's command.
func (e *env) issue(id, msg, before, after string, dests ...string) Issue {
	is := Issue{ID: id, Side: e.c.Source, Message: msg, Before: before, After: after}
	is.Captures = e.captures(dests...)
	return is
}

// captures holds the values of some dests, by dest, for the record's
// remedy.
func (e *env) captures(dests ...string) map[string]string {
	m := map[string]string{}
	for _, d := range dests {
		if e.c.Given(d) {
			m[d] = e.c.Str(d)
		}
	}
	if e.m != nil && e.m.Path != "" {
		m["model_path"] = e.m.Path
	}
	return m
}

// spec is the speculative algorithm, upper-cased, or "".
func (c *Command) spec() string {
	s := strings.ToUpper(c.Str("speculative_algorithm"))
	if s == "NONE" {
		return ""
	}
	return s
}

// modeText is the command's --disaggregation-mode as written.
func (c *Command) modeText() string {
	if a := c.Arg("disaggregation_mode"); a != nil {
		return a.Text()
	}
	return "--disaggregation-mode null (the default)"
}

// count is "1 GPU", "2 GPUs".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// roundUp is the smallest multiple of m at or above n.
func roundUp(n, m int) int {
	if m <= 0 {
		return n
	}
	return (n + m - 1) / m * m
}

var attentionBackends = []string{"attention_backend", "prefill_attention_backend", "decode_attention_backend"}

// denseMiniCPM maps MiniCPM's sparse attention backends to the dense
// backends sglang itself uses with SGLANG_MINICPM_FORCE_DENSE.
var denseMiniCPM = map[string]string{"minicpm_flashattn": "fa3", "minicpm_flashinfer": "flashinfer"}

// checkpointExts are the extensions of single checkpoint files, which
// --model-path does not take (a .gguf file it does).
var checkpointExts = []string{".pth", ".pt", ".bin", ".ckpt", ".safetensors", ".pkl", ".tar"}

// rules run on every command, in this order: launch-time rejections of the
// model's own checks, then argument checks, then errors that come later.
var rules = []rule{
	{"sglang/model-path-is-a-file", func(e *env) []Issue {
		path := e.c.Str("model_path")
		ext := strings.ToLower(filepath.Ext(path))
		if !e.c.Given("model_path") || !slices.Contains(checkpointExts, ext) {
			return nil
		}
		dir := "."
		if i := strings.LastIndexByte(path, '/'); i >= 0 {
			dir = path[:max(i, 1)] // the directory as written: "./out", "/"
		}
		before, after := e.c.Fix([]string{"model_path"}, To("model_path", dir))
		msg := fmt.Sprintf("%s names one checkpoint file (%s), not a model directory: sglang loads the Hugging Face layout (config.json, the tokenizer and the weights in one directory) or a Hub id, "+
			"and transformers reads a file given there as the model's config.json, so the launch fails with a UnicodeDecodeError or JSONDecodeError", e.c.Arg("model_path").Text(), ext)
		return []Issue{e.issue("sglang/model-path-is-a-file", msg, before, after, "model_path")}
	}},
	{"sglang/minicpm-dp-attention", func(e *env) []Issue {
		if !e.m.MiniCPM || !e.c.On("enable_dp_attention") {
			return nil
		}
		before, after := e.c.Fix([]string{"tp_size", "dp_size", "enable_dp_attention"}, Drop("enable_dp_attention"), Drop("dp_size"))
		msg := fmt.Sprintf("%s for %s: sglang rejects it while resolving the arguments with \"ValueError: MiniCPM does not support DP attention\"",
			e.c.Arg("enable_dp_attention").Name, e.m.describe("MiniCPM causal LM"))
		return []Issue{e.issue("sglang/minicpm-dp-attention", msg, before, after, "tp_size", "dp_size", "enable_dp_attention")}
	}},
	{"sglang/minicpm-sala-hicache", func(e *env) []Issue {
		if !e.m.MiniCPMHybrid || !e.c.On("enable_hierarchical_cache") {
			return nil
		}
		show := []string{"tp_size", "enable_hierarchical_cache"}
		changes := []Set{Drop("enable_hierarchical_cache")}
		for _, a := range e.c.Args {
			if a.Flag != nil && strings.HasPrefix(a.Flag.Dest, "hicache_") && !slices.Contains(show, a.Flag.Dest) {
				show = append(show, a.Flag.Dest)
				changes = append(changes, Drop(a.Flag.Dest))
			}
		}
		before, after := e.c.Fix(show, changes...)
		msg := fmt.Sprintf("%s for %s: sglang rejects it while resolving the arguments with \"ValueError: MiniCPM SALA does not support hierarchical cache\"",
			e.c.Arg("enable_hierarchical_cache").Name, e.m.describe("MiniCPM model with sparse or lightning attention layers"))
		return []Issue{e.issue("sglang/minicpm-sala-hicache", msg, before, after, "enable_hierarchical_cache")}
	}},
	{"sglang/minicpm-sparse-pd", func(e *env) []Issue {
		c := e.c
		if !e.m.MiniCPMSparse || !c.PD() || c.EnvOn("SGLANG_MINICPM_FORCE_DENSE") {
			return nil
		}
		var given, sparse []string
		var changes []Set
		for _, d := range attentionBackends {
			if !c.Given(d) {
				continue
			}
			given = append(given, d)
			if dense, ok := denseMiniCPM[c.Str(d)]; ok {
				sparse = append(sparse, c.Arg(d).Text())
				changes = append(changes, To(d, dense))
			}
		}
		var why string
		switch {
		case len(given) == 0:
			why = "no attention backend is given, so sglang picks its sparse minicpm_flashattn (minicpm_flashinfer on Blackwell)"
			changes = append(changes, To("attention_backend", "fa3"))
		case len(sparse) > 0:
			why = strings.Join(sparse, " and ") + " selects the sparse kernels"
		default:
			return nil
		}
		before, after := c.Fix(append([]string{"disaggregation_mode"}, attentionBackends...), changes...)
		msg := fmt.Sprintf("%s for %s, and %s: sglang rejects the launch with \"ValueError: MiniCPM sparse attention does not support PD disaggregation\" (SGLANG_MINICPM_FORCE_DENSE=1 is not set)",
			c.modeText(), e.m.describe("MiniCPM sparse-attention model"), why)
		return []Issue{e.issue("sglang/minicpm-sparse-pd", msg, before, after, append([]string{"disaggregation_mode"}, attentionBackends...)...)}
	}},
	{"sglang/pd-minimax-sparse-index-value", func(e *env) []Issue {
		if !e.m.MiniMaxIndexValue || !e.c.PD() {
			return nil
		}
		before, after := e.c.Fix([]string{"disaggregation_mode", "tp_size"}, Drop("disaggregation_mode"))
		msg := fmt.Sprintf("%s for %s, whose sparse layers keep index values (sparse_disable_index_value is not set for all of them): "+
			"the server dies while starting with \"NotImplementedError: PD disaggregation for MiniMax sparse layers with index value (index_kv_pool) is not yet supported\"",
			e.c.modeText(), e.m.describe("MiniMax sparse-attention model"))
		return []Issue{e.issue("sglang/pd-minimax-sparse-index-value", msg, before, after, "disaggregation_mode")}
	}},
	{"sglang/kv-cache-dtype-unsupported", func(e *env) []Issue {
		kv := e.c.Str("kv_cache_dtype")
		if !e.m.DSA || !e.c.Given("kv_cache_dtype") || slices.Contains([]string{"auto", "bf16", "bfloat16", "fp8_e4m3"}, kv) {
			return nil
		}
		before, after := e.c.Fix([]string{"kv_cache_dtype"}, To("kv_cache_dtype", "fp8_e4m3"))
		msg := fmt.Sprintf("%s for %s: DeepSeek sparse attention keeps its cache only in bfloat16 or fp8_e4m3, and sglang stops at launch with "+
			"\"AssertionError: DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype\"", e.c.Arg("kv_cache_dtype").Text(), e.m.describe("DeepSeek sparse-attention (DSA) model"))
		return []Issue{e.issue("sglang/kv-cache-dtype-unsupported", msg, before, after, "kv_cache_dtype")}
	}},
	{"sglang/model-requires-attention-backend", func(e *env) []Issue {
		if !e.m.NoTriton || e.c.Str("attention_backend") != "triton" {
			return nil
		}
		before, after := e.c.Fix([]string{"attention_backend"}, Drop("attention_backend"))
		msg := fmt.Sprintf("%s for %s, whose first layer may be a Mamba or linear-attention layer: sglang stops at launch with "+
			"\"… does not support triton attention backend\"", e.c.Arg("attention_backend").Text(), e.m.describe("hybrid model"))
		return []Issue{e.issue("sglang/model-requires-attention-backend", msg, before, after, "attention_backend")}
	}},
	{"sglang/tp-not-divisible-by-dp", func(e *env) []Issue {
		c := e.c
		tp, dp, cp := c.IntOr("tp_size", 1), c.IntOr("dp_size", 1), c.IntOr("attn_cp_size", 1)
		if (!c.On("enable_dp_attention") && cp <= 1) || dp*cp <= 0 || tp%(dp*cp) == 0 {
			return nil
		}
		show := []string{"tp_size", "dp_size", "attn_cp_size", "enable_dp_attention"}
		var before, after, msg string
		if cp > 1 {
			before, after = c.Fix(show, To("tp_size", roundUp(tp, dp*cp)))
			msg = fmt.Sprintf("tp-size %d is not divisible by dp-size × attn-cp-size = %d × %d: attention context parallelism splits the tp-size GPUs "+
				"into groups of that size, and sglang stops at launch with \"AssertionError: tp_size must be divisible by dp_size * attn_cp_size\"", tp, dp, cp)
		} else {
			// Keep the GPU count (tp-size) and take the largest DP size
			// that divides it.
			fixed := dp
			for tp%fixed != 0 {
				fixed--
			}
			before, after = c.Fix(show, To("dp_size", fixed))
			msg = fmt.Sprintf("tp-size %d is not divisible by dp-size %d: DP attention splits the tp-size GPUs into dp-size groups, "+
				"and sglang stops at launch with an AssertionError (\"tp_size must be divisible by dp_size\")", tp, dp)
		}
		return []Issue{e.issue("sglang/tp-not-divisible-by-dp", msg, before, after, show...)}
	}},
	{"sglang/tp-not-divisible-by-nnodes", func(e *env) []Issue {
		c := e.c
		tp, pp, nn := c.IntOr("tp_size", 1), c.IntOr("pp_size", 1), c.IntOr("nnodes", 1)
		if nn <= 1 || pp <= 0 || tp*pp%nn == 0 {
			return nil
		}
		fixed := tp
		for fixed*pp%nn != 0 {
			fixed++
		}
		before, after := c.Fix([]string{"tp_size", "pp_size", "nnodes"}, To("tp_size", fixed))
		msg := fmt.Sprintf("tp-size × pp-size = %d × %d does not divide among --nnodes %d: sglang stops at launch with \"AssertionError: tp_size must be divisible by number of nodes\"", tp, pp, nn)
		return []Issue{e.issue("sglang/tp-not-divisible-by-nnodes", msg, before, after, "tp_size", "pp_size", "nnodes")}
	}},
	{"sglang/multinode-dp-needs-dp-attention", func(e *env) []Issue {
		c := e.c
		if c.IntOr("dp_size", 1) <= 1 || c.IntOr("nnodes", 1) <= 1 || c.On("enable_dp_attention") {
			return nil
		}
		before, after := c.Fix([]string{"tp_size", "dp_size", "nnodes"}, To("enable_dp_attention", ""))
		msg := fmt.Sprintf("%s with %s and no --enable-dp-attention: sglang stops at launch with \"AssertionError: multi-node data parallel is not supported unless dp attention!\"",
			c.Arg("dp_size").Text(), c.Arg("nnodes").Text())
		return []Issue{e.issue("sglang/multinode-dp-needs-dp-attention", msg, before, after, "dp_size", "nnodes")}
	}},
	{"sglang/chunked-prefill-not-multiple-of-page-size", func(e *env) []Issue {
		c := e.c
		page, okp := c.Int("page_size")
		chunk, okc := c.Int("chunked_prefill_size")
		if !okp || !okc || !c.Given("page_size") || !c.Given("chunked_prefill_size") || page <= 1 || chunk <= 0 ||
			c.Mode() == "decode" || chunk%page == 0 {
			return nil
		}
		before, after := c.Fix([]string{"page_size", "chunked_prefill_size"}, To("chunked_prefill_size", roundUp(chunk, page)))
		msg := fmt.Sprintf("--chunked-prefill-size %d is not a multiple of --page-size %d: sglang stops at launch with \"AssertionError: chunked_prefill_size must be divisible by page_size\"", chunk, page)
		return []Issue{e.issue("sglang/chunked-prefill-not-multiple-of-page-size", msg, before, after, "page_size", "chunked_prefill_size")}
	}},
	{"sglang/pp-incompatible-options", func(e *env) []Issue {
		c := e.c
		tp, pp := c.IntOr("tp_size", 1), c.IntOr("pp_size", 1)
		if pp <= 1 || c.spec() == "" {
			return nil
		}
		before, after := c.Fix([]string{"tp_size", "pp_size", "speculative_algorithm"}, To("tp_size", tp*pp), To("pp_size", 1))
		msg := fmt.Sprintf("%s with %s: pipeline parallelism cannot run speculative decoding, and sglang stops at launch with "+
			"\"AssertionError: Pipeline parallelism is not compatible with overlap schedule, speculative decoding\"",
			c.Arg("pp_size").Text(), c.Arg("speculative_algorithm").Text())
		return []Issue{e.issue("sglang/pp-incompatible-options", msg, before, after, "tp_size", "pp_size", "speculative_algorithm")}
	}},
	{"sglang/spec-with-mixed-chunk", func(e *env) []Issue {
		c := e.c
		if c.spec() == "" || !c.On("enable_mixed_chunk") {
			return nil
		}
		before, after := c.Fix([]string{"speculative_algorithm", "enable_mixed_chunk"}, Drop("enable_mixed_chunk"))
		msg := fmt.Sprintf("%s with %s: speculative decoding cannot mix prefill and decode in a batch; older releases stop at launch "+
			"(\"enable_mixed_chunk is required for speculative decoding\"), recent ones switch mixed chunk off with a warning",
			c.Arg("enable_mixed_chunk").Name, c.Arg("speculative_algorithm").Text())
		is := e.issue("sglang/spec-with-mixed-chunk", msg, before, after, "speculative_algorithm", "enable_mixed_chunk")
		is.Severity = patterns.SeverityWarning
		return []Issue{is}
	}},
	{"sglang/spec-topk-unsupported", func(e *env) []Issue {
		c := e.c
		topk := c.IntOr("speculative_eagle_topk", 0)
		algo := c.spec()
		if algo == "" || topk <= 1 {
			return nil
		}
		backend := c.Str("attention_backend")
		page := c.IntOr("page_size", 1)
		tree := []string{"flashinfer", "fa3"}
		if algo == "NGRAM" {
			tree = []string{"flashinfer"}
		}
		var why string
		switch {
		case backend == "trtllm_mha":
			why = "the trtllm_mha backend verifies only a chain of draft tokens (top-k 1)"
		case page > 1 && backend != "" && !slices.Contains(tree, backend):
			why = fmt.Sprintf("with --page-size %d only %s can verify a tree of draft tokens, not %s", page, strings.Join(tree, " or "), backend)
		default:
			return nil
		}
		changes := []Set{To("speculative_eagle_topk", 1)}
		if steps, ok := c.Int("speculative_num_steps"); ok && c.Given("speculative_num_draft_tokens") {
			changes = append(changes, To("speculative_num_draft_tokens", steps+1))
		}
		show := []string{"speculative_algorithm", "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens", "page_size", "attention_backend"}
		before, after := c.Fix(show, changes...)
		msg := fmt.Sprintf("%s: %s; sglang stops at launch with a ValueError about speculative_eagle_topk > 1", c.Arg("speculative_eagle_topk").Text(), why)
		return []Issue{e.issue("sglang/spec-topk-unsupported", msg, before, after, show...)}
	}},
	{"sglang/spec-no-dp-attention", func(e *env) []Issue {
		c := e.c
		algo := c.spec()
		if !c.On("enable_dp_attention") || !slices.Contains([]string{"NGRAM", "STANDALONE", "DFLASH"}, algo) {
			return nil
		}
		before, after := c.Fix([]string{"tp_size", "dp_size", "enable_dp_attention", "speculative_algorithm"}, Drop("enable_dp_attention"), Drop("dp_size"))
		msg := fmt.Sprintf("%s with %s: this algorithm has no DP-attention path, and sglang stops at launch with \"ValueError: Currently %s speculative decoding does not support dp attention.\"",
			c.Arg("speculative_algorithm").Text(), c.Arg("enable_dp_attention").Name, strings.ToLower(algo))
		return []Issue{e.issue("sglang/spec-no-dp-attention", msg, before, after, "enable_dp_attention", "speculative_algorithm")}
	}},
	{"sglang/requires-dp-attention", func(e *env) []Issue {
		c := e.c
		tp, dp := c.IntOr("tp_size", 1), c.IntOr("dp_size", 1)
		a2a := c.Str("moe_a2a_backend")
		var why string
		var show []string
		if !c.On("enable_dp_attention") {
			switch {
			case c.On("enable_dp_lm_head"):
				why, show = "--enable-dp-lm-head works only with DP attention", []string{"enable_dp_lm_head"}
			case c.On("enable_tp_lm_head_all_to_all"):
				why, show = "--enable-tp-lm-head-all-to-all works only with DP attention", []string{"enable_tp_lm_head_all_to_all"}
			case a2a == "flashinfer" || a2a == "pplx":
				why, show = fmt.Sprintf("--moe-a2a-backend %s works only with DP attention", a2a), []string{"moe_a2a_backend"}
			case c.On("enable_two_batch_overlap") && a2a == "none" && c.IntOr("attn_cp_size", 1) <= 1 && !c.On("enable_prefill_cp"):
				why, show = "--enable-two-batch-overlap without an expert-parallel all-to-all backend needs DP attention", []string{"enable_two_batch_overlap"}
			default:
				return nil
			}
		} else {
			switch {
			case a2a == "flashinfer" && dp != tp:
				why, show = fmt.Sprintf("--moe-a2a-backend flashinfer needs --dp-size equal to --tp-size (%d ≠ %d)", dp, tp), []string{"moe_a2a_backend"}
			case a2a == "pplx" && dp < 2:
				why, show = "--moe-a2a-backend pplx needs at least two DP groups (--dp-size 2 or more)", []string{"moe_a2a_backend"}
			default:
				return nil
			}
		}
		show = append([]string{"tp_size", "dp_size", "enable_dp_attention"}, show...)
		before, after := c.Fix(show, To("dp_size", tp), To("enable_dp_attention", ""))
		msg := why + ": sglang stops at launch (\"Please enable dp attention …\" or a similar message naming --enable-dp-attention)"
		return []Issue{e.issue("sglang/requires-dp-attention", msg, before, after, show...)}
	}},
	{"sglang/hicache-without-radix-cache", func(e *env) []Issue {
		c := e.c
		if !c.On("enable_hierarchical_cache") || !c.On("disable_radix_cache") {
			return nil
		}
		before, after := c.Fix([]string{"enable_hierarchical_cache", "disable_radix_cache"}, Drop("disable_radix_cache"))
		msg := fmt.Sprintf("%s with %s: the hierarchical cache extends the radix cache, and sglang stops at launch with "+
			"\"ValueError: The arguments enable-hierarchical-cache and disable-radix-cache are mutually exclusive\"",
			c.Arg("enable_hierarchical_cache").Name, c.Arg("disable_radix_cache").Name)
		return []Issue{e.issue("sglang/hicache-without-radix-cache", msg, before, after, "enable_hierarchical_cache", "disable_radix_cache")}
	}},
	{"sglang/served-model-name-colon", func(e *env) []Issue {
		c := e.c
		name := c.Str("served_model_name")
		if !c.Given("served_model_name") || !strings.Contains(name, ":") {
			return nil
		}
		before, after := c.Fix([]string{"served_model_name"}, To("served_model_name", strings.ReplaceAll(name, ":", "-")))
		msg := fmt.Sprintf("%s contains a colon, which sglang reserves for model:adapter (LoRA): it stops at launch with \"AssertionError: served_model_name cannot contain a colon\"",
			c.Arg("served_model_name").Text())
		return []Issue{e.issue("sglang/served-model-name-colon", msg, before, after, "served_model_name")}
	}},
	{"sglang/gpus-not-visible", func(e *env) []Issue {
		c := e.c
		cvd, ok := c.Env["CUDA_VISIBLE_DEVICES"]
		if !ok {
			return nil
		}
		var devices []string
		for _, d := range strings.Split(cvd, ",") {
			if d = strings.TrimSpace(d); d != "" {
				devices = append(devices, d)
			}
		}
		tp, pp, nn := c.IntOr("tp_size", 1), c.IntOr("pp_size", 1), max(c.IntOr("nnodes", 1), 1)
		ranks := tp * pp / nn
		if dp := c.IntOr("dp_size", 1); dp > 1 && !c.On("enable_dp_attention") && nn == 1 {
			ranks *= dp // plain data parallelism: dp replicas of tp × pp GPUs
		}
		need := c.IntOr("base_gpu_id", 0) + (ranks-1)*max(c.IntOr("gpu_id_step", 1), 1) + 1
		if ranks < 1 || len(devices) >= need {
			return nil
		}
		fixed := slices.Clone(devices)
		next := 0
		for _, d := range devices {
			if n, err := strconv.Atoi(d); err == nil && n >= next {
				next = n + 1
			}
		}
		for len(fixed) < need {
			fixed = append(fixed, strconv.Itoa(next))
			next++
		}
		show := []string{"tp_size", "pp_size", "dp_size", "nnodes", "base_gpu_id", "gpu_id_step"}
		flags, _ := c.Fix(show)
		before := strings.TrimSpace("CUDA_VISIBLE_DEVICES=" + Quote(cvd) + " " + flags)
		after := strings.TrimSpace("CUDA_VISIBLE_DEVICES=" + strings.Join(fixed, ",") + " " + flags)
		msg := fmt.Sprintf("CUDA_VISIBLE_DEVICES=%s makes %s visible, but the flags run %s on this node, up to GPU index %d: "+
			"the first rank without a GPU fails while it starts with \"CUDA error: invalid device ordinal\"",
			Quote(cvd), count(len(devices), "GPU"), count(ranks, "rank"), need-1)
		is := e.issue("sglang/gpus-not-visible", msg, before, after, show...)
		is.Captures["CUDA_VISIBLE_DEVICES"] = cvd
		return []Issue{is}
	}},
	{"sglang/pd-mode-option-conflict", func(e *env) []Issue {
		c := e.c
		mode := c.Mode()
		type conflict struct {
			dest    string
			bad     bool
			sglang  string // what sglang says
			replace *Set   // the fix, when it is not removing the flag
		}
		lazy := To("mamba_radix_cache_strategy", "extra_buffer")
		conflicts := []conflict{
			{"enable_prefill_cp", mode == "decode" && c.On("enable_prefill_cp"), "CP is only supported for prefill when PD disaggregation, please remove --enable-prefill-cp.", nil},
			{"enable_dsa_cache_layer_split", mode != "prefill" && c.On("enable_dsa_cache_layer_split"), "--enable-dsa-cache-layer-split is only supported on PD prefill workers.", nil},
			{"disaggregation_decode_retraction_backup", mode != "decode" && c.Str("disaggregation_decode_retraction_backup") == "host_pool", "--disaggregation-decode-retraction-backup=host_pool is only supported on a PD decode server.", nil},
			{"disaggregation_decode_enable_offload_kvcache", mode != "decode" && c.On("disaggregation_decode_enable_offload_kvcache"), "The argument disaggregation-decode-enable-offload-kvcache is only supported for decode side.", nil},
			{"language_model_only", c.PD() && c.On("language_model_only"), "--language-model-only is incompatible with --disaggregation-mode prefill/decode", nil},
			{"encoder_only", c.PD() && c.On("encoder_only"), "Cannot set --encoder-only and --disaggregation-mode prefill/decode together", nil},
			{"enable_pdmux", c.PD() && c.On("enable_pdmux"), "PD-Multiplexing is not compatible with disaggregation mode.", nil},
			{"enable_linear_replayssm", c.PD() && c.On("enable_linear_replayssm"), "--enable-linear-replayssm is not supported under PD disaggregation yet (follow-up).", nil},
			{"enable_linear_replayssm_spec", mode == "prefill" && c.On("enable_linear_replayssm_spec"), "--enable-linear-replayssm-spec is not supported on a PD prefill server", nil},
			{"dwdp_size", mode == "decode" && c.IntOr("dwdp_size", 1) > 1, "DWDP requires --disaggregation-mode null or prefill", nil},
			{"mamba_radix_cache_strategy", c.PD() && c.Str("mamba_radix_cache_strategy") == "extra_buffer_lazy", "extra_buffer_lazy unsupported under PD disaggregation; use --mamba-radix-cache-strategy extra_buffer.", &lazy},
			{"hicache_host_memory_mode", mode == "decode" && c.Str("hicache_host_memory_mode") == "buffer_only", "--hicache-host-memory-mode buffer_only is not supported on decode instances", nil},
		}
		var issues []Issue
		for _, k := range conflicts {
			if !k.bad {
				continue
			}
			change := Drop(k.dest)
			if k.replace != nil {
				change = *k.replace
			}
			before, after := c.Fix([]string{"disaggregation_mode", k.dest}, change)
			msg := fmt.Sprintf("%s on a server with %s: sglang stops at launch with %q", c.Arg(k.dest).Text(), c.modeText(), k.sglang)
			issues = append(issues, e.issue("sglang/pd-mode-option-conflict", msg, before, after, "disaggregation_mode", k.dest))
		}
		return issues
	}},
	{"sglang/pd-decode-radix-cache-conflict", func(e *env) []Issue {
		c := e.c
		if c.Mode() != "decode" {
			return nil
		}
		radix := c.On("disaggregation_decode_enable_radix_cache")
		backend := c.Str("disaggregation_transfer_backend")
		var why, other string
		switch {
		case radix && c.On("enable_hisparse"):
			why, other = "is incompatible with --enable-hisparse", "enable_hisparse"
		case radix && backend == "fake":
			why, other = "is incompatible with --disaggregation-transfer-backend fake", "disaggregation_transfer_backend"
		case radix && c.spec() != "":
			why, other = "is incompatible with speculative decoding", "speculative_algorithm"
		case c.IntOr("dcp_size", 1) > 1 && radix:
			why, other = "is not supported with decode context parallelism (PD decode DCP currently requires chunk cache)", "dcp_size"
		case c.IntOr("dcp_size", 1) > 1 && c.On("enable_hierarchical_cache"):
			before, after := c.Fix([]string{"disaggregation_mode", "dcp_size", "enable_hierarchical_cache"}, Drop("enable_hierarchical_cache"))
			msg := fmt.Sprintf("%s with %s on a decode server: sglang stops at launch with \"ValueError: PD decode DCP currently requires chunk cache; --enable-hierarchical-cache is not supported.\"",
				c.Arg("enable_hierarchical_cache").Name, c.Arg("dcp_size").Text())
			return []Issue{e.issue("sglang/pd-decode-radix-cache-conflict", msg, before, after, "dcp_size", "enable_hierarchical_cache")}
		default:
			return nil
		}
		flag := c.Arg("disaggregation_decode_enable_radix_cache").Name
		before, after := c.Fix([]string{"disaggregation_mode", "disaggregation_decode_enable_radix_cache", other}, Drop("disaggregation_decode_enable_radix_cache"))
		msg := fmt.Sprintf("%s %s (%s): sglang stops at launch", flag, why, c.Text(other))
		return []Issue{e.issue("sglang/pd-decode-radix-cache-conflict", msg, before, after, "disaggregation_decode_enable_radix_cache", other)}
	}},
	{"sglang/pd-backend-feature-unsupported", func(e *env) []Issue {
		c := e.c
		if !c.PD() {
			return nil
		}
		backend := c.Str("disaggregation_transfer_backend")
		mooncake := backend == "mooncake" || backend == "mooncake_tcp"
		var why, feature string
		switch {
		case c.Mode() == "prefill" && backend == "fake":
			why = "a prefill server cannot use the fake transfer backend (\"Prefill server does not support 'fake' as the transfer backend\")"
		case c.Mode() == "decode" && c.IntOr("dcp_size", 1) > 1 && !mooncake && backend != "nixl" && backend != "fake":
			why, feature = "decode context parallelism needs the mooncake or nixl transfer backend", "dcp_size"
		case c.Mode() == "prefill" && c.On("enable_dsa_cache_layer_split") && !mooncake:
			why, feature = "--enable-dsa-cache-layer-split supports only the mooncake transfer backend", "enable_dsa_cache_layer_split"
		case c.On("enable_unified_memory") && backend != "mooncake":
			why, feature = "--enable-unified-memory with PD disaggregation supports only the mooncake transfer backend", "enable_unified_memory"
		case c.EnvOn("SGLANG_DISAGG_STAGING_BUFFER") && !mooncake && backend != "nixl":
			why = "SGLANG_DISAGG_STAGING_BUFFER=1 needs the mooncake or nixl transfer backend"
		case c.EnvOn("SGLANG_DISAGG_STAGING_BUFFER") && c.Mode() == "prefill" && c.IntOr("pp_size", 1) > 1 && !mooncake:
			why, feature = "SGLANG_DISAGG_STAGING_BUFFER=1 with pipeline parallelism is only supported by the mooncake transfer backend", "pp_size"
		default:
			return nil
		}
		show := []string{"disaggregation_mode", "disaggregation_transfer_backend"}
		if feature != "" {
			show = append(show, feature)
		}
		before, after := c.Fix(show, To("disaggregation_transfer_backend", "mooncake"))
		msg := fmt.Sprintf("%s with %s: %s, and sglang refuses the setup", c.Text("disaggregation_transfer_backend"), c.modeText(), why)
		if !c.Given("disaggregation_transfer_backend") {
			msg = fmt.Sprintf("the default transfer backend (%s) with %s: %s, and sglang refuses the setup", backend, c.modeText(), why)
		}
		return []Issue{e.issue("sglang/pd-backend-feature-unsupported", msg, before, after, show...)}
	}},
	{"sglang/pd-minimax-sparse-pp", func(e *env) []Issue {
		c := e.c
		pp := c.IntOr("pp_size", 1)
		if !e.m.MiniMaxSparse || c.Mode() != "prefill" || pp <= 1 {
			return nil
		}
		tp := c.IntOr("tp_size", 1)
		show := []string{"disaggregation_mode", "tp_size", "pp_size"}
		before, after := c.Fix(show, To("tp_size", tp*pp), To("pp_size", 1))
		msg := fmt.Sprintf("%s on a PD prefill server (%s) of %s: the server starts, then the first request's KV transfer fails with "+
			"\"RuntimeError: PD disagg: PP>1 not supported for MiniMax sparse index yet.\"; every transfer backend refuses it",
			c.Arg("pp_size").Text(), c.Arg("disaggregation_mode").Text(), e.m.describe("MiniMax sparse-attention model"))
		return []Issue{e.issue("sglang/pd-minimax-sparse-pp", msg, before, after, show...)}
	}},
}

// sideFix renders the changed flags of both sides of a pair in the
// "prefill: …   decode: …" form.
func sideFix(p, d *env, show []string, pChanges, dChanges []Set) (before, after string) {
	text := func(c *Command, changes []Set) (string, string) {
		b, a := c.Fix(show, changes...)
		if b == "" {
			b = "(no " + c.Spelling(show[0]) + ")"
		}
		if a == "" {
			a = "(no " + c.Spelling(show[0]) + ")"
		}
		return b, a
	}
	pb, pa := text(p.c, pChanges)
	db, da := text(d.c, dChanges)
	return "prefill: " + pb + "   decode: " + db, "prefill: " + pa + "   decode: " + da
}

func (p *env) pairIssue(d *env, id, msg, before, after string, dests ...string) Issue {
	caps := map[string]string{}
	for _, side := range []struct {
		name string
		e    *env
	}{{"prefill", p}, {"decode", d}} {
		for k, v := range side.e.captures(dests...) {
			caps[side.name+"."+k] = v
		}
	}
	return Issue{ID: id, Side: PairSide, Message: msg, Before: before, After: after, Captures: caps}
}

// copyChanges are the changes that give one side the other's values of
// some dests: the values given, or removal when the other side leaves the
// dest to its default.
func copyChanges(from *Command, dests ...string) []Set {
	var out []Set
	for _, d := range dests {
		if from.Given(d) {
			out = append(out, To(d, from.Str(d)))
		} else {
			out = append(out, Drop(d))
		}
	}
	return out
}

// mismatch reports a setting of PDAgreements that differs between the
// sides; the fix gives one side the other's value, the explicit value
// winning, else the prefill one.
func mismatch(p, d *env, st *PDSetting, consequence string) []Issue {
	pv, dv, bad := st.Disagree(p.c, d.c)
	if !bad {
		return nil
	}
	dest, def := st.Field, fmt.Sprint(st.Default)
	var pc, dc []Set
	if !p.c.Given(dest) && d.c.Given(dest) {
		pc = []Set{To(dest, d.c.Str(dest))}
	} else {
		dc = []Set{To(dest, p.c.Str(dest))}
		if !p.c.Given(dest) {
			dc = []Set{To(dest, def)}
		}
	}
	before, after := sideFix(p, d, []string{dest}, pc, dc)
	msg := fmt.Sprintf("the prefill server uses %s and the decode server %s: %s",
		describeValue(p.c, dest, fmt.Sprint(pv)), describeValue(d.c, dest, fmt.Sprint(dv)), consequence)
	return []Issue{p.pairIssue(d, st.Record, msg, before, after, dest)}
}

func describeValue(c *Command, dest, v string) string {
	if a := c.Arg(dest); a != nil {
		return a.Text()
	}
	if v == "" {
		return "no " + c.Spelling(dest)
	}
	return fmt.Sprintf("%s %s (the default)", c.Spelling(dest), v)
}

// parallelDests are the flags that make up the attention-TP size.
var parallelDests = []string{"tp_size", "dp_size", "enable_dp_attention", "attn_cp_size"}

// pairRules compare a prefill and a decode command.
var pairRules = []pairRule{
	{"sglang/pd-bootstrap-unreachable", func(p, d *env) []Issue {
		if p.c.Mode() == "prefill" {
			return nil
		}
		before, after := p.c.Fix([]string{"disaggregation_mode"}, To("disaggregation_mode", "prefill"))
		if before == "" {
			before = "(no --disaggregation-mode)"
		}
		msg := fmt.Sprintf("the --prefill command runs with %s, so it starts no bootstrap service: the decode server cannot fetch the prefill layout, and every request fails",
			p.c.modeText())
		is := p.issue("sglang/pd-bootstrap-unreachable", msg, "prefill: "+before, "prefill: "+after, "disaggregation_mode")
		return []Issue{is}
	}},
	{"sglang/pd-mode-option-conflict", func(p, d *env) []Issue {
		if d.c.Mode() == "decode" {
			return nil
		}
		before, after := d.c.Fix([]string{"disaggregation_mode"}, To("disaggregation_mode", "decode"))
		if before == "" {
			before = "(no --disaggregation-mode)"
		}
		msg := fmt.Sprintf("the --decode command runs with %s, so it is not a decode server: it receives no KV cache from the prefill server", d.c.modeText())
		return []Issue{d.issue("sglang/pd-mode-option-conflict", msg, "decode: "+before, "decode: "+after, "disaggregation_mode")}
	}},
	{"sglang/pd-model-mismatch", func(p, d *env) []Issue {
		pm, dm := p.c.Str("model_path"), d.c.Str("model_path")
		if pm == "" || dm == "" || ModelName(pm) == ModelName(dm) {
			return nil
		}
		before, after := sideFix(p, d, []string{"model_path"}, nil, []Set{To("model_path", pm)})
		msg := fmt.Sprintf("the prefill server serves %s and the decode server %s: the KV cache of one model cannot be decoded by another, "+
			"and transfers fail on a layout mismatch", Quote(pm), Quote(dm))
		return []Issue{p.pairIssue(d, "sglang/pd-model-mismatch", msg, before, after, "model_path")}
	}},
	{"sglang/pd-page-size-mismatch", func(p, d *env) []Issue {
		return mismatch(p, d, PDAgreement("page_size"),
			"the decode server raises \"Page size mismatch\" on the first request routed to this pair (an unset --page-size is 1 for most attention backends)")
	}},
	{"sglang/pd-kv-cache-dtype-mismatch", func(p, d *env) []Issue {
		return mismatch(p, d, PDAgreement("kv_cache_dtype"),
			"the decode server raises \"KV cache dtype mismatch\" on the first request routed to this pair; the settings are compared as given")
	}},
	{"sglang/pd-transfer-backend-mismatch", func(p, d *env) []Issue {
		return mismatch(p, d, PDAgreement("disaggregation_transfer_backend"),
			"the two backends speak different protocols, so the first transfer is rejected and requests hang until they time out")
	}},
	{"sglang/pd-unified-memory-mismatch", func(p, d *env) []Issue {
		pu, du := p.c.On("enable_unified_memory"), d.c.On("enable_unified_memory")
		if pu == du {
			return nil
		}
		before, after := sideFix(p, d, []string{"enable_unified_memory"}, nil, []Set{To("enable_unified_memory", "")})
		if du {
			before, after = sideFix(p, d, []string{"enable_unified_memory"}, []Set{To("enable_unified_memory", "")}, nil)
		}
		msg := "--enable-unified-memory is set on one side only: the unified pool's KV layout differs from the other side's, and transfers fail with \"PD KV layout mismatch\""
		return []Issue{p.pairIssue(d, "sglang/pd-unified-memory-mismatch", msg, before, after, "enable_unified_memory")}
	}},
	{"sglang/pd-minimax-sparse-hetero-tp", func(p, d *env) []Issue {
		if !attnTP().Applies(p.m, d.m) {
			return nil
		}
		return heteroTP(p, d, attnTP().Record,
			fmt.Sprintf("the model is %s: the prefill server fails every request's KV transfer with \"RuntimeError: PD disagg: heterogeneous TP not supported for MiniMax sparse index yet.\"",
				sparseModel(p, d).describe("MiniMax sparse-attention model")))
	}},
	{"sglang/pd-hetero-tp-unsupported", func(p, d *env) []Issue {
		if attnTP().Applies(p.m, d.m) {
			return nil // the MiniMax rule says it
		}
		switch {
		case p.m.HybridState != "":
			return heteroTP(p, d, "sglang/pd-hetero-tp-unsupported",
				fmt.Sprintf("the model is %s, whose %s state cannot be resharded between TP sizes: every request's transfer fails", p.m.describe("hybrid model without MLA"), p.m.HybridState))
		case p.c.On("enable_unified_memory") || d.c.On("enable_unified_memory"):
			return heteroTP(p, d, "sglang/pd-hetero-tp-unsupported",
				"with --enable-unified-memory the whole-envelope state cannot be TP-resliced, and every request's transfer fails")
		}
		return nil
	}},
}

func sparseModel(p, d *env) *Model {
	if p.m.MiniMaxSparse {
		return p.m
	}
	return d.m
}

// attnTP is the attention-TP row of PDAgreements.
func attnTP() *PDSetting { return PDAgreement("attention_tp_size") }

// heteroTP reports prefill and decode attention-TP sizes that differ; the
// fix gives decode the prefill's parallel flags.
func heteroTP(p, d *env, id, consequence string) []Issue {
	pa, da, bad := attnTP().Disagree(p.c, d.c)
	if !bad {
		return nil
	}
	show := []string{"tp_size"}
	for _, dest := range parallelDests[1:] {
		if p.c.Given(dest) || d.c.Given(dest) {
			show = append(show, dest)
		}
	}
	changes := copyChanges(p.c, show...)
	if !p.c.Given("tp_size") {
		changes[0] = To("tp_size", p.c.IntOr("tp_size", 1))
	}
	before, after := sideFix(p, d, show, nil, changes)
	msg := fmt.Sprintf("attention TP is %v on prefill (%s) and %v on decode (%s); %s",
		pa, attnTPText(p.c), da, attnTPText(d.c), consequence)
	return []Issue{p.pairIssue(d, id, msg, before, after, show...)}
}

// attnTPText says how a command's attention-TP size comes about.
func attnTPText(c *Command) string {
	s := fmt.Sprintf("tp %d", c.IntOr("tp_size", 1))
	if c.On("enable_dp_attention") && c.IntOr("dp_size", 1) > 1 {
		s += fmt.Sprintf(" / dp %d with DP attention", c.IntOr("dp_size", 1))
	}
	if cp := c.IntOr("attn_cp_size", 1); cp > 1 {
		s += fmt.Sprintf(" / attn-cp %d", cp)
	}
	return s
}

// ModelName is the name a model path ends in, to compare the models of
// two servers whose paths may differ by directory (a hub name on one, a
// local copy on the other).
func ModelName(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndex(p, "/"); i >= 0 {
		p = p[i+1:]
	}
	return strings.ToLower(p)
}

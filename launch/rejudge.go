package launch

import (
	"regexp"
	"strings"

	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/pyrepr"
)

// ruleSettings are the settings the rules read: a command made of a
// server's values of them is judged by the rules as its own would be.
var ruleSettings = []string{"model_path", "tp_size", "dp_size", "pp_size", "ep_size", "nnodes", "enable_dp_attention",
	"moe_a2a_backend", "disaggregation_mode", "disaggregation_transfer_backend", "page_size", "chunked_prefill_size",
	"speculative_algorithm", "speculative_eagle_topk", "enable_hierarchical_cache", "disable_radix_cache",
	"attention_backend", "kv_cache_dtype", "mem_fraction_static", "enable_mixed_chunk", "served_model_name",
	"quantization", "dcp_size", "disaggregation_decode_enable_radix_cache"}

// Rejudge judges a change to a server's command, given as a fix's before
// and after (launch flags, as a remedy shows them): the server's
// configuration with before applied is what it runs when its error
// happens, and with after in before's place is what the fix makes of it.
// It returns the rules' problems the changed command has that the first
// does not: what the change alone would make sglang stop with. Flags of
// before that after does not pass are dropped.
func Rejudge(cfg Lookup, before, after []string, table *patterns.FlagTable) []Issue {
	was, err := Parse(commandFrom(cfg, nil, before, table), "server", table)
	if err != nil {
		return nil
	}
	now, err := Parse(commandFrom(cfg, before, after, table), "server", table)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	for _, is := range Check(was, Options{}) {
		seen[is.ID] = true
	}
	var out []Issue
	for _, is := range Check(now, Options{}) {
		if !seen[is.ID] && is.ID != idRepeated {
			out = append(out, is)
		}
	}
	return out
}

// commandFrom writes a server's rule settings as a launch command, then
// drop's flags removed and add's flags in place of the settings they set.
func commandFrom(cfg Lookup, drop, add []string, table *patterns.FlagTable) []string {
	words := []string{"python", "-m", "sglang.launch_server"}
	replaced := map[string]bool{}
	for _, args := range [][]string{drop, add} {
		for _, w := range args {
			name, _, _ := strings.Cut(w, "=")
			if fl := table.Lookup(name); fl != nil && strings.HasPrefix(w, "-") {
				replaced[fl.Dest] = true
			}
		}
	}
	for _, dest := range ruleSettings {
		fl := table.Lookup(dest)
		v, ok := cfg.Lookup(dest)
		if fl == nil || !ok || v == nil || v == false || replaced[dest] {
			continue
		}
		if v == true {
			if !fl.TakesValue() {
				words = append(words, fl.Names[0])
			}
			continue
		}
		words = append(words, fl.Names[0], pyrepr.FlagText(v))
	}
	return append(words, add...)
}

// FixArgs returns the words of a fix's command line (a remedy's before or
// after) that sglang's launch_server would parse: its --flags, split as a
// shell splits them, each with the value it takes when the table says it
// takes one. A fragment ("--tp-size 8 --disable-custom-all-reduce") is
// sglang's; so is what follows sglang.launch_server or sglang serve.
// Another program's flags (docker, pip, huggingface-cli, vLLM, wsl, nvidia-smi, the router's
// own launcher, sglang-jax) and the router's --router-* flags are not, nor
// are the words of a comment in parentheses.
func FixArgs(cmdline string, table *patterns.FlagTable) []string {
	words, err := Split(strings.NewReplacer("…", " ", "(", " ( ", ")", " ) ").Replace(cmdline))
	if err != nil {
		return nil
	}
	var out []string
	ours, depth := true, 0
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch base := w[strings.LastIndexByte(w, '/')+1:]; {
		case w == "(":
			depth++
		case w == ")":
			depth = max(0, depth-1)
		case w == "sglang.launch_server", base == "sglang" && i+1 < len(words) && words[i+1] == "serve",
			w == "sglang_router.launch_server":
			ours = true
		case w == "docker", base == "huggingface-cli", base == "hf", base == "pip", base == "vllm", base == "wsl", base == "nvidia-smi",
			w == "sglang_router.launch_router", strings.HasSuffix(w, "launch_router"), w == "router:",
			w == "sgl_jax.launch_server":
			ours = false
		}
		name, _, eq := strings.Cut(w, "=")
		if !ours || depth > 0 || !fixFlagRE.MatchString(w) || strings.HasPrefix(w, "--router-") {
			continue
		}
		out = append(out, w)
		if fl := table.Lookup(name); fl != nil && fl.TakesValue() && !eq && i+1 < len(words) &&
			!strings.HasPrefix(words[i+1], "--") && words[i+1] != "(" {
			i++
			out = append(out, words[i])
		}
	}
	return out
}

var fixFlagRE = regexp.MustCompile(`^--[a-z0-9][a-z0-9-]*(?:=\S*)?$`)

package launch

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/patterns"
)

func flagTable(t testing.TB) *patterns.FlagTable {
	t.Helper()
	table, err := patterns.Flags()
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// parse splits and parses a command line, failing the test on error.
func parse(t testing.TB, line string) *Command {
	t.Helper()
	words, err := Split(line)
	if err != nil {
		t.Fatalf("Split(%q): %v", line, err)
	}
	c, err := Parse(words, "command line", flagTable(t))
	if err != nil {
		t.Fatalf("Parse(%q): %v", line, err)
	}
	return c
}

func issueIDs(issues []Issue) []string {
	var ids []string
	for _, is := range issues {
		ids = append(ids, is.ID)
	}
	return ids
}

const model = " --model-path Qwen/Qwen3-8B"

func TestParseSyntax(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		prefix string
		env    map[string]string
		values map[string]string // dest → Str
	}{
		{"python -m", "python -m sglang.launch_server --tp-size 4" + model, "python -m sglang.launch_server", nil,
			map[string]string{"tp_size": "4", "model_path": "Qwen/Qwen3-8B"}},
		{"python3 with interpreter flags", "python3 -u -X dev -m sglang.launch_server --tp 2" + model, "python3 -u -X dev -m sglang.launch_server", nil,
			map[string]string{"tp_size": "2"}},
		{"python3.11 path", "/usr/bin/python3.11 -m sglang.launch_server --pp-size 2" + model, "/usr/bin/python3.11 -m sglang.launch_server", nil,
			map[string]string{"pp_size": "2"}},
		{"sglang serve", "sglang serve --model Qwen/Qwen3-8B --dp 2", "sglang serve", nil,
			map[string]string{"model_path": "Qwen/Qwen3-8B", "dp_size": "2"}},
		{"launch_server.py", "python /opt/sglang/python/sglang/launch_server.py --page-size 64" + model, "python /opt/sglang/python/sglang/launch_server.py", nil,
			map[string]string{"page_size": "64"}},
		{"launch_server.py alone", "./launch_server.py" + model, "./launch_server.py", nil, nil},
		{"flags alone", "--tp 2" + model, "", nil, map[string]string{"tp_size": "2"}},
		{"env assignments", "CUDA_VISIBLE_DEVICES=0,1 SGLANG_MINICPM_FORCE_DENSE=1 python -m sglang.launch_server" + model,
			"python -m sglang.launch_server", map[string]string{"CUDA_VISIBLE_DEVICES": "0,1", "SGLANG_MINICPM_FORCE_DENSE": "1"}, nil},
		{"env and nohup", "env A=1 nohup sglang serve" + model, "sglang serve", map[string]string{"A": "1"}, nil},
		{"--flag=value", "sglang serve --tp-size=8 --attention-backend=fa3" + model, "sglang serve", nil,
			map[string]string{"tp_size": "8", "attention_backend": "fa3"}},
		{"aliases", "sglang serve --tensor-parallel-size 4 --data-parallel-size 2" + model, "sglang serve", nil,
			map[string]string{"tp_size": "4", "dp_size": "2"}},
		{"store_true", "sglang serve --enable-dp-attention --trust-remote-code --tp 2" + model, "sglang serve", nil,
			map[string]string{"enable_dp_attention": "true", "trust_remote_code": "true", "tp_size": "2", "disable_radix_cache": "false"}},
		{"BooleanOptional --no-", "sglang serve --no-lora-strict-loading" + model, "sglang serve", nil,
			map[string]string{"lora_strict_loading": "false"}},
		{"nargs +", "sglang serve --cuda-graph-bs-decode 1 2 4 8 --tp 2" + model, "sglang serve", nil,
			map[string]string{"cuda_graph_bs_decode": "1 2 4 8", "tp_size": "2"}},
		{"nargs * empty", "sglang serve --lora-paths --tp 2" + model, "sglang serve", nil,
			map[string]string{"lora_paths": "", "tp_size": "2"}},
		{"nargs ? without value", "sglang serve --model-checksum --tp 2" + model, "sglang serve", nil,
			map[string]string{"tp_size": "2"}},
		{"negative number is a value", "sglang serve --chunked-prefill-size -1" + model, "sglang serve", nil,
			map[string]string{"chunked_prefill_size": "-1"}},
		{"defaults", "sglang serve" + model, "sglang serve", nil,
			map[string]string{"tp_size": "1", "disaggregation_mode": "null", "kv_cache_dtype": "auto", "disaggregation_transfer_backend": "mooncake", "page_size": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parse(t, tt.line)
			if c.Prefix != tt.prefix {
				t.Errorf("prefix = %q, want %q", c.Prefix, tt.prefix)
			}
			if tt.env == nil {
				tt.env = map[string]string{}
			}
			if !maps.Equal(c.Env, tt.env) {
				t.Errorf("env = %v, want %v", c.Env, tt.env)
			}
			for dest, want := range tt.values {
				if got := c.Str(dest); got != want {
					t.Errorf("Str(%s) = %q, want %q", dest, got, want)
				}
			}
			if len(c.issues) > 0 {
				t.Errorf("unexpected issues: %+v", c.issues)
			}
		})
	}
}

func TestParseNotLaunch(t *testing.T) {
	for _, line := range []string{"", "A=1", "vllm serve Qwen/Qwen3-8B", "python -m vllm.entrypoints.openai.api_server", "python train.py", "sglang bench",
		"docker run --rm alpine echo sglang", "docker run -it lmsysorg/sglang:latest bash", "srun -N 2 python train.py --model-path m",
		"bash -c 'echo sglang'", "docker run vllm/vllm-openai --model-path m"} {
		words, _ := Split(line)
		if _, err := Parse(words, "command line", flagTable(t)); !errors.Is(err, ErrNotLaunch) {
			t.Errorf("Parse(%q) error = %v, want ErrNotLaunch", line, err)
		}
	}
}

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		id      string
		message string // a part of the message
		before  string
		after   string
	}{
		{"typo", "--tp-szie 4", idUnrecognized, "did you mean --tp-size?", "--tp-szie 4", "--tp-size 4"},
		{"underscores", "--tp_size 4", idUnrecognized, "did you mean --tp-size?", "--tp_size 4", "--tp-size 4"},
		{"underscores in a long flag", "--reasoning_parser qwen3", idUnrecognized, "did you mean --reasoning-parser?", "--reasoning_parser qwen3", "--reasoning-parser qwen3"},
		{"underscored switch keeps the next flag", "--enable_dp_attention --tp 2", idUnrecognized, "did you mean --enable-dp-attention?", "--enable_dp_attention", "--enable-dp-attention"},
		{"another engine's flag", "--max-model-len 32768", idUnrecognized, "did you mean --context-length?", "--max-model-len 32768", "--context-length 32768"},
		{"nothing close", "--frobnicate-widgets 3", idUnrecognized, "not a flag of sglang's launch_server", "--frobnicate-widgets 3", ""},
		{"stray word", "--tp 2 extra", idUnrecognized, "unrecognized argument extra", "extra", ""},
		{"ambiguous prefix", "--enable-dp", idAmbiguous, "could match --enable-dp-attention", "--enable-dp", "--enable-dp-attention"},
		{"invalid choice", "--attention-backend flash_attn", idInvalidChoice, "invalid choice: 'flash_attn' (choose from triton,", "--attention-backend flash_attn", "--attention-backend fa3"},
		{"invalid choice, near miss", "--kv-cache-dtype fp8-e4m3", idInvalidChoice, "did you mean fp8_e4m3?", "--kv-cache-dtype fp8-e4m3", "--kv-cache-dtype fp8_e4m3"},
		{"invalid choice in =", "--disaggregation-mode=prefil", idInvalidChoice, "did you mean prefill?", "--disaggregation-mode=prefil", "--disaggregation-mode=prefill"},
		{"bad int", "--tp-size abc", idInvalidValue, "argument --tp-size/--tensor-parallel-size: invalid int value: 'abc'", "--tp-size abc", "--tp-size TP_SIZE"},
		{"bad float", "--mem-fraction-static 0,85", idInvalidValue, "invalid float value: '0,85'", "--mem-fraction-static 0,85", ""},
		{"bad JSON", "--preferred-sampling-params {a:1}", idInvalidValue, "invalid loads value: '{a:1}'", "", ""},
		{"bad JSON in a string flag", "--json-model-override-args {a:1}", idInvalidValue, "is not JSON", "", ""},
		{"bad int in a list", "--cuda-graph-bs-decode 1 2 x", idInvalidValue, "invalid int value: 'x'", "", ""},
		{"missing value", "--tp-size --pp-size 2", idInvalidValue, "expected one argument", "--tp-size", ""},
		{"missing value at the end", "--model-path", idInvalidValue, "expected one argument", "", ""},
		{"value given to a switch", "--trust-remote-code=true", idInvalidValue, "ignored explicit argument 'true'", "--trust-remote-code=true", "--trust-remote-code"},
		{"repeated", "--tp 4 --tensor-parallel-size 8", idRepeated, "--tp-size is given twice (--tp 4, then --tensor-parallel-size 8)", "--tp 4 --tensor-parallel-size 8", "--tensor-parallel-size 8"},
		{"deprecated with replacement", "--cuda-graph-max-bs 256", idDeprecated, "--cuda-graph-max-bs is deprecated; use --cuda-graph-max-bs-decode instead", "--cuda-graph-max-bs 256", "--cuda-graph-max-bs-decode 256"},
		{"deprecated switch with a value replacement", "--enable-flashinfer-allreduce-fusion", idDeprecated, "use --flashinfer-allreduce-fusion-backend=auto instead", "", "--flashinfer-allreduce-fusion-backend auto"},
		{"deprecated switch", "--enable-prefill-context-parallel", idDeprecated, "use --enable-prefill-cp instead", "", "--enable-prefill-cp"},
		{"deprecated without replacement", "--disable-fast-image-processor", idDeprecated, "sglang names no replacement", "", ""},
		{"removed", "--enable-expert-distribution-metrics", idDeprecated, "has been removed", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parse(t, "sglang serve"+model+" "+tt.line)
			var found *Issue
			for i := range c.issues {
				if c.issues[i].ID == tt.id {
					found = &c.issues[i]
				}
			}
			if found == nil {
				t.Fatalf("no %s issue; got %+v", tt.id, c.issues)
			}
			if !strings.Contains(found.Message, tt.message) {
				t.Errorf("message = %q, want it to contain %q", found.Message, tt.message)
			}
			if tt.before != "" && found.Before != tt.before {
				t.Errorf("before = %q, want %q", found.Before, tt.before)
			}
			if tt.after != "" && found.After != tt.after {
				t.Errorf("after = %q, want %q", found.After, tt.after)
			}
		})
	}
}

func TestParseValidValues(t *testing.T) {
	// Values Python's int() and float() and sglang's own types accept.
	for _, line := range []string{
		"--tp-size +4", "--tp-size 0_8", "--tp-size 007", "--mem-fraction-static .85", "--mem-fraction-static 1e-1",
		"--mem-fraction-static inf", "--context-length 128k", "--context-length 32Ki", "--context-length 1.5M",
		"--json-model-override-args '{\"rope_scaling\": {\"factor\": 4}}'", "--attention-backend minicpm_flashattn",
		"--dp-size 2", "--served-model-name ''",
	} {
		c := parse(t, "sglang serve"+model+" "+line)
		if len(c.issues) > 0 {
			t.Errorf("%s: unexpected issues %+v", line, c.issues)
		}
	}
}

func TestSuggestDistance(t *testing.T) {
	tests := []struct{ a, b string }{{"abc", "abc"}, {"tp-szie", "tp-size"}, {"kitten", "sitting"}, {"", "ab"}}
	want := []int{0, 1, 3, 2}
	for i, tt := range tests {
		if got := distance(tt.a, tt.b, 10); got != want[i] {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, want[i])
		}
	}
	if got := closest("--tp-szie", []string{"--pp-size", "--tp-size"}, 2); got != "--tp-size" {
		t.Errorf("closest = %q", got)
	}
}

// TestSuggestLimit guards the did-you-mean limit: a misspelling as many
// edits from a flag as its length allows (1 up to 4 letters, 2 up to 12,
// then 3) is given that flag, one edit more is given none.
func TestSuggestLimit(t *testing.T) {
	c := parse(t, "sglang serve"+model)
	tests := []struct {
		typo, near string
		edits      int
		suggested  bool
	}{
		{"--prot", "--port", 1, true},
		{"--pxrx", "--port", 2, false},
		{"--porxx", "--port", 2, true},
		{"--xp-sxze", "--tp-size", 2, true},
		{"--xq-sxze", "--tp-size", 3, false},
		{"--kontext-lenxtx", "--context-length", 3, true},
		{"--kontxxt-lenxtx", "--context-length", 4, false},
	}
	for _, tt := range tests {
		if d := distance(tt.typo, tt.near, 10); d != tt.edits {
			t.Fatalf("%s is %d edits from %s, want %d", tt.typo, d, tt.near, tt.edits)
		}
		var got string
		if fl := c.suggest(tt.typo); fl != nil {
			got = fl.Names[0]
		}
		want := ""
		if tt.suggested {
			want = tt.near
		}
		if got != want {
			t.Errorf("suggest(%s), %d edits from %s = %q, want %q", tt.typo, tt.edits, tt.near, got, want)
		}
	}
}

func TestFix(t *testing.T) {
	c := parse(t, "sglang serve"+model+" --disaggregation-mode prefill --tp 4 --pp-size 2 --trust-remote-code")
	before, after := c.Fix([]string{"disaggregation_mode", "tp_size", "pp_size", "dp_size"},
		To("tp_size", 8), To("pp_size", 1), To("dp_size", 2), To("enable_dp_attention", ""), Drop("trust_remote_code"))
	if want := "--disaggregation-mode prefill --tp 4 --pp-size 2 --trust-remote-code"; before != want {
		t.Errorf("before = %q, want %q", before, want)
	}
	if want := "--disaggregation-mode prefill --tp 8 --pp-size 1 --dp-size 2 --enable-dp-attention"; after != want {
		t.Errorf("after = %q, want %q", after, want)
	}
	if got := slices.Collect(maps.Keys(c.Env)); len(got) != 0 {
		t.Errorf("env = %v", got)
	}
}

// An unknown flag with no known flag close to it may be a newer release's:
// a warning that names the release the table is of. A typo of a known flag
// stays an error.
func TestUnknownFlagOfANewerRelease(t *testing.T) {
	c := parse(t, "sglang serve"+model+" --enable-lean-attention --tp-szie 2")
	sev := map[string]patterns.Severity{}
	for _, is := range c.issues {
		sev[is.Before] = is.Severity
		if is.Before == "--enable-lean-attention" && !strings.Contains(is.Message, "newer than that may have it") {
			t.Errorf("message %q", is.Message)
		}
	}
	if sev["--enable-lean-attention"] != patterns.SeverityWarning || sev["--tp-szie 2"] != 0 {
		t.Errorf("severities %v: want a warning for the unknown flag, the record's for the typo", sev)
	}
}

// A launch command run by a container, a job launcher or a shell is found
// inside it, with the environment the wrapper gives it.
func TestParseInsideWrapper(t *testing.T) {
	tests := []struct {
		line, wrapper, prefix, model string
		env                          map[string]string
	}{
		{"docker run --gpus all --shm-size 32g -e HF_TOKEN=x --env=SGLANG_A=1 -eSGLANG_B=2 -e PASSED -p 30000:30000 lmsysorg/sglang:v0.4.6 python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B",
			"docker run --gpus all --shm-size 32g -e HF_TOKEN=x --env=SGLANG_A=1 -eSGLANG_B=2 -e PASSED -p 30000:30000 lmsysorg/sglang:v0.4.6", "python3 -m sglang.launch_server", "Qwen/Qwen3-8B",
			map[string]string{"HF_TOKEN": "x", "SGLANG_A": "1", "SGLANG_B": "2"}},
		{"podman run --env NCCL_DEBUG=INFO img sglang serve --model-path m", "podman run --env NCCL_DEBUG=INFO img", "sglang serve", "m",
			map[string]string{"NCCL_DEBUG": "INFO"}},
		{"CUDA_VISIBLE_DEVICES=0,1 srun -N 1 --gpus 8 uv run python -m sglang.launch_server --model-path m", "srun -N 1 --gpus 8 uv run", "python -m sglang.launch_server", "m",
			map[string]string{"CUDA_VISIBLE_DEVICES": "0,1"}},
		{"docker run img env SGLANG_X=1 TORCH_Y=2 python3 -m sglang.launch_server --model-path m", "docker run img", "python3 -m sglang.launch_server", "m",
			map[string]string{"SGLANG_X": "1", "TORCH_Y": "2"}},
		{`bash -c "NCCL_IB_DISABLE=1 nohup python -m sglang.launch_server --model-path m --port 30000"`, "bash -c", "python -m sglang.launch_server", "m",
			map[string]string{"NCCL_IB_DISABLE": "1"}},
		{`kubectl exec -it sglang-0 -- sh -c 'python3 /sgl/python/sglang/launch_server.py --model-path m'`, "kubectl exec -it sglang-0 -- sh -c", "python3 /sgl/python/sglang/launch_server.py", "m",
			map[string]string{}},
	}
	for _, tc := range tests {
		c := parse(t, tc.line)
		if c.Wrapper != tc.wrapper || c.Prefix != tc.prefix || c.Str("model_path") != tc.model {
			t.Errorf("%s:\n wrapper %q prefix %q model %q\n want    %q        %q       %q", tc.line, c.Wrapper, c.Prefix, c.Str("model_path"), tc.wrapper, tc.prefix, tc.model)
		}
		if !maps.Equal(c.Env, tc.env) {
			t.Errorf("%s: env %v, want %v", tc.line, c.Env, tc.env)
		}
	}
}

func TestImageRelease(t *testing.T) {
	tests := []struct {
		line, release string
		inImage       bool
	}{
		{"docker run --gpus all lmsysorg/sglang:v0.4.6.post1-cu124 python3 -m sglang.launch_server", "0.4.6.post1", true},
		{"podman run -e A=1 docker.io/lmsysorg/sglang:0.5.3rc2-rocm630-mi30x sglang serve", "0.5.3rc2", true},
		{"docker run lmsysorg/sglang:latest python3 -m sglang.launch_server", "", true},
		{"docker run lmsysorg/sglang python3 -m sglang.launch_server", "", true},
		{"docker run registry.local:5000/team/sglang-custom:v0.5.8 python3 -m sglang.launch_server", "0.5.8", true},
		{"docker run my/llm:v1.2.3 python3 -m sglang.launch_server", "", true},
		{"docker run my/llm:v1.2.3 python3 /opt/sglang:v0.4.6/launch_server.py", "", true},
		{"srun lmsysorg/sglang:v0.4.6 python3 -m sglang.launch_server", "", false},
		{"python3 -m sglang.launch_server --model-path lmsysorg/sglang:v0.4.6", "", false},
	}
	for _, tc := range tests {
		words, _ := Split(tc.line)
		if release, in := ImageRelease(words); release != tc.release || in != tc.inImage {
			t.Errorf("ImageRelease(%q) = %q, %v; want %q, %v", tc.line, release, in, tc.release, tc.inImage)
		}
	}
}

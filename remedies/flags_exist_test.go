package remedies

import (
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/patterns"
)

// sglangFlags returns the flags an example command line passes to sglang's
// launch_server: every --flag of a bare fragment ("--tp-size 8
// --disable-custom-all-reduce") or after sglang.launch_server or sglang
// serve, none of another program's (docker, huggingface-cli, the router's
// own launcher and its --router-* flags).
func sglangFlags(cmdline string) []string {
	var out []string
	ours := true
	words := strings.Fields(cmdline)
	for i, w := range words {
		switch base := path.Base(w); {
		case w == "sglang.launch_server", base == "sglang" && i+1 < len(words) && words[i+1] == "serve":
			ours = true
		case w == "docker", base == "huggingface-cli", base == "hf", base == "pip", base == "vllm",
			w == "sglang_router.launch_router", w == "router:", strings.HasSuffix(w, "launch_router"):
			ours = false
		case w == "sglang_router.launch_server":
			ours = true // sglang's flags, and the router's --router-* ones
		}
		if !ours || !flagWordRE.MatchString(w) || strings.HasPrefix(w, "--router-") {
			continue
		}
		name, _, _ := strings.Cut(w, "=")
		out = append(out, name)
	}
	return out
}

var flagWordRE = regexp.MustCompile(`^--[a-z0-9][a-z0-9-]*(?:=\S*)?$`)

func TestSglangFlags(t *testing.T) {
	tests := map[string]string{
		"--tp-size 8 --disable-custom-all-reduce   (or docker run --ipc=host …)":                                     "--tp-size --disable-custom-all-reduce",
		"docker run --gpus all -e HF_TOKEN lmsysorg/sglang python -m sglang.launch_server --model-path m --tp 2":     "--model-path --tp",
		"huggingface-cli download Qwen/Qwen3-8B --local-dir /models/x   then  sglang serve --model-path /models/x":   "--model-path",
		"python -m sglang_router.launch_server --model-path m --dp-size 8 --router-worker-startup-timeout-secs 1800": "--model-path --dp-size",
		"router: --prefill http://10.0.0.1:30000 8998":                                                               "",
	}
	for in, want := range tests {
		if got := strings.Join(sglangFlags(in), " "); got != want {
			t.Errorf("sglangFlags(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every sglang flag an example fix of a hand-written record passes exists
// in the newest release's flag table: a remedy never tells a user to pass
// a flag sglang does not have.
func TestRemedyFlagsExist(t *testing.T) {
	pack, err := patterns.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	table, err := patterns.Flags()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range pack.Records {
		if r.Gen != nil || r.Fix.After == "" || !strings.HasPrefix(r.ID, "sglang/") {
			continue // other engines' records name their own flags
		}
		after, _ := Render(r.Fix.After, nil)
		for _, f := range sglangFlags(after) {
			checked++
			if table.Lookup(f) == nil {
				t.Errorf("%s: the fix passes %s, which sglang %s does not have: %q", r.ID, f, table.Release, after)
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d flags checked", checked)
	}
}

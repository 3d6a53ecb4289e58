package remedies

import (
	"strings"
	"testing"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
)

// sglangFlags returns the flags of a fix's command line that sglang's
// launch_server would parse (launch.FixArgs), without their values.
func sglangFlags(cmdline string) []string {
	table, err := patterns.Flags()
	if err != nil {
		panic(err)
	}
	var out []string
	for _, w := range launch.FixArgs(cmdline, table) {
		if strings.HasPrefix(w, "--") {
			name, _, _ := strings.Cut(w, "=")
			out = append(out, name)
		}
	}
	return out
}

func TestSglangFlags(t *testing.T) {
	tests := map[string]string{
		"--tp-size 8 --disable-custom-all-reduce   (or docker run --ipc=host …)":                                            "--tp-size --disable-custom-all-reduce",
		"docker run --gpus all -e HF_TOKEN lmsysorg/sglang python -m sglang.launch_server --model-path m --tp 2":            "--model-path --tp",
		"huggingface-cli download Qwen/Qwen3-8B --local-dir /models/x   then  sglang serve --model-path /models/x":          "--model-path",
		"python -m sglang_router.launch_server --model-path m --dp-size 8 --router-worker-startup-timeout-secs 1800":        "--model-path --dp-size",
		"router: --prefill http://10.0.0.1:30000 8998":                                                                      "",
		"wsl --shutdown  (after raising memory=)  then CUDA_VISIBLE_DEVICES=0,1 python -m sglang.launch_server --tp-size 2": "--tp-size",
		"JAX_PLATFORMS=cpu python -m sgl_jax.launch_server --model-path m --attention-backend native":                       "",
		"--page-size 16   (stopgap: --page-size 1, or --disable-radix-cache on hybrid models)":                              "--page-size",
	}
	for in, want := range tests {
		if got := strings.Join(sglangFlags(in), " "); got != want {
			t.Errorf("sglangFlags(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every example fix of a hand-written sglang record, rendered, passes
// check against the newest release: no flag it passes is unknown, and no
// value it gives is outside the flag's choices. Against an older release,
// a fix whose flags that release lacks is not shown as a change to make:
// its remedy says which releases have them.
func TestRemedyFixesPassCheck(t *testing.T) {
	pack, newest := builtin(t)
	h, err := patterns.FlagHistories()
	if err != nil {
		t.Fatal(err)
	}
	oldest, _ := h.Index("0.4.0")
	old := newest.At(h, oldest)
	judged, dropped := 0, 0
	for _, r := range pack.Records {
		if r.Gen != nil || r.Fix.After == "" || !strings.HasPrefix(r.ID, "sglang/") {
			continue
		}
		after, _ := Render(r.Fix.After, nil)
		args := launch.FixArgs(after, newest)
		if len(args) == 0 {
			continue
		}
		judged++
		for _, is := range launch.Judge(args, newest) {
			switch is.ID {
			case "sglang/unrecognized-arguments", "sglang/invalid-choice":
				t.Errorf("%s: the fix %q does not pass check of sglang %s: %s", r.ID, after, newest.Release, is.Message)
			}
		}
		rem := For(&diagnose.Finding{ID: r.ID, Record: r, Flags: old})
		var lacking []string
		for _, f := range sglangFlags(after) {
			if _, lacks := old.Lacks(f); lacks {
				lacking = append(lacking, f)
			}
		}
		if len(lacking) == 0 {
			continue
		}
		dropped++
		if rem.After != "" || len(rem.Worked) == 0 || !strings.Contains(strings.Join(rem.Worked, " "), lacking[0]) {
			t.Errorf("%s: sglang %s lacks %v, yet the fix shows %q, with notes %q", r.ID, old.Release, lacking, rem.After, rem.Worked)
		}
	}
	if judged < 100 || dropped < 5 {
		t.Errorf("only %d fixes judged, %d of them not for sglang %s", judged, dropped, old.Release)
	}
	t.Logf("%d fixes judged against sglang %s; %d pass flags sglang %s lacks", judged, newest.Release, dropped, old.Release)
}

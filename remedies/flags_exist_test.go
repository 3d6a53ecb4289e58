package remedies

import (
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
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
			w == "sglang_router.launch_router", w == "router:", strings.HasSuffix(w, "launch_router"),
			w == "sgl_jax.launch_server": // sglang-jax has flags and choices of its own
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
		"JAX_PLATFORMS=cpu python -m sgl_jax.launch_server --model-path m --attention-backend native":                "",
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

// sglangArgs returns the words of an example command line that sglang's
// launch_server would parse: each of its --flags (see sglangFlags), split
// as a shell splits them, with the value the flag takes when it takes one.
func sglangArgs(cmdline string, table *patterns.FlagTable) []string {
	ours := map[string]bool{}
	for _, f := range sglangFlags(cmdline) {
		ours[f] = true
	}
	words, err := launch.Split(strings.NewReplacer("…", " ", "(", " ", ")", " ").Replace(cmdline))
	if err != nil {
		return nil
	}
	var out []string
	for i := 0; i < len(words); i++ {
		name, _, eq := strings.Cut(words[i], "=")
		if !ours[name] {
			continue
		}
		out = append(out, words[i])
		if fl := table.Lookup(name); fl != nil && fl.TakesValue() && !eq && i+1 < len(words) && !strings.HasPrefix(words[i+1], "--") {
			i++
			out = append(out, words[i])
		}
	}
	return out
}

// Every example fix of a hand-written sglang record, rendered, passes
// check against the newest release: no flag it passes is unknown, and no
// value it gives is outside the flag's choices. Against an older release,
// a fix whose flags that release lacks is not shown as a change to make:
// its remedy says which releases have them.
func TestRemedyFixesPassCheck(t *testing.T) {
	pack, err := patterns.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	newest, err := patterns.Flags()
	if err != nil {
		t.Fatal(err)
	}
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
		args := sglangArgs(after, newest)
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

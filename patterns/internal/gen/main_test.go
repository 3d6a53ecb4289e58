package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Regression: a message raised both by sglang's diffusion runtime and by
// the server was generated as one record named after its first site in
// file order, the diffusion runtime's (multimodal_gen sorts before srt),
// so server lines were shown as raised in multimodal_gen. And a message
// that only repeats Python's own (a __getattr__'s "'X' object has no
// attribute 'y'") named one site for every AttributeError of any code.
func TestMergedMessageNamesTheServerSite(t *testing.T) {
	dir := t.TempDir()
	sites := `{"file": "python/sglang/multimodal_gen/runtime/distributed/utils.py", "line": 28, "function": "ensure_divisibility", "qualname": "ensure_divisibility", "kind": "assert", "class": "AssertionError", "message": "{} is not divisible by {}", "message_regex": ".*? is not divisible by .*?", "condition": "numerator % denominator == 0", "guard": null, "commit": "c"}
{"file": "python/sglang/srt/distributed/utils.py", "line": 55, "function": "ensure_divisibility", "qualname": "ensure_divisibility", "kind": "assert", "class": "AssertionError", "message": "{} is not divisible by {}", "message_regex": ".*? is not divisible by .*?", "condition": "numerator % denominator == 0", "guard": null, "commit": "c"}
{"file": "python/sglang/srt/managers/schedule_batch.py", "line": 364, "function": "__getattr__", "qualname": "Req.__getattr__", "kind": "raise", "class": "AttributeError", "message": "'{self.__class__.__name__}' object has no attribute '{name}'", "message_regex": "'.*?' object has no attribute '.*?'", "condition": null, "guard": null, "commit": "c"}
{"file": "python/sglang/multimodal_gen/runtime/launch_server.py", "line": 274, "function": "launch_server", "qualname": "launch_server", "kind": "logger.error", "class": null, "message": "Rank {rank_offset + i} scheduler is dead. Please check if there are relevant logs.", "message_regex": "Rank .*? scheduler is dead\\. Please check if there are relevant logs\\.", "condition": null, "guard": null, "commit": "c"}
`
	if err := os.WriteFile(filepath.Join(dir, "sites.jsonl"), []byte(sites), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "args.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := run(filepath.Join(dir, "sites.jsonl"), filepath.Join(dir, "args.jsonl"), "", out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "sites.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Split(line, "\t"); line[0] != '#' {
			ids = append(ids, f[0]+" "+f[6]+":"+f[7]+" sites="+f[10])
		}
	}
	want := []string{
		// Only the diffusion runtime logs this one: its site names it.
		"sglang-src/multimodal_gen.runtime.launch_server/rank-scheduler-is-dead-please-check python/sglang/multimodal_gen/runtime/launch_server.py:274 sites=1",
		"sglang-src/srt.distributed.utils/is-not-divisible-by python/sglang/srt/distributed/utils.py:55 sites=2",
	}
	if strings.Join(ids, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(ids, "\n"), strings.Join(want, "\n"))
	}
}

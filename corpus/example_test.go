package corpus_test

import (
	"fmt"
	"strings"

	"github.com/tailfix/tailfix/corpus"
	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
)

func Example() {
	manifest := `{"file": "oom.log", "kind": "error", "expected_exception": "torch.OutOfMemoryError", "expected_message": "CUDA out of memory"}
{"file": "clean.log", "kind": "clean"}
`
	logs := map[string]string{
		"oom.log": `[2026-11-29 10:15:02 TP1] Scheduler hit an exception: Traceback (most recent call last):
  File "/x/model_runner.py", line 1090, in load_model
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.
`,
		"clean.log": "[2026-11-29 10:15:02 TP0] Load weight begin. avail mem=78.52 GB\n",
	}
	cases, err := corpus.ParseManifest(strings.NewReader(manifest), "manifest.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	pack, _ := patterns.Builtin()
	m, _ := matcher.Compile(pack)
	var sum corpus.Summary
	for _, c := range cases {
		data := []byte(logs[c.File])
		sess := diagnose.New(m, diagnose.Options{})
		if err := sess.Add(c.File, diagnose.SourceOptions{}).Scan(strings.NewReader(logs[c.File])); err != nil {
			fmt.Println(err)
			return
		}
		r := corpus.Score(c, data, sess.Findings())
		sum.Add(r)
		fmt.Printf("%s: %s\n", r.File, r.Verdict())
	}
	fmt.Printf("top-1 %d/%d (%.0f%%), false alarms %d/%d\n", sum.Top1, sum.Errors, sum.Top1Pct(), sum.FalseAlarms, sum.Clean)
	// Output:
	// oom.log: top-1
	// clean.log: quiet
	// top-1 1/1 (100%), false alarms 0/1
}

func ExampleParseManifest() {
	_, err := corpus.ParseManifest(strings.NewReader(`{"file": "a.log", "kind": "crashed"}`), "manifest.jsonl")
	fmt.Println(err)
	// Output:
	// manifest manifest.jsonl:1: kind "crashed" is neither error nor clean
}

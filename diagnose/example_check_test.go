package diagnose_test

import (
	"fmt"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
)

func ExampleFromIssues() {
	table, _ := patterns.Flags()
	pack, _ := patterns.Curated()
	cmd, err := launch.ParseText("python -m sglang.launch_server --model-path /models/MiniMax-M3-Sparse --disaggregation-mode prefill --tp-size 4 --pp-size 2",
		"command line", table)
	if err != nil {
		fmt.Println(err)
		return
	}
	findings, err := diagnose.FromIssues(pack, launch.Check(cmd, launch.Options{}))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range findings {
		fmt.Printf("%s %s at %s\n  - %s\n  + %s\n", f.Severity, f.ID, f.Source, f.Record.Fix.Before, f.Record.Fix.After)
	}
	// Output:
	// error sglang/pd-minimax-sparse-pp at command line
	//   - --disaggregation-mode prefill --tp-size 4 --pp-size 2
	//   + --disaggregation-mode prefill --tp-size 8 --pp-size 1
}

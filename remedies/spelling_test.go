package remedies

import (
	"strings"
	"testing"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
)

// A fix shown for a server whose launch command is known writes its
// flags as that command did; flags it does not pass keep their usual
// name.
func TestFixInUsersSpelling(t *testing.T) {
	table := flagTable(t)
	cmd, err := launch.ParseText("python -m sglang.launch_server --model-path m --tp 4 --mem-fraction=0.9 --dp 2 --enable-dp-attention", "command", table)
	if err != nil {
		t.Fatal(err)
	}
	rec := &patterns.Record{ID: "t/x", Fix: patterns.Fix{
		Before: "--tp-size {tp_size|8} --mem-fraction-static {mem_fraction_static|0.8} --dp-size {dp_size|1} --enable-dp-attention",
		After:  "--tp-size {tp_size*2|16} --mem-fraction-static {mem_fraction_static-0.05|0.75} --dp-size {dp_size|1} --enable-dp-attention --pp-size 1",
	}}
	rem := For(&diagnose.Finding{ID: rec.ID, Record: rec, Config: cmd, Line: 3})
	if want := "--tp 4 --mem-fraction 0.9 --dp 2 --enable-dp-attention"; rem.Before != want {
		t.Errorf("before = %q, want %q", rem.Before, want)
	}
	if want := "--tp 8 --mem-fraction 0.85 --dp 2 --enable-dp-attention --pp-size 1"; rem.After != want {
		t.Errorf("after = %q, want %q", rem.After, want)
	}
	if rem.Example {
		t.Error("a fix wholly in the command's values is labelled an example")
	}
	// A switch the command does not pass makes the before an example.
	rec.Fix.Before += " --enable-mixed-chunk"
	if rem := For(&diagnose.Finding{ID: rec.ID, Record: rec, Config: cmd, Line: 3}); !rem.Example || !strings.Contains(rem.Before, "--enable-mixed-chunk") {
		t.Errorf("a before with a switch the server has off: %q, example %v", rem.Before, rem.Example)
	}
}

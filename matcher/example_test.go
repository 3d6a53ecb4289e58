package matcher_test

import (
	"fmt"
	"strings"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
)

func Example() {
	pack, _ := patterns.Builtin()
	m, _ := matcher.Compile(pack)
	eng := m.NewEngine("server.log", func(o matcher.Occurrence) {
		fmt.Printf("%s lines %d-%d rank %q\n", o.ID, o.Line, o.EndLine, o.Rank)
	})

	log := `[2026-08-28 11:02:41 TP1] Scheduler hit an exception: Traceback (most recent call last):
  File "/sglang/srt/managers/scheduler.py", line 5191, in run_scheduler_process
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB.

[2026-08-28 11:02:41] Received sigquit from a child process. It usually means the child failed.
`
	eng.Scan(strings.NewReader(log))
	// Output:
	// torch/cuda-oom lines 1-3 rank "TP1"
	// sglang/child-failed-sigquit lines 5-5 rank ""
}

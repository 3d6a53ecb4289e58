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
	corr := matcher.NewCorrelator()
	eng := m.NewEngine("server.log", func(o matcher.Occurrence) { corr.Add(o) })

	log := `[2026-08-28 11:02:41 TP1] Scheduler hit an exception: Traceback (most recent call last):
  File "/sglang/srt/managers/scheduler.py", line 5191, in run_scheduler_process
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB.

[2026-08-28 11:02:41] Received sigquit from a child process. It usually means the child failed.
`
	eng.Scan(strings.NewReader(log))
	for _, f := range corr.Findings() {
		fmt.Printf("%s line %d ranks %v root=%v symptom_of=%q\n", f.ID, f.Line, f.Ranks, f.RootCause, f.SymptomOf)
	}
	// Output:
	// torch/cuda-oom line 1 ranks [TP1] root=true symptom_of=""
	// sglang/child-failed-sigquit line 5 ranks [] root=false symptom_of="torch/cuda-oom"
}

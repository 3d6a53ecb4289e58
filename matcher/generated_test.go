package matcher

import (
	"testing"

	"github.com/tailfix/tailfix/patterns"
)

// genRecord is a record as the generated pack holds it: the message a
// site of sglang's source raises or logs, and where.
func genRecord(t *testing.T, id, kind, class, regex, file, sample string, role patterns.Role) *patterns.Record {
	t.Helper()
	needles, err := (&patterns.Record{Match: patterns.Match{Regex: regex}}).Needles()
	if err != nil {
		t.Fatal(err)
	}
	return &patterns.Record{
		ID: id, Title: id, Severity: patterns.SeverityError, Role: role,
		Match: patterns.Match{Exception: class, Regex: regex},
		Where: &patterns.Site{Repo: "sgl-project/sglang", File: file},
		Tests: patterns.Tests{Match: []string{sample}},
		Gen:   &patterns.Generated{Kind: kind, Template: regex, Needles: needles},
	}
}

// compileRecords compiles hand-written records (YAML) and generated ones
// into one matcher, in that order.
func compileRecords(t *testing.T, yaml string, gen ...*patterns.Record) *Matcher {
	t.Helper()
	recs, err := patterns.ParseYAML("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	pack, err := patterns.NewPack(append(recs, gen...))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Compile(pack)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const captureWrapperPack = `
- id: t/capture-failed
  title: capture failed
  severity: fatal
  role: wrapper
  match:
    exception: Exception
    regex: 'Capture cuda graph failed: (?P<cause>.*)'
  cause: c
  fix: {steps: [s]}
  tests: {match: ["Exception: Capture cuda graph failed: x"]}
`

const captureTraceback = `[2026-03-02 17:40:11 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py", line 390, in __init__
    self.capture()
Exception: Capture cuda graph failed: CUDA error: invalid argument
`

// Regression: the exception line of a traceback was looked up among the
// generated records whenever the hand-written record that knew it was a
// wrapper, so `Capture cuda graph failed: …` was named by its generated
// twin (the same message, with no advice) rather than by
// sglang/cuda-graph-capture-failed.
func TestHandWrittenWrapperBeatsItsGeneratedTwin(t *testing.T) {
	const file = "python/sglang/srt/model_executor/runner/decode_cuda_graph_runner.py"
	for _, role := range []patterns.Role{patterns.RoleWrapper, patterns.RoleCause} {
		twin := genRecord(t, "sglang-src/srt.model_executor.runner.decode_cuda_graph_runner/capture-cuda-graph-failed",
			"raise", "Exception", `Capture cuda graph failed: .*?`, file, "Exception: Capture cuda graph failed: x", role)
		m := compileRecords(t, captureWrapperPack, twin)
		for _, piece := range []int{0, 7} {
			got := occurrences(t, m, captureTraceback, piece)
			if len(got) != 1 || got[0].ID != "t/capture-failed" || got[0].Exception != "Exception" {
				t.Errorf("twin as %s, piece=%d: got %s, want t/capture-failed", role, piece, brief(got))
			}
		}
	}
}

// A hand-written wrapper still gives way to a generated cause of the
// exception it carries, raised earlier in the chain.
func TestHandWrittenWrapperGivesWayToTheRootCause(t *testing.T) {
	root := genRecord(t, "sglang-src/srt.distributed.device_communicators.custom_all_reduce/ipc-handles-could-not-be-opened",
		"raise", "RuntimeError", `IPC handles could not be opened on rank .*?`, "python/sglang/srt/distributed/device_communicators/custom_all_reduce.py", "RuntimeError: IPC handles could not be opened on rank x", patterns.RoleCause)
	m := compileRecords(t, captureWrapperPack, root)
	log := `Traceback (most recent call last):
  File "/x/custom_all_reduce.py", line 12, in register
RuntimeError: IPC handles could not be opened on rank 3

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/x/cuda_graph_runner.py", line 390, in __init__
Exception: Capture cuda graph failed: IPC handles could not be opened on rank 3
`
	got := occurrences(t, m, log, 0)
	if len(got) != 1 || got[0].ID != root.ID {
		t.Errorf("got %s, want %s", brief(got), root.ID)
	}
}

// Regression: sglang's diffusion runtime (multimodal_gen) repeats many of
// the server's messages, and its records, first in the pack, named lines
// the server prints: `16 is not divisible by 6` from a TP scheduler was
// reported as raised in multimodal_gen/runtime/distributed/utils.py.
func TestServerRecordBeatsDiffusionTwin(t *testing.T) {
	diffRaise := genRecord(t, "sglang-src/multimodal_gen.runtime.distributed.utils/is-not-divisible-by",
		"assert", "AssertionError", `.*? is not divisible by .*?`, "python/sglang/multimodal_gen/runtime/distributed/utils.py", "AssertionError: x is not divisible by x", patterns.RoleCause)
	srtRaise := genRecord(t, "sglang-src/srt.distributed.utils/is-not-divisible-by",
		"assert", "AssertionError", `.*? is not divisible by .*?`, "python/sglang/srt/distributed/utils.py", "AssertionError: x is not divisible by x", patterns.RoleCause)
	diffLog := genRecord(t, "sglang-src/multimodal_gen.runtime.launch_server/rank-scheduler-is-dead-please-check",
		"logger.error", "", `Rank .*? scheduler is dead\. Please check if there are relevant logs\.`, "python/sglang/multimodal_gen/runtime/launch_server.py", "Rank x scheduler is dead. Please check if there are relevant logs.", patterns.RoleCause)
	srtLog := genRecord(t, "sglang-src/srt.entrypoints.engine/rank-scheduler-is-dead-please-check",
		"logger.error", "", `Rank .*? scheduler is dead\. Please check if there are relevant logs\.`, "python/sglang/srt/entrypoints/engine.py", "Rank x scheduler is dead. Please check if there are relevant logs.", patterns.RoleCause)
	tests := []struct{ name, log, want string }{
		{"raised", `[2026-03-04 09:11:08 TP1] Scheduler hit an exception: Traceback (most recent call last):
  File "/usr/local/lib/python3.11/site-packages/sglang/srt/distributed/utils.py", line 23, in ensure_divisibility
    assert numerator % denominator == 0, "{} is not divisible by {}".format(
AssertionError: 16 is not divisible by 6
`, srtRaise.ID},
		{"logged", "[2026-01-02 10:00:01] Rank 0 scheduler is dead. Please check if there are relevant logs.\n", srtLog.ID},
	}
	// Either order in the pack: the diffusion record loses where it is
	// found first, and where it is found last.
	for _, order := range [][]*patterns.Record{{diffRaise, srtRaise, diffLog, srtLog}, {srtRaise, diffRaise, srtLog, diffLog}} {
		m := compileRecords(t, "[]", order...)
		for _, tt := range tests {
			got := occurrences(t, m, tt.log, 0)
			if len(got) != 1 || got[0].ID != tt.want {
				t.Errorf("%s, %s first: got %s, want %s", tt.name, order[0].ID, brief(got), tt.want)
			}
		}
	}
	// Where only the diffusion runtime has the message, its record names it.
	m := compileRecords(t, "[]", diffRaise, diffLog)
	if got := occurrences(t, m, tests[0].log, 0); len(got) != 1 || got[0].ID != diffRaise.ID {
		t.Errorf("diffusion only: got %s, want %s", brief(got), diffRaise.ID)
	}
}

// A wrapper stands for the error it introduces; when the traceback under
// it was cut before its exception line, what it wraps is missing, and the
// occurrence is partial, like the cut traceback it would otherwise be.
func TestWrapperOfCutTracebackIsPartial(t *testing.T) {
	const pack = `
- id: t/asgi
  title: asgi
  severity: error
  role: wrapper
  match: {message: "Exception in ASGI application"}
  cause: c
  fix: {steps: [s]}
  tests: {match: ["ERROR:    Exception in ASGI application"]}
`
	m := compileRecords(t, pack)
	head := "ERROR:    Exception in ASGI application\nTraceback (most recent call last):\n" +
		"  File \"/x/uvicorn/protocols/http/httptools_impl.py\", line 409, in run_asgi\n" +
		"    result = await app(\n"
	tests := []struct {
		log     string
		partial bool
		exc     string
	}{
		{head, true, ""},
		{head + "IndexError: list index out of range\n", false, "IndexError"},
	}
	for _, tt := range tests {
		got := occurrences(t, m, tt.log, 0)
		if len(got) != 1 || got[0].ID != "t/asgi" || got[0].Partial != tt.partial || got[0].Exception != tt.exc {
			t.Errorf("%q: got %s partial=%v, want t/asgi partial=%v exc=%q", tt.log, brief(got), len(got) == 1 && got[0].Partial, tt.partial, tt.exc)
		}
	}
}

// Two generated records match one line, one message a prefix of the other
// (an old release's warning "Detected errors during sampling!" and a later
// error that says what was detected): the one that says more is the
// finding, whichever order the pack lists them in.
func TestLongerGeneratedMessageWins(t *testing.T) {
	short := genRecord(t, "g/detected", "logger.warning", "", `Detected errors during sampling!`, "python/sglang/srt/layers/sampler.py", "Detected errors during sampling!", patterns.RoleCause)
	long := genRecord(t, "g/detected-nan", "logger.error", "", `Detected errors during sampling! NaN in the logits\.`, "python/sglang/srt/speculative/spec_utils.py", "Detected errors during sampling! NaN in the logits.", patterns.RoleCause)
	for _, order := range [][]*patterns.Record{{short, long}, {long, short}} {
		m := compileRecords(t, "", order...)
		got := occurrences(t, m, "[2025-03-01 10:00:00 TP3] Detected errors during sampling! NaN in the logits.\n", 0)
		if len(got) != 1 || got[0].ID != "g/detected-nan" {
			t.Errorf("order %s, %s: got %s", order[0].ID, order[1].ID, brief(got))
		}
	}
}

// A generated record below warning level (a warning only older releases
// print) explains its line, which is then no unknown error, but is no
// finding of its own and does not take the traceback after it.
func TestQuietGeneratedRecord(t *testing.T) {
	old := genRecord(t, "g/old-warning", "logger.warning", "", `Unexpected error while warming the widget cache, skipping`, "python/sglang/srt/cache.py",
		"Unexpected error while warming the widget cache, skipping", patterns.RoleCause)
	old.Severity = patterns.SeverityInfo
	m := compileRecords(t, "", old)
	log := "[2025-03-01 10:00:00] Unexpected error while warming the widget cache, skipping\n" +
		"Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nKeyError: 'widget'\n"
	got := brief(occurrences(t, m, log, 0))
	if want := `unknown/traceback 2-4 rank="" exc="KeyError" msg="'widget'"` + "\n"; got != want {
		t.Errorf("got:\n%swant:\n%s", got, want)
	}
}

package matcher

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/patterns"
)

// testPack is a small pack written for these tests, independent of the
// built-in knowledge.
const testPack = `
- id: t/pp
  title: pp
  severity: error
  match: {exception: RuntimeError, message: "PD disagg: PP>1 not supported for MiniMax sparse index yet."}
  tests: {match: ["RuntimeError: PD disagg: PP>1 not supported for MiniMax sparse index yet."]}
- id: t/wrapper
  title: wrapper
  severity: error
  role: wrapper
  match: {regex: 'Transfer thread failed because of (?P<cause>.+?)\.? Prefill instance with bootstrap_port=(?P<port>\d+) is dead'}
  tests: {match: ["Transfer thread failed because of x. Prefill instance with bootstrap_port=1 is dead."]}
- id: t/compile
  title: compile
  severity: error
  role: wrapper
  match: {regex: 'CompilationError: at \d+:\d+:'}
  tests: {match: ["triton.compiler.errors.CompilationError: at 322:24:"]}
- id: t/oom
  title: oom
  severity: error
  match: {regex: '(?:CUDA out of memory|CUDA error: out of memory)'}
  tests: {match: ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]}
- id: t/sigquit
  title: sigquit
  severity: error
  role: symptom
  match: {message: "Received sigquit from a child process."}
  tests: {match: ["Received sigquit from a child process. It usually means the child failed."]}
- id: t/benign-import
  title: optional import skipped
  severity: info
  match: {regex: '^Ignore import error when loading sglang\.'}
  tags: [benign]
  tests: {match: ["Ignore import error when loading sglang.srt.models.x: No module named 'y'"]}
- id: t/benign-tracker
  title: tracker forgot a segment twice
  severity: info
  match: {exception: KeyError, frame: 'multiprocessing/resource_tracker\.py", line \d+, in main', regex: "'/mp-"}
  tags: [benign]
  tests: {match: ['  File "/usr/lib/python3.10/multiprocessing/resource_tracker.py", line 209, in main']}
- id: t/divide
  title: divide
  severity: error
  match: {exception: AssertionError, regex: '(?:^|Error: )(?P<n>\d+) is not divisible by (?P<d>\d+)'}
  tests: {match: ["AssertionError: 28 is not divisible by 8"]}
`

func testMatcher(t testing.TB) *Matcher {
	t.Helper()
	return compileYAML(t, testPack)
}

// compileYAML compiles a pack of records written in YAML for a test.
func compileYAML(t testing.TB, yaml string) *Matcher {
	t.Helper()
	recs, err := patterns.ParseYAML("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	pack, err := patterns.NewPack(recs)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Compile(pack)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// occurrences runs a log through an engine, fed in pieces of the given size
// (0: all at once), and returns what it reported.
func occurrences(t *testing.T, m *Matcher, log string, piece int) []Occurrence {
	t.Helper()
	var got []Occurrence
	e := m.NewEngine("x.log", func(o Occurrence) { got = append(got, o) })
	if piece <= 0 {
		piece = len(log) + 1
	}
	for i := 0; i < len(log); i += piece {
		e.Write([]byte(log[i:min(i+piece, len(log))]))
	}
	e.Flush()
	return got
}

// brief renders occurrences for comparison.
func brief(os []Occurrence) string {
	var b strings.Builder
	for _, o := range os {
		fmt.Fprintf(&b, "%s %d-%d rank=%q exc=%q msg=%q\n", o.ID, o.Line, o.EndLine, o.Rank, o.Exception, o.Message)
	}
	return b.String()
}

const mooncakeChain = `[2026-08-28 12:40:03 PP0 TP0] Prefill batch, #new-seq: 1
Exception in thread Thread-12 (transfer_worker):
Traceback (most recent call last):
  File "/x/mooncake/conn.py", line 1829, in transfer_worker
    state_rc = self.maybe_send_extra(
               ^^^^^^^^^^^^^^^^^^^^^^
  File "/x/mooncake/conn.py", line 1402, in maybe_send_extra
    raise RuntimeError(
RuntimeError: PD disagg: PP>1 not supported for MiniMax sparse index yet.

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/usr/lib/python3.12/threading.py", line 1075, in _bootstrap_inner
    self.run()
  File "/x/mooncake/conn.py", line 1936, in transfer_worker
    raise RuntimeError(
RuntimeError: Transfer thread failed because of PD disagg: PP>1 not supported for MiniMax sparse index yet.. Prefill instance with bootstrap_port=8998 is dead.
[2026-08-28 12:40:05 PP0 TP0] Decode batch, #running-req: 1
`

func TestEngineEvents(t *testing.T) {
	m := testMatcher(t)
	tests := []struct {
		name, log, want string
	}{
		{
			name: "chained traceback reports the root, not the wrapper",
			log:  mooncakeChain,
			want: `t/pp 2-18 rank="" exc="RuntimeError" msg="PD disagg: PP>1 not supported for MiniMax sparse index yet."` + "\n",
		},
		{
			name: "wrapper alone is reported with its exception",
			log: "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n" +
				"RuntimeError: Transfer thread failed because of boom. Prefill instance with bootstrap_port=8998 is dead.\n",
			want: `t/wrapper 1-3 rank="" exc="RuntimeError" msg="Transfer thread failed because of boom. Prefill instance with bootstrap_port=8998 is dead."` + "\n",
		},
		{
			name: "scheduler traceback in a log record, then the symptom",
			log: "[2026-08-28 11:02:41 TP1] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"  File \"/x/scheduler.py\", line 5191, in run_scheduler_process\n" +
				"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB.\n" +
				"\n" +
				"[2026-08-28 11:02:41] Received sigquit from a child process. It usually means the child failed.\n" +
				"Killed\n",
			want: `t/oom 1-3 rank="TP1" exc="torch.OutOfMemoryError" msg="CUDA out of memory. Tried to allocate 1.50 GiB."` + "\n" +
				`t/sigquit 5-5 rank="" exc="" msg="Received sigquit from a child process. It usually means the child failed."` + "\n" +
				`unknown/error 6-6 rank="" exc="" msg="Killed"` + "\n",
		},
		{
			name: "unknown traceback is still reported, root exception first",
			log: "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nKeyError: 'x'\n\n" +
				"During handling of the above exception, another exception occurred:\n\n" +
				"Traceback (most recent call last):\n  File \"a.py\", line 3, in g\nValueError: bad\nnext line\n",
			// The line after the exception may be more of its message.
			want: `unknown/traceback 1-10 rank="" exc="KeyError" msg="'x'"` + "\n",
		},
		{
			name: "traceback cut off by the end of the log",
			log:  "[2026-08-28 11:02:41 TP0] Scheduler hit an exception: Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n",
			want: `unknown/traceback 1-2 rank="TP0" exc="" msg="File \"a.py\", line 1, in f"` + "\n",
		},
		{
			name: "a new header ends a traceback",
			log: "[2026-08-28 11:02:41 TP0] Scheduler hit an exception: Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n" +
				"[2026-08-28 11:02:41 TP1] Scheduler hit an exception: Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n" +
				"RuntimeError: CUDA error: out of memory\n",
			want: `unknown/traceback 1-2 rank="TP0" exc="" msg="File \"a.py\", line 1, in f"` + "\n" +
				`t/oom 3-5 rank="TP1" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "bare exception line outside a traceback",
			log:  "some output\nValueError: invalid literal for int()\nmore output\n",
			want: `unknown/error 2-2 rank="" exc="ValueError" msg="invalid literal for int()"` + "\n",
		},
		{
			name: "native crash is reported, not dropped",
			log:  "ok\nterminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: an illegal memory access was encountered\nnext\n",
			want: `unknown/error 2-3 rank="" exc="c10::Error" msg="CUDA error: an illegal memory access was encountered"` + "\n",
		},
		{
			name: "last line without newline",
			log:  "ok\nRuntimeError: CUDA error: out of memory",
			want: `t/oom 2-2 rank="" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "CRLF and colour",
			log:  "ok\r\n\x1b[31mRuntimeError: CUDA \x1b[1merror: out of memory\x1b[0m\r\n",
			want: `t/oom 2-2 rank="" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "colour spelt out by rsyslog, inside the needle",
			log:  "ok\nApr  3 17:38:57 gpu7 sglang[1401]: #033[31mRuntimeError: CUDA #033[1merror: out of memory#033[0m\n",
			want: `t/oom 2-2 rank="" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "colour in cat -v's caret notation",
			log:  "ok\n^[[31mRuntimeError: CUDA error: out^[[0m of memory\n",
			want: `t/oom 2-2 rank="" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "a traceback kept on one line, its newlines escaped",
			log:  `[2026-08-28 10:15:02] ERROR: Traceback (most recent call last):\n  File "/x/a.py", line 1, in f\n    g()\nRuntimeError: CUDA error: out of memory` + "\n",
			want: `t/oom 1-1 rank="" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "an escaped traceback inside the body an exception quotes stays one line",
			log:  `AssertionError: {"object":"error","message":"Traceback (most recent call last):\n  File \"/x/a.py\", line 1, in f\nKeyError: 'k'\n","code":500}` + "\n",
			want: `unknown/traceback 1-1 rank="" exc="" msg="AssertionError: {\"object\":\"error\",\"message\":\"Traceback (most recent call last):\\n  File \\\"/x/a.py\\\", line 1, in f\\nKeyError: 'k'\\n\",\"code\":500}"` + "\n",
		},
		{
			name: "healthy lines report nothing",
			log: "[2026-08-28 10:15:26] INFO:     Uvicorn running on http://127.0.0.1:30000\n" +
				"[2026-08-28 10:15:20 TP0] Ignore import error when loading sglang.srt.models.x: No module named 'y'\n" +
				"[2026-08-28 10:15:20 TP0] Disable CUDA graph for this batch size\n",
			want: "",
		},
		{
			name: "asyncio's never-retrieved task heads its traceback",
			log: "[2026-05-02 10:00:00] INFO:     127.0.0.1:50012 - \"POST /generate HTTP/1.1\" 200 OK\n" +
				"Task exception was never retrieved\n" +
				"future: <Task finished name='Task-12' coro=<TokenizerManager.handle_loop() done> exception=KeyError('rid-1')>\n" +
				"Traceback (most recent call last):\n" +
				"  File \"/x/sglang/srt/managers/tokenizer_manager.py\", line 1160, in handle_loop\n" +
				"    state = self.rid_to_state[rid]\n" +
				"KeyError: 'rid-1'\n",
			want: `unknown/traceback 2-7 rank="" exc="KeyError" msg="'rid-1'"` + "\n",
		},
		{
			name: "a compiler's error names the error it caught last, as its repr",
			log: "Traceback (most recent call last):\n" +
				"  File \"/x/triton/compiler/compiler.py\", line 80, in make_ir\n" +
				"triton.compiler.errors.CompilationError: at 322:24:\n" +
				"                    elif KERNEL_WIDTH == 4:\n" +
				"                        ^\n" +
				"AssertionError('initial value for `x` is of type fp16, but the then block redefines it as bf16')\n" +
				"[2026-11-29 10:00:00] Received sigquit from a child process. It usually means the child failed.\n",
			want: `t/compile 1-6 rank="" exc="AssertionError" msg="initial value for ` + "`x`" + ` is of type fp16, but the then block redefines it as bf16"` + "\n" +
				`t/sigquit 7-7 rank="" exc="" msg="Received sigquit from a child process. It usually means the child failed."` + "\n",
		},
		{
			name: "a harmless record's message goes on over lines without a header",
			log: "[2026-07-19 16:48:37] Ignore import error when loading sglang.srt.models.x: Could not load libcodec. Likely causes:\n" +
				"          1. FFmpeg is not properly installed.\n" +
				"          3. Another runtime dependency; see exceptions below.\n" +
				"[start of libcodec loading traceback]\n" +
				"FFmpeg version 8: Could not load this library: /x/libcodec_core8.dylib\n" +
				"[end of libcodec loading traceback].\n" +
				"[2026-07-19 16:48:38] Load weight begin.\n",
			want: "",
		},
		{
			name: "but not over an exception line or a traceback",
			log: "[2026-07-19 16:48:37] Ignore import error when loading sglang.srt.models.x: No module named 'y'\n" +
				"RuntimeError: Could not load the weights\n" +
				"[2026-07-19 16:48:37] Ignore import error when loading sglang.srt.models.x: No module named 'y'\n" +
				"Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nValueError: bad\n",
			want: `unknown/error 2-2 rank="" exc="RuntimeError" msg="Could not load the weights"` + "\n" +
				`unknown/traceback 4-6 rank="" exc="ValueError" msg="bad"` + "\n",
		},
		{
			name: "a traceback its logger printed at warning level is a warning",
			log: "2026-05-02 10:00:02,123 - sglang.srt.utils - WARNING - Could not set up the fast path, falling back\n" +
				"Traceback (most recent call last):\n  File \"/x/y.py\", line 3, in f\nRuntimeError: not available\n" +
				"2026-05-02 10:00:03,001 - sglang.srt.utils - ERROR - Setup failed\n" +
				"Traceback (most recent call last):\n  File \"/x/y.py\", line 3, in f\nRuntimeError: not available at all\n",
			want: `unknown/warning 1-4 rank="" exc="RuntimeError" msg="not available"` + "\n" +
				`unknown/traceback 5-8 rank="" exc="RuntimeError" msg="not available at all"` + "\n",
		},
		{
			name: "asyncio's note alone names the exception",
			log: "Future exception was never retrieved\n" +
				"future: <Future finished exception=RuntimeError('Engine loop has died')>\n",
			want: `unknown/traceback 1-2 rank="" exc="RuntimeError" msg="Engine loop has died"` + "\n",
		},
	}
	for _, tt := range tests {
		for _, piece := range []int{0, 1, 7} {
			t.Run(fmt.Sprintf("%s/piece=%d", tt.name, piece), func(t *testing.T) {
				if got := brief(occurrences(t, m, tt.log, piece)); got != tt.want {
					t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
				}
			})
		}
	}
}

// Regression: an event that never ends is closed by the line limit, and
// what follows it is still read.
func TestEngineEventLimit(t *testing.T) {
	m := testMatcher(t)
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):\n")
	for range maxEventLines + 10 {
		b.WriteString("  File \"a.py\", line 1, in f\n")
	}
	b.WriteString("RuntimeError: CUDA error: out of memory\n")
	got := occurrences(t, m, b.String(), 0)
	if len(got) != 2 || got[0].ID != UnknownTraceback || got[0].EndLine != maxEventLines || got[1].ID != "t/oom" {
		t.Fatalf("got %s", brief(got))
	}
}

func TestEngineHugeLine(t *testing.T) {
	m := testMatcher(t)
	log := "RuntimeError: CUDA error: out of memory " + strings.Repeat("x", 3*MaxLine) + "\nok\nValueError: after\n"
	got := occurrences(t, m, log, 1<<16)
	if len(got) != 2 || got[0].ID != "t/oom" || got[1].Line != 3 {
		t.Fatalf("got %s", brief(got))
	}
}

// Regression: a needle proposed twice on one line (two occurrences, or the
// raw and the normalized view of a coloured line) is confirmed once.
func TestEngineConfirmsEachOwnerOnce(t *testing.T) {
	m := testMatcher(t)
	e := m.NewEngine("x", func(Occurrence) {})
	e.Write([]byte("\x1b[31mRuntimeError: CUDA error: out of memory; CUDA out of memory\x1b[0m\n"))
	if len(e.evs) != 1 || len(e.evs[0].hits) != 1 {
		t.Fatalf("open events %d, want one with one hit", len(e.evs))
	}
}

// A generic record tagged fallback yields to a specific one of the same
// line, whichever the pack lists first; alone, it is the finding.
func TestFallbackYieldsToSpecificRecords(t *testing.T) {
	const pack = `
- id: t/any-module
  title: any module
  severity: error
  match: {regex: "^(?:[\\w.]*Error: )?No module named '(?P<module>\\w+)'"}
  tags: [fallback]
  tests: {match: ["ModuleNotFoundError: No module named 'x'"]}
- id: t/vllm
  title: vllm
  severity: error
  match: {regex: "No module named 'vllm'"}
  tests: {match: ["ModuleNotFoundError: No module named 'vllm'"]}
`
	m := compileYAML(t, pack)
	tests := []struct{ log, want string }{
		{"ModuleNotFoundError: No module named 'vllm'\n", "t/vllm"},
		{"ModuleNotFoundError: No module named 'gguf'\n", "t/any-module"},
	}
	for _, tt := range tests {
		got := occurrences(t, m, tt.log, 0)
		if len(got) != 1 || got[0].ID != tt.want {
			t.Errorf("%q: got %s, want %s", tt.log, brief(got), tt.want)
		}
	}
}

// An occurrence's captures are the named groups of its record's regex in
// the key line, worked out when asked for.
func TestLoadCaptures(t *testing.T) {
	m := compileYAML(t, `
- id: t/port
  title: port
  severity: error
  match: {regex: 'bind to port (?P<port>\d+) on (?P<host>\S+)'}
  tests: {match: ["bind to port 30000 on 0.0.0.0"]}
`)
	got := occurrences(t, m, "[2026-11-29 10:15:02] Failed to bind to port 31000 on 10.0.0.7: address in use\n", 0)
	if len(got) != 1 {
		t.Fatalf("got %s", brief(got))
	}
	o := got[0]
	if o.Captures != nil {
		t.Errorf("captures worked out before they were asked for: %v", o.Captures)
	}
	c := o.LoadCaptures()
	if c["port"] != "31000" || c["host"] != "10.0.0.7:" {
		t.Errorf("captures %v", c)
	}
	if c2 := o.LoadCaptures(); c2["port"] != "31000" {
		t.Errorf("asked again: %v", c2)
	}
}

// An open event whose stream says nothing more is ended after a budget of
// other lines, not at the end of the input, so later lines go back to the
// fast path; a traceback waiting for its frames waits longer, as ranks'
// tracebacks interleave.
func TestQuietStreamsEndTheirEvents(t *testing.T) {
	m := testMatcher(t)
	healthy := strings.Repeat("[2026-11-29 10:15:03 TP0] Decode batch, #running-req: 3, token usage: 0.12\n", quietLines+10)
	var got []Occurrence
	e := m.NewEngine("x", func(o Occurrence) { got = append(got, o) })
	e.Write([]byte("[rank4]:[E1129 10:15:02.104512039 ProcessGroupNCCL.cpp:616] [Rank 4] CUDA error: out of memory\n" + healthy))
	if len(got) != 1 || got[0].ID != "t/oom" {
		t.Fatalf("before the end of the input: %s", brief(got))
	}
	if n := len(e.evs); n != 0 {
		t.Errorf("%d events still open", n)
	}

	got = nil
	e = m.NewEngine("x", func(o Occurrence) { got = append(got, o) })
	other := strings.Repeat("[rank1]:   File \"b.py\", line 2, in g\n", quietLines*3)
	e.Write([]byte("[rank0]: Traceback (most recent call last):\n" + other +
		"[rank0]:   File \"a.py\", line 1, in f\n[rank0]: RuntimeError: CUDA error: out of memory\n"))
	e.Flush()
	var found bool
	for _, o := range got {
		if o.ID == "t/oom" && o.Line == 1 {
			found = true
		}
	}
	if !found {
		t.Errorf("a traceback whose lines are %d lines apart was split: %s", quietLines*3, brief(got))
	}
}

// A record's Next line, logged just after its own as a record of its own,
// joins its event; another record line does not, nor does the Next line
// after an unrelated one.
func TestNextLineJoinsTheEvent(t *testing.T) {
	m := compileYAML(t, `
- id: t/dead
  title: dead
  severity: fatal
  match:
    regex: 'Rank (?P<rank>\d+) scheduler is dead\.'
    next: '^Exit code: -?\d+$'
  tests:
    match: ["Rank 0 scheduler is dead."]
`)
	dead := "[12-11 17:52:52] Rank 0 scheduler is dead. Please check if there are relevant logs.\n"
	code := "[12-11 17:52:54] Exit code: -9\n"
	other := "[12-11 17:52:53] Loading FluxTransformer2DModel\n"
	tests := []struct{ log, want string }{
		{dead + code + other, `t/dead 1-2 rank="" exc="" msg="Rank 0 scheduler is dead. Please check if there are relevant logs."` + "\n"},
		{dead + other + code, `t/dead 1-1 rank="" exc="" msg="Rank 0 scheduler is dead. Please check if there are relevant logs."` + "\n"},
		{dead + "[12-11 17:52:54] Exit code: -9 (see above)\n", `t/dead 1-1 rank="" exc="" msg="Rank 0 scheduler is dead. Please check if there are relevant logs."` + "\n"},
		// A blank line may come between them (pip's "The conflict is caused by:").
		{dead + "\n" + code + other, `t/dead 1-3 rank="" exc="" msg="Rank 0 scheduler is dead. Please check if there are relevant logs."` + "\n"},
	}
	for _, tt := range tests {
		if got := brief(occurrences(t, m, tt.log, 0)); got != tt.want {
			t.Errorf("%q:\n%swant:\n%s", tt.log, got, tt.want)
		}
	}
	recs, err := patterns.ParseYAML("x.yaml", []byte("- id: t/x\n  title: x\n  severity: error\n  match: {exception: KeyError, frame: 'x\\.py', next: 'a'}\n  tests: {match: [a]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := patterns.NewPack(recs); err == nil || !strings.Contains(err.Error(), "match.next") {
		t.Errorf("a next with nothing to go on from: %v", err)
	}
}

// A traceback that ends in an exception with no message is known by the
// place in sglang's source that raised it, when its innermost frame is
// sglang's: the assert the source line under the frame shows.
func TestBareExceptionKnownByItsSite(t *testing.T) {
	m := builtinMatcher(t)
	tb := func(frame, code, exc string) string {
		return "[2026-03-02 11:04:17 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
			"  File \"/opt/venv/lib/python3.12/site-packages/sglang/srt/managers/scheduler.py\", line 771, in init_cache_with_memory_pool\n" +
			"    self.tree_cache = MambaRadixCache(params)\n" +
			frame + code + exc + "\n"
	}
	own := "  File \"/opt/venv/lib/python3.12/site-packages/sglang/srt/mem_cache/mamba_radix_cache.py\", line 330, in __init__\n"
	code := "    assert isinstance(params.token_to_kv_pool_allocator, TokenToKVPoolAllocator)\n"
	const want = "sglang-src/srt.mem_cache.mamba_radix_cache/mambaradixcache-init-assert"
	tests := []struct {
		name, log, id string
	}{
		{"bare assert", tb(own, code, "AssertionError"), want},
		// Not the site's bare assert: Python's error raised in sglang's code.
		{"with a message", tb(own, code, "AssertionError: the pool is not a TokenToKVPoolAllocator"), "sglang/internal-assert-failed"},
		{"innermost frame not sglang's", tb(own, code+"  File \"/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py\", line 1751, in _call_impl\n    return forward_call(*args, **kwargs)\n", "AssertionError"), UnknownTraceback},
		{"another class", tb(own, code, "KeyError"), "sglang/internal-key-error"},
	}
	for _, tt := range tests {
		got := occurrences(t, m, tt.log, 0)
		if len(got) != 1 || got[0].ID != tt.id {
			t.Errorf("%s: %s", tt.name, brief(got))
		}
	}
}

// A library's error is known when the traceback passed through that
// library's code; the same exception raised elsewhere is not its.
func TestLibraryErrorKnownThroughItsFrames(t *testing.T) {
	m := builtinMatcher(t)
	tb := func(frame string) string {
		return "Traceback (most recent call last):\n" +
			"  File \"/opt/venv/lib/python3.12/site-packages/sglang/srt/layers/moe/fused_moe.py\", line 88, in forward\n" +
			"    out = stage1(x)\n" + frame +
			"ValueError: Invalid FlyDSL kernel name: flydsl_moe1_bf16_t16x128\n"
	}
	aiter := "  File \"/opt/venv/lib/python3.12/site-packages/aiter/fhmoe.py\", line 196, in _flydsl_fhmoe_stage1_wrapper\n    raise ValueError(f\"Invalid FlyDSL kernel name: {name}\")\n"
	other := "  File \"/opt/venv/lib/python3.12/site-packages/mykernels/moe.py\", line 10, in stage1\n    raise ValueError(msg)\n"
	if got := occurrences(t, m, tb(aiter), 0); len(got) != 1 || got[0].ID != "aiter-src/fhmoe/invalid-flydsl-kernel-name" {
		t.Errorf("through aiter: %s", brief(got))
	}
	if got := occurrences(t, m, tb(other), 0); len(got) != 1 || got[0].ID != UnknownTraceback {
		t.Errorf("elsewhere: %s", brief(got))
	}
}

// Frames pasted after their exception line without a traceback's
// indentation belong to that exception: a record that knows the error by
// where it is raised confirms it, and the exception is one finding.
func TestFramesAfterTheirException(t *testing.T) {
	m := compileYAML(t, `
- id: t/queue
  title: queue
  severity: error
  match: {exception: IndexError, frame: 'managers/scheduler\.py", line \d+, in move_ready_grammar_requests'}
  tests: {match: ['  File "/x/sglang/srt/managers/scheduler.py", line 1761, in move_ready_grammar_requests']}
`)
	tests := []struct{ name, log, want string }{
		{
			name: "a traceback condensed by hand",
			log: lines(
				"[TP1] Scheduler hit an exception:",
				"IndexError: list index out of range",
				`File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1761, in move_ready_grammar_requests`,
				"self.grammar_queue[i].grammar = self.grammar_queue[i].grammar.result()",
			),
			want: "t/queue 2-4 IndexError: list index out of range\n",
		},
		{
			name: "an exception line, then a traceback of its own",
			log: lines(
				"IndexError: list index out of range",
				"Traceback (most recent call last):",
				`  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1761, in move_ready_grammar_requests`,
				"    self.grammar_queue[i].grammar = self.grammar_queue[i].grammar.result()",
				"IndexError: pop from empty list",
			),
			want: "unknown/error 1-1 IndexError: list index out of range\n" +
				"t/queue 2-5 IndexError: pop from empty list\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			for _, o := range occurrences(t, m, tt.log, 0) {
				fmt.Fprintf(&b, "%s %d-%d %s: %s\n", o.ID, o.Line, o.EndLine, o.Exception, o.Message)
			}
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

// A traceback cut before its exception is what a record knows by where it
// is raised only when the place alone says the error: a record that also
// needs the exception's message cannot tell it from the other errors
// raised there.
func TestCutTracebackAndFrameRecords(t *testing.T) {
	m := compileYAML(t, `
- id: t/unpack
  title: unpack
  severity: error
  match: {exception: ValueError, frame: 'layers/sampler\.py", line \d+, in forward', regex: 'not enough values to unpack'}
  tests: {match: ['  File "/x/sglang/srt/layers/sampler.py", line 120, in forward']}
- id: t/queue
  title: queue
  severity: error
  match: {exception: IndexError, frame: 'managers/scheduler\.py", line \d+, in move_ready_grammar_requests'}
  tests: {match: ['  File "/x/sglang/srt/managers/scheduler.py", line 1761, in move_ready_grammar_requests']}
`)
	cut := func(frame string) string {
		return lines(
			"[2026-08-28 10:15:02 TP0] Scheduler hit an exception: Traceback (most recent call last):",
			`  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2683, in run_scheduler_process`,
			"    scheduler.event_loop_normal()",
			frame,
		)
	}
	tests := []struct{ name, log, want string }{
		{
			name: "the place and a message the excerpt lacks",
			log:  cut(`  File "/sgl-workspace/sglang/python/sglang/srt/layers/sampler.py", line 120, in forward`),
			want: "unknown/traceback\n",
		},
		{
			name: "the place alone",
			log:  cut(`  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1761, in move_ready_grammar_requests`),
			want: "t/queue\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			for _, o := range occurrences(t, m, tt.log, 0) {
				fmt.Fprintln(&b, o.ID)
			}
			if b.String() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tt.want)
			}
		})
	}
}

// A record known by a frame, when every frame of a deep traceback names it,
// holds one of the event's hits, not all of them: the exception line's own
// record is still found.
func TestFrameRecordLeavesRoomForTheException(t *testing.T) {
	m := compileYAML(t, `
- id: t/any-frame
  title: any frame
  severity: error
  match: {exception: TypeError, frame: 'app/[\w/]+\.py", line \d+, in \w+', regex: 'got an unexpected keyword argument'}
  tests: {match: ['  File "/x/app/a.py", line 1, in f']}
- id: t/config
  title: config
  severity: fatal
  match: {exception: AttributeError, regex: '''\w+Config'' object has no attribute '''}
  tests: {match: ["AttributeError: 'LlamaConfig' object has no attribute 'rope_theta'"]}
`)
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):\n")
	for i := range 2 * maxEventHits {
		fmt.Fprintf(&b, "  File \"/x/app/m%d.py\", line %d, in f%d\n    g%d()\n", i, i+1, i, i)
	}
	b.WriteString("AttributeError: 'LlamaConfig' object has no attribute 'rope_theta'\n")
	got := occurrences(t, m, b.String(), 0)
	if len(got) != 1 || got[0].ID != "t/config" {
		t.Errorf("got %s, want t/config", brief(got))
	}
}

// Of two fallbacks of one traceback, the one known by the exception's
// message says more than the one known by any frame of the traceback.
func TestFallbackByMessageBeforeFallbackByFrame(t *testing.T) {
	m := compileYAML(t, `
- id: t/any-call
  title: any call
  severity: error
  match: {exception: TypeError, frame: 'app/[\w/]+\.py", line \d+, in \w+', regex: 'missing \d+ required positional argument'}
  tags: [fallback]
  tests: {match: ['  File "/x/app/a.py", line 1, in f']}
- id: t/kernel-call
  title: kernel call
  severity: fatal
  match: {exception: TypeError, regex: 'rms_norm\(\) missing \d+ required positional argument'}
  tags: [fallback]
  tests: {match: ["TypeError: rms_norm() missing 2 required positional arguments: 'weight' and 'eps'"]}
`)
	tb := "Traceback (most recent call last):\n  File \"/x/app/norm.py\", line 9, in forward\n    rms_norm(x)\n" +
		"TypeError: rms_norm() missing 2 required positional arguments: 'weight' and 'eps'\n"
	if got := occurrences(t, m, tb, 0); len(got) != 1 || got[0].ID != "t/kernel-call" {
		t.Errorf("kernel's own call: got %s, want t/kernel-call", brief(got))
	}
	other := "Traceback (most recent call last):\n  File \"/x/app/norm.py\", line 9, in forward\n    load(x)\n" +
		"TypeError: load() missing 1 required positional argument: 'path'\n"
	if got := occurrences(t, m, other, 0); len(got) != 1 || got[0].ID != "t/any-call" {
		t.Errorf("another call: got %s, want t/any-call", brief(got))
	}
}

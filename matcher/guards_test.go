package matcher

import (
	"fmt"
	"strings"
	"testing"
)

// Regression: a bare exception line whose class ends in Exception, which
// no record and no "Error: " needle proposes, still opens an event and is
// reported as an unknown error.
func TestBareExceptionClassLine(t *testing.T) {
	m := testMatcher(t)
	tests := []struct {
		name, log, want string
	}{
		{
			name: "Exception itself",
			log:  "some output\nException: worker 3 stopped answering\nmore output\n",
			want: `unknown/error 2-2 rank="" exc="Exception" msg="worker 3 stopped answering"` + "\n",
		},
		{
			name: "dotted class ending in Exception",
			log:  "ok\nsglang.srt.managers.SchedulerException: lost the tokenizer\n",
			want: `unknown/error 2-2 rank="" exc="sglang.srt.managers.SchedulerException" msg="lost the tokenizer"` + "\n",
		},
		{
			name: "after an sglang header",
			log:  "[2026-08-28 11:02:41 TP2] DetokenizerException: pipe closed\n[2026-08-28 11:02:42 TP2] next\n",
			want: `unknown/error 1-1 rank="TP2" exc="DetokenizerException" msg="pipe closed"` + "\n",
		},
	}
	for _, tt := range tests {
		for _, piece := range []int{0, 5} {
			t.Run(fmt.Sprintf("%s/piece=%d", tt.name, piece), func(t *testing.T) {
				if got := brief(occurrences(t, m, tt.log, piece)); got != tt.want {
					t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
				}
			})
		}
	}
}

// sharedPrefix is longer than maxNeedle, so that the two records below
// are proposed by one and the same needle.
const sharedPrefix = "Detokenizer manager lost its connection to the scheduler process"

const sharedNeedlePack = `
- id: t/restart
  title: restart
  severity: error
  match: {message: "` + sharedPrefix + ` after a restart"}
  tests: {match: ["` + sharedPrefix + ` after a restart"]}
- id: t/shutdown
  title: shutdown
  severity: error
  match: {message: "` + sharedPrefix + ` during shutdown"}
  tests: {match: ["` + sharedPrefix + ` during shutdown"]}
`

// Regression: a line with ANSI escapes inside a needle is searched again in
// normalized form, and there a needle proposes every record that shares
// it, not only the first.
func TestEscapedLineProposesEveryRecordOfANeedle(t *testing.T) {
	if len(sharedPrefix) <= maxNeedle {
		t.Fatalf("shared prefix of %d bytes does not reach maxNeedle (%d)", len(sharedPrefix), maxNeedle)
	}
	m := compileYAML(t, sharedNeedlePack)
	// The escape splits the needle, so only the normalized view holds it.
	split := func(tail string) string {
		return "\x1b[31mDetokenizer manager lost its \x1b[1mconnection to the scheduler process " + tail + "\x1b[0m"
	}
	tests := []struct {
		name, line, want, msg string
	}{
		{"second record, plain", sharedPrefix + " during shutdown", "t/shutdown", sharedPrefix + " during shutdown"},
		{"second record, escaped", split("during shutdown"), "t/shutdown", sharedPrefix + " during shutdown"},
		{"first record, escaped", split("after a restart"), "t/restart", sharedPrefix + " after a restart"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(ids(m.MatchLine([]byte(tt.line))), ","); got != tt.want {
				t.Errorf("MatchLine = %q, want %q", got, tt.want)
			}
			want := fmt.Sprintf("%s 2-2 rank=\"\" exc=\"\" msg=%q\n", tt.want, tt.msg)
			if got := brief(occurrences(t, m, "ok\n"+tt.line+"\nok\n", 0)); got != want {
				t.Errorf("engine got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// Regression: tracebacks of eight torchrun ranks, printed at once with
// their lines interleaved, stay open side by side; each is reported whole,
// with its rank, and none is cut into pieces.
func TestInterleavedRankTracebacks(t *testing.T) {
	m := testMatcher(t)
	const ranks = 8
	steps := []string{
		"Traceback (most recent call last):",
		`  File "/x/model_runner.py", line 1090, in load_model`,
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %d.00 GiB.",
	}
	var log, want strings.Builder
	for _, step := range steps {
		for r := range ranks {
			line := step
			if strings.Contains(step, "%d") {
				line = fmt.Sprintf(step, r+1)
			}
			fmt.Fprintf(&log, "[rank%d]: %s\n", r, line)
		}
	}
	for r := range ranks {
		fmt.Fprintf(&want, `t/oom %d-%d rank="rank%d" exc="torch.OutOfMemoryError" msg="CUDA out of memory. Tried to allocate %d.00 GiB."`+"\n",
			r+1, 2*ranks+r+1, r, r+1)
	}
	for _, piece := range []int{0, 1, 7} {
		t.Run(fmt.Sprintf("piece=%d", piece), func(t *testing.T) {
			if got := brief(occurrences(t, m, log.String(), piece)); got != want.String() {
				t.Errorf("got:\n%s\nwant:\n%s", got, want.String())
			}
		})
	}
}

// Regression: a log that holds two starts of the server logs two
// server_args lines; the engine keeps the latest, and each event gets the
// configuration the server ran with when it happened.
func TestLatestServerArgs(t *testing.T) {
	m := testMatcher(t)
	const log = "[2026-11-29 10:15:02] server_args=ServerArgs(tp_size=2, model_path='Qwen/Qwen3-8B')\n" +
		"[2026-11-29 10:15:20 TP0] RuntimeError: CUDA error: out of memory\n" +
		"[2026-11-29 10:20:02] server_args=ServerArgs(tp_size=4, model_path='Qwen/Qwen3-8B')\n" +
		"[2026-11-29 10:20:20 TP0] RuntimeError: CUDA error: out of memory\n"
	var got []Occurrence
	e := m.NewEngine("x.log", func(o Occurrence) { got = append(got, o) })
	if err := e.Scan(strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	tpSize := func(c Config) any {
		if c == nil {
			return nil
		}
		v, _ := c.Lookup("tp_size")
		return v
	}
	sa, line := e.ServerConfig()
	if v := tpSize(sa); v != int64(4) || line != 3 {
		t.Errorf("ServerConfig() = tp_size %v at line %d, want tp_size 4 at line 3", v, line)
	}
	wantTP := []any{int64(2), int64(4)}
	if len(got) != len(wantTP) {
		t.Fatalf("got %d occurrences, want %d:\n%s", len(got), len(wantTP), brief(got))
	}
	for i, o := range got {
		if v := tpSize(o.Config); v != wantTP[i] {
			t.Errorf("occurrence at line %d: Config tp_size = %v, want %v", o.Line, v, wantTP[i])
		}
	}
}

// A line a terminal hard-wrapped mid-word continues the event of its first
// half, which carried a rank's prefix the second half does not: the
// second half is no event of its own, whatever words it holds.
func TestHardWrappedHalfJoinsItsLine(t *testing.T) {
	m := testMatcher(t)
	first := "[rank6]:[E207 01:29:36.730311765 ProcessGroupNCCL.cpp:616] [Rank 6] RuntimeError: CUDA error: out of memory while the watchdog waited for WorkNCCL(SeqNum=2, Nume"
	tests := []struct {
		name, log string
		want      int // occurrences
	}{
		{"cut mid-word", first + "\nlOut=1, Timeout(ms)=600000) ran for 600050 milliseconds before timing out.\n", 1},
		{"both halves under a compose service's prefix", "llm-0  | " + first + "\nllm-0  | lOut=1, Timeout(ms)=600000) ran for 600050 milliseconds before timing out.\n", 1},
		{"the second half under another service's prefix", "llm-0  | " + first + "\nllm-1  | lOut=1, Timeout(ms)=600000) ran for 600050 milliseconds before timing out.\n", 2},
		{"a short line before it", "[rank6]:[E207 01:29:36 x.cpp:1] RuntimeError: CUDA error: out of memory\nfailed to recover, timed out\n", 2},
		{"a capitalised line after a cut", first + "\nRuntimeError: CUDA error: out of memory on another rank\n", 2},
		{"a line of its own after a line ending in a space", strings.TrimSuffix(first, "Nume") + "\nlater the operation failed and timed out\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := occurrences(t, m, tt.log, 0)
			if len(got) != tt.want {
				t.Errorf("got %d occurrences, want %d:\n%s", len(got), tt.want, brief(got))
			}
		})
	}
}

// An exception line whose class only carries another names that one as
// the exception; a class that is an error in its own right keeps it.
func TestCarriedExceptionClass(t *testing.T) {
	m := testMatcher(t)
	tests := []struct{ line, class, msg string }{
		{"jax._src.source_info_util.JaxStackTraceBeforeTransformation: TypeError: Shapes must be 1D sequences", "TypeError", "Shapes must be 1D sequences"},
		{"RuntimeError: ValueError: bad value", "RuntimeError", "ValueError: bad value"},
		{"torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:", "torch._dynamo.exc.BackendCompilerFailed", "backend='inductor' raised:"},
	}
	for _, tt := range tests {
		t.Run(tt.class, func(t *testing.T) {
			log := "Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n" + tt.line + "\n"
			got := occurrences(t, m, log, 0)
			if len(got) != 1 || got[0].Exception != tt.class || got[0].Message != tt.msg {
				t.Errorf("got %s", brief(got))
			}
		})
	}
}

// A syslog or journald prefix is taken off: the process is the stream,
// the time the line's time when the message has none of its own.
func TestSyslogPrefix(t *testing.T) {
	tests := []struct{ line, stream, time, msg string }{
		{"Mar 14 06:20:14 gpu-node-4 python3[5113]:   File \"x.py\", line 1, in f", "python3[5113]", "Mar 14 06:20:14", "  File \"x.py\", line 1, in f"},
		{"Mar  4 06:20:14.123456 gpu-node-4 python3[5113]: [2026-03-04 06:20:14 TP1] Load weight begin", "python3[5113]", "2026-03-04 06:20:14", "Load weight begin"},
		{"Jan 02 11:00:03 gpu01 systemd[1]: sglang.service: Failed with result 'signal'.", "systemd[1]", "Jan 02 11:00:03", "sglang.service: Failed with result 'signal'."},
		{"Jan 02 11:00:03 gpu01 kernel: Out of memory: Killed process 4471 (python3)", "kernel", "Jan 02 11:00:03", "Out of memory: Killed process 4471 (python3)"},
		{"Mar 14 is when the server stopped: nobody knows why", "", "", "Mar 14 is when the server stopped: nobody knows why"},
		{"Mar 14 06:20:14 gpu-node-4 python3[51x3]: x", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			ln := ParseLine([]byte(tt.line))
			if string(ln.Stream) != tt.stream || (tt.stream != "" && (string(ln.Header.Time) != tt.time || string(ln.Msg) != tt.msg)) {
				t.Errorf("stream %q time %q msg %q", ln.Stream, ln.Header.Time, ln.Msg)
			}
		})
	}
}

// A timestamp followed by a level, in the shapes loggers print it.
func TestStampedLevels(t *testing.T) {
	tests := []struct {
		line  string
		level Level
		msg   string
	}{
		{"2026-04-05 16:50:30,214 - CUTE_DSL - WARNING - [handle_import_error] Unexpected error during package walk", LevelWarning, "[handle_import_error] Unexpected error during package walk"},
		{"2026-04-05 16:50:30,214 - ERROR - the worker died", LevelError, "the worker died"},
		{"2026-04-05 16:50:30,214 [INFO] sglang.srt.managers.scheduler: load done", LevelInfo, "sglang.srt.managers.scheduler: load done"},
		{"2025-04-07T19:13:52.123Z ERROR smg::routers::http::pd_router: src/routers/pd.rs:172: boom", LevelError, "smg::routers::http::pd_router: src/routers/pd.rs:172: boom"},
		{"2026-04-05 16:50:30,214 - a name with spaces - ERROR - x", LevelNone, ""},
		// loguru and the loggers built like it.
		{"2025-07-02 16:41:31 | ERROR | sglang.srt.entrypoints.engine | Received sigquit from a child process.", LevelError, "Received sigquit from a child process."},
		// A child's stream re-logged under its name: the level is the stream's.
		{"2025-07-02 16:41:32 | ERROR | stderr |   File \"/x/flashinfer/jit/cpp_ext.py\", line 168, in run_ninja", LevelNone, "  File \"/x/flashinfer/jit/cpp_ext.py\", line 168, in run_ninja"},
		{"2025-07-02 16:41:30 | ERROR | stderr | Loading safetensors checkpoint shards:   0% Completed | 0/2 [00:00<?, ?it/s]", LevelNone, "Loading safetensors checkpoint shards:   0% Completed | 0/2 [00:00<?, ?it/s]"},
		{"2025-07-02 16:41:31 | INFO | stdout | Capture cuda graph bs [1, 2, 4, 8]", LevelNone, "Capture cuda graph bs [1, 2, 4, 8]"},
		{"2025-07-02 16:41:32.118 | WARNING  | app.server:start:42 - the cache is cold", LevelWarning, "the cache is cold"},
		{"2025-07-02 16:41:32 | INFO | a message with | bars in it", LevelInfo, "a message with | bars in it"},
		{"2025-07-02 16:41:32 | not a level | x", LevelNone, ""},
		// A C library's colon-separated header ending in its level.
		{"libfabric:20117:1732963841::core:core:fi_getinfo_():1392<warn> fi_getinfo: provider shm output empty list", LevelWarning, "fi_getinfo: provider shm output empty list"},
		{"libfabric:20117:1732963841::efa:ep_ctrl:efa_rdm_ep_open():601<error> cannot open endpoint", LevelError, "cannot open endpoint"},
		{"libfabric:20117:1732963841::core:mr:ofi_mr_cache_init():443<info> MR cache disabled", LevelInfo, "MR cache disabled"},
		{"no colons here<warn> x", LevelNone, ""},
		// Ray's note on a line several workers printed.
		{"(WorkerDict pid=1011655, ip=10.3.176.18) ERROR 03-02 11:04:17 [scheduler.py:778] x failed [repeated 27x across cluster]  ", LevelError, "x failed"},
		{"a:b:c<warning>x y", LevelNone, ""},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			ln := ParseLine([]byte(tt.line))
			if ln.Level != tt.level || (tt.msg != "" && string(ln.Msg) != tt.msg) {
				t.Errorf("level %v msg %q", ln.Level, ln.Msg)
			}
		})
	}
}

// A message its own logger calls a warning is no error when another
// handler prints it again without a level (the warning itself is an
// unknown warning); one never said at a lower level is.
func TestWarningCopiedWithoutLevel(t *testing.T) {
	m := testMatcher(t)
	warn := "2026-04-05 16:47:59,431 - CUTE_DSL - WARNING - [handle_import_error] - Unexpected error during package walk: cutlass.cute.experimental\n"
	copied := "[2026-04-05 16:47:59] Unexpected error during package walk: cutlass.cute.experimental\n"
	other := "[2026-04-05 16:47:59] Unexpected error during graph capture: out of pages\n"
	// The warning itself says something failed: it is an unknown warning.
	if got := occurrences(t, m, warn+copied, 0); len(got) != 1 || got[0].ID != UnknownWarning {
		t.Errorf("the copy of a warning is an error: %s", brief(got))
	}
	if got := occurrences(t, m, warn+other, 0); len(got) != 2 || got[1].ID != UnknownError {
		t.Errorf("another message after a warning: %s", brief(got))
	}
	if got := occurrences(t, m, copied, 0); len(got) != 1 {
		t.Errorf("the message with no warning before it: %s", brief(got))
	}
}

// A logger that prints every line of a traceback as a record of its own,
// at one level, still makes one traceback; a record of another level, or
// one that is no part of a traceback, ends it.
func TestTracebackPrintedAsRecords(t *testing.T) {
	m := testMatcher(t)
	tests := []struct {
		name, log, want string
	}{
		{"vLLM's engine logger",
			"ERROR 12-05 20:24:46 engine.py:366] Traceback (most recent call last):\n" +
				"ERROR 12-05 20:24:46 engine.py:366]   File \"/x/models/utils.py\", line 10, in load\n" +
				"ERROR 12-05 20:24:46 engine.py:366]     param = params_dict[name]\n" +
				"ERROR 12-05 20:24:46 engine.py:366] KeyError: 'layers.0.mlp.down_proj.weight_scale'\n" +
				"INFO 12-05 20:24:46 worker.py:120] Killing local worker processes\n",
			"unknown/traceback 1-4 rank=\"\" exc=\"KeyError\" msg=\"'layers.0.mlp.down_proj.weight_scale'\"\n"},
		{"a level word after sglang's header",
			"[2026-02-26 15:56:59] ERROR: Traceback (most recent call last):\n" +
				"[2026-02-26 15:56:59] ERROR:   File \"/x/configuration_auto.py\", line 1360, in from_pretrained\n" +
				"[2026-02-26 15:56:59] ERROR:     config_class = CONFIG_MAPPING[config_dict[\"model_type\"]]\n" +
				"[2026-02-26 15:56:59] ERROR: KeyError: 'glm_moe_dsa'\n" +
				"[2026-02-26 15:56:59] ERROR: \n",
			"unknown/traceback 1-4 rank=\"\" exc=\"KeyError\" msg=\"'glm_moe_dsa'\"\n"},
		{"a record of its own ends it",
			"ERROR 12-05 20:24:46 engine.py:366] Traceback (most recent call last):\n" +
				"ERROR 12-05 20:24:46 engine.py:366]   File \"/x/models/utils.py\", line 10, in load\n" +
				"ERROR 12-05 20:24:46 engine.py:366] KeyError: 'w'\n" +
				"ERROR 12-05 20:24:47 api.py:12] the request could not be served\n",
			"unknown/traceback 1-3 rank=\"\" exc=\"KeyError\" msg=\"'w'\"\n" +
				"unknown/error 4-4 rank=\"\" exc=\"\" msg=\"the request could not be served\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := brief(occurrences(t, m, tt.log, 0)); got != tt.want {
				t.Errorf("got:\n%swant:\n%s", got, tt.want)
			}
		})
	}
}

// A record whose literal a healthy server prints over and over is a
// lint problem: its prefilter saves no work.
func TestLintFindsBusyLiterals(t *testing.T) {
	m := compileYAML(t, `
- id: t/health-5xx
  title: health 5xx
  severity: error
  match: {regex: '"GET /health HTTP/[\d.]+" 5\d\d'}
  tests: {match: ['"GET /health HTTP/1.1" 503']}
`)
	healthy := func(every int) string {
		var b strings.Builder
		for i := range 400 {
			if i%every == 0 {
				b.WriteString("[2026-03-02 14:07:55] INFO:     10.0.0.1:4711 - \"GET /health HTTP/1.1\" 200 OK\n")
			} else {
				fmt.Fprintf(&b, "[2026-03-02 14:07:55 TP0] Decode batch, #running-req: %d, #token: 2048\n", i)
			}
		}
		return b.String()
	}
	busy := func(log string) bool {
		ps, _, err := m.LintHealthy(strings.NewReader(log), "h.log", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if strings.Contains(p.What, "its literal is in") {
				return true
			}
		}
		return false
	}
	if !busy(healthy(10)) {
		t.Error("a literal in one line of ten is not reported")
	}
	if busy(healthy(100)) {
		t.Error("a literal in one line of a hundred is reported")
	}
}

// A line a benign record explains is no lint problem, and no finding,
// whatever other record matches it too.
func TestBenignLineWinsOverOtherRecords(t *testing.T) {
	m := compileYAML(t, `
- id: t/5xx
  title: 5xx
  severity: error
  match: {regex: '" (?:500|503) [A-Z]'}
  tests: {match: ['"GET /health HTTP/1.1" 503 Service Unavailable']}
- id: t/health-503
  title: health 503
  severity: info
  tags: [benign]
  match: {regex: '"GET /health HTTP/[\d.]+" 503 Service Unavailable'}
  tests: {match: ['"GET /health HTTP/1.1" 503 Service Unavailable']}
`)
	line := `10.0.0.1:4711 - "GET /health HTTP/1.1" 503 Service Unavailable`
	if ps, _, _ := m.LintHealthy(strings.NewReader(line+"\n"), "h.log", nil); len(ps) != 0 {
		t.Errorf("lint: %v", ps)
	}
	if got := occurrences(t, m, line+"\n", 0); len(got) != 0 {
		t.Errorf("findings: %s", brief(got))
	}
	other := `10.0.0.1:4711 - "POST /generate HTTP/1.1" 500 Internal Server Error`
	if got := occurrences(t, m, other+"\n", 0); len(got) != 1 {
		t.Errorf("a 500 the benign record does not explain: %s", brief(got))
	}
}

// A harmless record's message goes on over the lines after it that have
// no header, but a line an error's record confirms is not one of them;
// one that names nothing, or a warning's, still is.
func TestBenignMessageEndsAtAnError(t *testing.T) {
	m := compileYAML(t, `
- id: t/notice
  title: notice
  severity: info
  tags: [benign]
  match: {regex: 'messages? below can be ignored'}
  tests: {match: ['[2026-03-02 14:07:55 TP0] The messages below can be ignored.']}
- id: t/shape
  title: shape
  severity: fatal
  match: {regex: 'input size is not aligned with the quantized weight shape'}
  tests: {match: ['Failed: The input size is not aligned with the quantized weight shape.']}
- id: t/slow
  title: slow
  severity: warning
  match: {regex: 'kernel config file is missing'}
  tests: {match: ['kernel config file is missing']}
`)
	head := "[2026-03-02 14:07:55 TP0] The messages below can be ignored.\n"
	tests := []struct{ log, want string }{
		{head + "Failed to instantiate M: The input size is not aligned with the quantized weight shape.\n", "t/shape"},
		{head + "a second line of the notice\nFailed to instantiate M: The input size is not aligned with the quantized weight shape.\n", "t/shape"},
		{head + "kernel config file is missing\n", ""},
		{head + "a second line of the notice\n", ""},
	}
	for _, tt := range tests {
		var ids []string
		for _, o := range occurrences(t, m, tt.log, 0) {
			ids = append(ids, o.ID)
		}
		if got := strings.Join(ids, ","); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.log, got, tt.want)
		}
	}
}

// A log whose quotes a paste turned typographic reads as the program
// printed it: a record whose only words have a quote in them still finds
// the line, alone, amid other lines, and under a colour code.
func TestTypographicQuotesMatch(t *testing.T) {
	m := compileYAML(t, `
- id: t/pkgx
  title: pkgx
  severity: fatal
  match: {regex: "from 'pkgx_mod\\.\\w+'"}
  tests: {match: ["ImportError: cannot import name 'f' from 'pkgx_mod.sub'"]}
`)
	for _, log := range []string{
		"ImportError: cannot import name ‘f’ from ‘pkgx_mod.sub’ (/x/pkgx_mod/sub.py)\n",
		"ok\nnext – with a dash…\nImportError: cannot import name ‘f’ from ‘pkgx_mod.sub’\nok\n",
		"\x1b[31mImportError\x1b[0m: cannot import name ‘f’ from ‘pkgx_mod.sub’\n",
	} {
		if got := occurrences(t, m, log, 0); len(got) != 1 || got[0].ID != "t/pkgx" {
			t.Errorf("%q: got %s", log, brief(got))
		}
	}
	if got := occurrences(t, m, "from ‘pkgx_other.sub’\n", 0); len(got) != 0 {
		t.Errorf("another module: got %s", brief(got))
	}
}

func TestAnyFunction(t *testing.T) {
	tests := []struct {
		frame string
		want  bool
	}{
		{`model_loader/\w+\.py", line \d+, in \w+`, true},
		{`sglang/srt/[\w/]+\.py", line \d+, in [\w<>]+`, true},
		{`(?:a|b)/x\.py", line \d+, in \S+)`, true},
		{`model_runner\.py", line \d+, in load_model\b`, false},
		{`conn\.py", line \d+, in (?:bootstrap_thread|decode_thread)`, false},
		{`x\.py", line \d+, in \w+_graphs`, false},
	}
	for _, tt := range tests {
		if got := anyFunction(tt.frame); got != tt.want {
			t.Errorf("anyFunction(%q) = %v, want %v", tt.frame, got, tt.want)
		}
	}
}

// A traceback cut before its exception line is known by a frame that
// names a function (a phase of the server's life), not by one that names
// only the files an error of some class is raised in. A phase yields to
// any record of what failed, but not to a generated wrapper.
func TestCutTracebackKnownByNamedFrame(t *testing.T) {
	m := compileYAML(t, `
- id: t/json
  title: json
  severity: fatal
  match: {exception: JSONDecodeError, frame: 'model_loader/\w+\.py", line \d+, in \w+'}
  tests: {match: ['  File "/x/sglang/srt/model_loader/loader.py", line 3, in load_model']}
- id: t/phase
  title: phase
  severity: fatal
  role: wrapper
  tags: [fallback]
  match: {exception: Exception, frame: 'model_loader/loader\.py", line \d+, in load_model\b'}
  tests: {match: ['  File "/x/sglang/srt/model_loader/loader.py", line 3, in load_model']}
- id: t/hit
  title: hit
  severity: error
  role: wrapper
  match: {regex: '^Scheduler hit an exception: '}
  tests: {match: ['Scheduler hit an exception: Traceback (most recent call last):']}
- id: t/oom
  title: oom
  severity: error
  match: {regex: 'CUDA out of memory'}
  tests: {match: ['torch.OutOfMemoryError: CUDA out of memory.']}
`)
	cut := "Scheduler hit an exception: Traceback (most recent call last):\n" +
		"  File \"/x/sglang/srt/model_loader/loader.py\", line 3, in load_model\n" +
		"    model = init(\n"
	tests := []struct{ log, want string }{
		{cut, "t/phase"},
		{cut + "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n", "t/json"},
		{cut + "torch.OutOfMemoryError: CUDA out of memory.\n", "t/oom"},
		{strings.Replace(cut, "in load_model", "in load_weights", 1), "t/hit"},
	}
	for _, tt := range tests {
		if got := occurrences(t, m, tt.log, 0); len(got) != 1 || got[0].ID != tt.want {
			t.Errorf("%q: got %s, want %s", tt.log, brief(got), tt.want)
		}
	}
}

// A py-spy dump under the line that announces it is one event: its
// threads' heads and their indented frames, up to the next line of the log.
func TestPyspyDumpIsOneEvent(t *testing.T) {
	m := compileYAML(t, `
- id: t/dump
  title: dump
  severity: warning
  match: {regex: 'Pyspy dump for PID \d+', next: '^Process \d+: '}
  tests: {match: ['Pyspy dump for PID 499:']}
`)
	log := "[2025-11-05 10:18:51] Pyspy dump for PID 499:\n" +
		"Process 499: sglang::scheduler\n" +
		"Python v3.11.13 (/usr/bin/python3.11)\n" +
		"\n" +
		"Thread 499 (idle): \"MainThread\"\n" +
		"    replay (npu_graph_runner.py:82)\n" +
		"    run_batch (scheduler.py:1987)\n" +
		"Thread 0x7F3A2B4C (active+gil): \"Thread-1\"\n" +
		"    _recv (multiprocessing/connection.py:395)\n" +
		"\n" +
		"[2025-11-05 10:18:52] INFO:     127.0.0.1:43844 - \"GET /v1/models HTTP/1.1\" 200 OK\n"
	got := occurrences(t, m, log, 0)
	if len(got) != 1 || got[0].ID != "t/dump" || got[0].Line != 1 || got[0].EndLine != 9 {
		t.Errorf("got %s", brief(got))
	}
}

// A traceback pasted from a string with its quotes escaped, a frame to a
// line, reads as the traceback: its frames are frames, and a record known
// by one of them finds it.
func TestEscapedQuoteFrames(t *testing.T) {
	m := compileYAML(t, `
- id: t/batch
  title: batch
  severity: error
  role: wrapper
  tags: [fallback]
  match: {exception: Exception, frame: 'managers/scheduler\.py", line \d+, in run_batch\b'}
  tests: {match: ['  File "/x/sglang/srt/managers/scheduler.py", line 9, in run_batch']}
`)
	log := "Scheduler hit an exception: Traceback (most recent call last):\n" +
		"  File \\\"/x/sglang/srt/managers/scheduler.py\\\", line 7, in event_loop_normal\n" +
		"    result = self.run_batch(batch)\n" +
		"  File \\\"/x/sglang/srt/managers/scheduler.py\\\", line 9, in run_batch\n" +
		"    batch_result = self.model_worker.forward_batch_generation(\n"
	got := occurrences(t, m, log, 0)
	if len(got) != 1 || got[0].ID != "t/batch" || got[0].EndLine != 5 {
		t.Errorf("got %s", brief(got))
	}
	if u := string(unescapeQuotes([]byte(`File \"a\", line 1, x\\y`))); u != `File "a", line 1, x\\y` {
		t.Errorf("unescapeQuotes: %s", u)
	}
}

// An attribute error that torch's Module.__getattr__ raises is raised
// where its caller read the attribute: a record that needs the innermost
// frame to be its own finds the caller's.
func TestPassThroughFrame(t *testing.T) {
	m := compileYAML(t, `
- id: t/attr
  title: attr
  severity: error
  tags: [raised-here]
  match: {exception: AttributeError, frame: 'sglang/srt/[\w/]+\.py", line \d+, in [\w<>]+', regex: 'object has no attribute'}
  tests: {match: ["AttributeError: 'X' object has no attribute 'weight'"]}
`)
	tb := func(inner string) string {
		return "Traceback (most recent call last):\n" +
			"  File \"/x/sglang/srt/models/deepseek_v2.py\", line 1527, in __init__\n" +
			"    and self.proj.weight.dtype == torch.bfloat16\n" + inner +
			"AttributeError: 'ReplicatedLinear' object has no attribute 'weight'\n"
	}
	tests := []struct{ log, want string }{
		{tb(""), "t/attr"},
		{tb("  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1968, in __getattr__\n    raise AttributeError(\n"), "t/attr"},
		{tb("  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1968, in forward\n    x = y.weight\n"), UnknownTraceback},
	}
	for _, tt := range tests {
		if got := occurrences(t, m, tt.log, 0); len(got) != 1 || got[0].ID != tt.want {
			t.Errorf("%q: got %s, want %s", tt.log, brief(got), tt.want)
		}
	}
}

// A call with arguments the function does not take names the function as
// Python does, a closure's too (`f.<locals>.<lambda>()`), and is known by
// the frame in sglang's code that made it.
func TestBuiltinCallSignatureOfAClosure(t *testing.T) {
	b := builtinMatcher(t)
	log := "Traceback (most recent call last):\n" +
		"  File \"/x/python/sglang/srt/utils/common.py\", line 512, in make_layers\n" +
		"    maybe_offload_to_cpu(layer_fn(idx=idx, prefix=add_prefix(idx, prefix)))\n" +
		"**TypeError: Phi3SmallModel.__init__.<locals>.<lambda>() got an unexpected keyword argument 'idx'**\n"
	if got := occurrences(t, b, log, 0); len(got) != 1 || got[0].ID != "sglang/internal-call-signature-mismatch" {
		t.Errorf("got %s", brief(got))
	}
}

// When several records match one event, the cause names it before a
// symptom, and a symptom before a wrapper.
func TestCauseBeforeSymptomBeforeWrapper(t *testing.T) {
	m := testMatcher(t)
	tests := []struct{ log, want string }{
		{"Received sigquit from a child process. It usually means the child failed: CUDA out of memory\n", "t/oom"},
		{"Transfer thread failed because of Received sigquit from a child process. Prefill instance with bootstrap_port=1 is dead.\n", "t/sigquit"},
	}
	for _, tt := range tests {
		got := occurrences(t, m, tt.log, 0)
		if len(got) != 1 || got[0].ID != tt.want {
			t.Errorf("%q: got %s, want %s", tt.log, brief(got), tt.want)
		}
	}
}

// NCCL's WARN lines are the failures it returns as error codes: one that
// says what failed is an error even when no record knows it; one that
// does not stays quiet.
func TestNCCLWarnIsAnError(t *testing.T) {
	m := testMatcher(t)
	failed := "node-1:22:45 [0] NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory\n"
	if got := occurrences(t, m, failed, 0); len(got) != 1 || got[0].ID != UnknownError {
		t.Errorf("got %s", brief(got))
	}
	quiet := "node-1:22:45 [0] NCCL WARN Using non-default NCCL_P2P_LEVEL=NVL from the environment\n"
	if got := occurrences(t, m, quiet, 0); len(got) != 0 {
		t.Errorf("got %s", brief(got))
	}
	// NCCL's note that it found no vendor plugin says "could not" and "no
	// such file", at WARN or INFO level: a record of the built-in pack
	// knows it is harmless.
	b := builtinMatcher(t)
	for _, l := range []string{
		"node-1:22:45 [0] NCCL WARN NET/Plugin: Could not find: libnccl-net.so\n",
		"MLVM2: MLVM2:10802:10802 [7] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory\n",
	} {
		if got := occurrences(t, b, l, 0); len(got) != 0 {
			t.Errorf("%q: got %s", l, brief(got))
		}
	}
}

// A line its logger states at warning level that says something failed is
// an unknown warning; at info level, or saying nothing failed, it is
// nothing.
func TestUnknownWarning(t *testing.T) {
	m := testMatcher(t)
	tests := []struct{ line, want string }{
		{"2026-04-05 16:47:59,431 - vendor.plugin - WARNING - Failed to open the shared cache, running without it\n", UnknownWarning},
		{"2026-04-05 16:47:59 WARN smg::routers::http: src/routers/http/router.rs:90: Connection refused by http://10.0.0.5:30000\n", UnknownWarning},
		{"2026-04-05 16:47:59,431 - vendor.plugin - INFO - Failed requests so far: 0\n", ""},
		{"2026-04-05 16:47:59,431 - vendor.plugin - WARNING - the cache directory is on a slow disk\n", ""},
		{"2026-04-05 16:47:59,431 - vendor.plugin - ERROR - Failed to open the shared cache\n", UnknownError},
	}
	for _, tt := range tests {
		got := occurrences(t, m, tt.line, 0)
		id := ""
		if len(got) == 1 {
			id = got[0].ID
		}
		if len(got) > 1 || id != tt.want {
			t.Errorf("%q: %s; want %q", tt.line, brief(got), tt.want)
		}
	}
}

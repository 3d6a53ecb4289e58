package matcher

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// lines joins log lines, each ending in a newline.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// withTime is brief with each occurrence's time and level-free fields.
func withTime(os []Occurrence) string {
	var b strings.Builder
	for _, o := range os {
		fmt.Fprintf(&b, "%s %d-%d rank=%q time=%q exc=%q msg=%q\n", o.ID, o.Line, o.EndLine, o.Rank, o.Time, o.Exception, o.Message)
	}
	return b.String()
}

// prefixed puts a header before each line of a traceback, as a collector
// or logger does.
func prefixed(hdr string, ls ...string) string {
	return lines(eachAfter(hdr, ls...)...)
}

// A traceback with a 3.11 caret line under a source line, and a message.
var keyErrorTB = []string{
	"Traceback (most recent call last):",
	`  File "/opt/app/loader.py", line 88, in load_weights`,
	"    param = params_dict[name]",
	"            ~~~~~~~~~~~^^^^^^",
	"KeyError: 'lm_head.weight_scale'",
}

// schedulerTB is keyErrorTB as a scheduler logs it, under sglang's own
// header, after a line of its start-up.
var schedulerTB = append([]string{
	"[2026-03-14 23:20:30 TP1] Load weight begin. avail mem=61.20 GB",
	"[2026-03-14 23:20:31 TP1] Scheduler hit an exception: " + keyErrorTB[0],
}, keyErrorTB[1:]...)

// TestLearntHeaders reads tracebacks whose every line carries the header
// of a collector or logger that ParseLine does not know by name.
func TestLearntHeaders(t *testing.T) {
	m := testMatcher(t)
	for _, tt := range headerShapes {
		for _, piece := range []int{0, 1, 13} {
			t.Run(fmt.Sprintf("%s/piece=%d", tt.name, piece), func(t *testing.T) {
				if got := withTime(occurrences(t, m, tt.log, piece)); got != tt.want {
					t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
				}
			})
		}
	}
}

// bordered is schedulerTB as a terminal's box draws it: the traceback's
// lines after its head inside the box's left border.
var bordered = append(slices.Clone(schedulerTB[:2]), eachAfter("│ ", keyErrorTB[1:]...)...)

// eachAfter puts p before each line.
func eachAfter(p string, ls ...string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = p + l
	}
	return out
}

// keyErrorAt is the occurrence the test pack makes of keyErrorTB on the
// lines span, with its rank and time.
func keyErrorAt(span, rank, time string) string {
	return fmt.Sprintf("unknown/traceback %s rank=%q time=%q exc=\"KeyError\" msg=%q\n", span, rank, time, "'lm_head.weight_scale'")
}

// headerShapes are logs in the shapes users post, with what the test
// pack makes of them; they seed FuzzEngine too.
var headerShapes = []struct {
	name, log, want string
}{
	{
		name: "a quote around a box's border",
		log:  prefixed("> ", bordered...),
		want: keyErrorAt("2-6", "TP1", "2026-03-14 23:20:31"),
	},
	{
		name: "kubectl logs --prefix around a box's border",
		log:  prefixed("[pod/llm-prefill-0/server] ", bordered...),
		want: keyErrorAt("2-6", "TP1", "2026-03-14 23:20:31"),
	},
	{
		name: "a quote around a collector's stamp before sglang's own header",
		log:  prefixed("> [2026-03-15 06:20:31] ", schedulerTB...),
		want: keyErrorAt("2-6", "TP1", "2026-03-14 23:20:31"),
	},
	{
		name: "a margin before a native crash's report",
		log: prefixed("    ",
			"Fatal Python error: Segmentation fault",
			"",
			"Current thread 0x00007f4858f86740 (most recent call first):",
			`  File "/opt/app/pynccl_wrapper.py", line 351 in ncclCommInitRank`,
			`  File "/opt/app/pynccl.py", line 108 in __init__`,
			`  File "<string>", line 1 in <module>`),
		want: `unknown/error 1-6 rank="" time="" exc="" msg="Fatal Python error: Segmentation fault"` + "\n",
	},
	{
		name: "a margin before a traceback cut before its head",
		log:  prefixed("    ", keyErrorTB[1:]...),
		want: keyErrorAt("1-4", "", ""),
	},
	{
		name: "a margin before a torch rank's lines",
		log:  prefixed("    ", eachAfter("[rank1]: ", keyErrorTB[1:]...)...),
		want: keyErrorAt("1-4", "rank1", ""),
	},
	{
		name: "a quote around journald's lines that start alike before a traceback",
		log: prefixed("> Mar 14 06:20:31 gpu-node-4 python3[5120]: ",
			"../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [4,0,0] Assertion `index out of bounds` failed.",
			"../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [5,0,0] Assertion `index out of bounds` failed.",
			keyErrorTB[0], keyErrorTB[1], keyErrorTB[2], keyErrorTB[4]),
		want: "unknown/error 1-1 rank=\"\" time=\"Mar 14 06:20:31\" exc=\"\" msg=\"../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [4,0,0] Assertion `index out of bounds` failed.\"\n" +
			keyErrorAt("2-6", "", "Mar 14 06:20:31"),
	},
	{
		name: "a margin before a platform's timestamps",
		log:  prefixed("    2026-03-14T06:20:31.120Z ", keyErrorTB[1:]...),
		want: keyErrorAt("1-4", "", "2026-03-14T06:20:31.120Z"),
	},
	{
		name: "a margin before a logger's fields",
		log:  prefixed("    2026-03-14 06:20:31 | ERROR | stderr | ", keyErrorTB...),
		want: keyErrorAt("1-5", "", "2026-03-14 06:20:31"),
	},
	{
		name: "srun's task label around a quoted paste of a Ray actor's lines",
		log: prefixed("0: > (SGLangEngine pid=4121) ",
			"frame #38: __libc_start_main + 0x80 (0x7fbc54451e40 in /usr/lib/x86_64-linux-gnu/libc.so.6)",
			"frame #39: _start + 0x25 (0x555c90324f25 in sglang::scheduler_TP0)",
			"",
			"Fatal Python error: Aborted",
			""),
		want: `unknown/error 4-4 rank="" time="" exc="" msg="Fatal Python error: Aborted"` + "\n",
	},
	{
		name: "a box's border alone",
		log:  lines(bordered...),
		want: keyErrorAt("2-6", "TP1", "2026-03-14 23:20:31"),
	},
	{
		name: "journald around a quoted paste",
		log:  prefixed("Mar 14 06:20:31 gpu-node-4 python3[5120]: > ", keyErrorTB...),
		want: keyErrorAt("1-5", "", "Mar 14 06:20:31"),
	},
	{
		name: "a Ray actor's lines in a quoted paste under journald",
		log:  prefixed("Mar 14 06:20:31 gpu-node-4 python3[5120]: > (Worker pid=12) ", keyErrorTB...),
		want: keyErrorAt("1-5", "", "Mar 14 06:20:31"),
	},
	{
		name: "a collector's stamp of sglang's shape on every line",
		log:  prefixed("[2026-03-14 06:20:31] ", keyErrorTB...),
		want: keyErrorAt("1-5", "", "2026-03-14 06:20:31"),
	},
	{
		name: "a collector's stamp of sglang's shape before sglang's own header, no traceback",
		log: lines(
			"[2026-03-15 06:20:30] [2026-03-14 23:20:30 TP1] Load weight begin. avail mem=61.20 GB",
			"[2026-03-15 06:20:31] [2026-03-14 23:20:31 TP1] Load weight end.",
			"[2026-03-15 06:20:32] [2026-03-14 23:20:32 TP1] Capture cuda graph begin.",
			"[2026-03-15 06:20:33] [2026-03-14 23:20:33 TP1] Received sigquit from a child process. It usually means the child failed.",
		),
		want: `t/sigquit 4-4 rank="TP1" time="2026-03-14 23:20:33" exc="" msg="Received sigquit from a child process. It usually means the child failed."` + "\n",
	},
	{
		name: "a collector's stamp of sglang's shape before sglang's own header",
		log:  prefixed("[2026-03-15 06:20:31] ", schedulerTB...),
		want: keyErrorAt("2-6", "TP1", "2026-03-14 23:20:31"),
	},
	{
		name: "journald",
		log:  prefixed("Mar 14 06:20:31 gpu-node-4 python3[5120]: ", keyErrorTB...),
		want: keyErrorAt("1-5", "", "Mar 14 06:20:31"),
	},
	{
		name: "journald around sglang's own header",
		log: lines(
			"Mar 14 06:20:30 gpu-node-4 python3[5120]: [2026-03-14 06:20:30 TP1] Load weight begin. avail mem=61.20 GB",
			"Mar 14 06:20:31 gpu-node-4 python3[5120]: [2026-03-14 06:20:31 TP1] Scheduler hit an exception: Traceback (most recent call last):",
			`Mar 14 06:20:31 gpu-node-4 python3[5120]:   File "/opt/app/loader.py", line 88, in load_weights`,
			"Mar 14 06:20:31 gpu-node-4 python3[5120]:     param = params_dict[name]",
			"Mar 14 06:20:31 gpu-node-4 python3[5120]:             ~~~~~~~~~~~^^^^^^",
			"Mar 14 06:20:31 gpu-node-4 python3[5120]: KeyError: 'lm_head.weight_scale'",
			"Mar 14 06:20:31 gpu-node-4 python3[5120]: ",
			"Mar 14 06:20:32 gpu-node-4 python3[5099]: [2026-03-14 06:20:32] Received sigquit from a child process. It usually means the child failed.",
		),
		want: keyErrorAt("2-6", "TP1", "2026-03-14 06:20:31") +
			`t/sigquit 8-8 rank="" time="2026-03-14 06:20:32" exc="" msg="Received sigquit from a child process. It usually means the child failed."` + "\n",
	},
	{
		name: "stern",
		log:  prefixed("llm-decode-6c9f7d-qx2lp sglang ", keyErrorTB...),
		want: keyErrorAt("1-5", "", ""),
	},
	{
		name: "kubectl logs --prefix",
		log:  prefixed("[pod/llm-prefill-0/server] ", keyErrorTB...),
		want: keyErrorAt("1-5", "", ""),
	},
	{
		name: "a worker logger's prefix on every line",
		log:  prefixed("(Worker pid=312) ERROR 03-14 06:20:31 [executor.py:402] ", keyErrorTB...),
		want: keyErrorAt("1-5", "", "03-14 06:20:31"),
	},
	{
		name: "a worker logger's prefix with a rank",
		log:  prefixed("(EngineWorker rank=2 pid=77) ERROR 03-14 06:20:31 [executor.py:402] ", keyErrorTB...),
		want: keyErrorAt("1-5", "rank2", "03-14 06:20:31"),
	},
	{
		name: "cloud logging export",
		log:  prefixed("ERROR 2026-03-14T06:20:31Z {} ", keyErrorTB...),
		want: keyErrorAt("1-5", "", "2026-03-14T06:20:31Z"),
	},
	{
		name: "cloud logging export of a healthy stretch: sglang's records under the stream's ERROR",
		log: prefixed("ERROR 2026-03-14T06:20:31Z {} ",
			"[2026-03-14 06:20:29 TP0] Prefill batch, #new-seq: 1, #new-token: 158, #cached-token: 0, token usage: 0.08, #running-req: 31, #queue-req: 0",
			"[2026-03-14 06:20:30 TP0] Decode batch, #running-req: 32, #token: 11179, token usage: 0.08, cuda graph: True, gen throughput (token/s): 1635.11, #queue-req: 0",
			"[2026-03-14 06:20:30] INFO:     127.0.0.1:40052 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
			"[2026-03-14 06:20:31 TP0] Decode batch, #running-req: 32, #token: 11211, token usage: 0.08, cuda graph: True, gen throughput (token/s): 1641.20, #queue-req: 0",
		),
		want: "",
	},
	{
		name: "a wrapper re-logging sglang's records at its own ERROR level",
		log: prefixed("2025-04-03 12:06:13,365 - pipeline - ERROR - ",
			"[2026-03-14 06:20:29 TP0] Prefill batch, #new-seq: 1, #new-token: 158, #cached-token: 0, token usage: 0.08, #running-req: 31, #queue-req: 0",
			"[2026-03-14 06:20:30 TP0] Decode batch, #running-req: 32, #token: 11179, token usage: 0.08, cuda graph: True, gen throughput (token/s): 1635.11, #queue-req: 0",
			"[2026-03-14 06:20:31 TP0] Decode batch, #running-req: 32, #token: 11211, token usage: 0.08, cuda graph: True, gen throughput (token/s): 1641.20, #queue-req: 0",
			"[2026-03-14 06:20:32 TP0] Decode batch, #running-req: 31, #token: 11190, token usage: 0.08, cuda graph: True, gen throughput (token/s): 1638.02, #queue-req: 0",
		),
		want: "",
	},
	{
		name: "a wrapper re-logging a child's stderr under the stream's name: progress bars are no errors, a traceback is",
		log: lines(
			"2025-07-02 16:41:30 | WARNING | sglang.srt.models.registry | Ignore import error when loading sglang.srt.models.x_mm. cannot import name 'XConfig' from 'transformers'",
			"",
			"2025-07-02 16:41:30 | ERROR | stderr | Loading safetensors checkpoint shards:   0% Completed | 0/2 [00:00<?, ?it/s]",
			"",
			"2025-07-02 16:41:30 | ERROR | stderr | ",
			"2025-07-02 16:41:31 | ERROR | stderr | Loading safetensors checkpoint shards: 100% Completed | 2/2 [00:00<00:00,  3.60it/s]",
			"2025-07-02 16:41:31 | INFO | stdout | Capture cuda graph bs [1, 2, 4, 8]",
			"2025-07-02 16:41:33 | ERROR | stderr | Traceback (most recent call last):",
			`2025-07-02 16:41:33 | ERROR | stderr |   File "/opt/app/loader.py", line 88, in load_weights`,
			"2025-07-02 16:41:33 | ERROR | stderr |     param = params_dict[name]",
			"2025-07-02 16:41:33 | ERROR | stderr | KeyError: 'lm_head.weight_scale'",
			"2025-07-02 16:41:34 | INFO | stdout | Worker process failed to start",
		),
		want: keyErrorAt("8-11", "", "2025-07-02 16:41:33") +
			`unknown/error 12-12 rank="" time="" exc="" msg="Worker process failed to start"` + "\n",
	},
	{
		name: "cloud logging export without labels, cut before its traceback's head",
		log: prefixed("ERROR 2026-03-14T06:20:31.317856550Z ",
			"    self.model = get_model(",
			`  File "/opt/app/loader.py", line 88, in load_weights`,
			"    param = params_dict[name]",
			"KeyError: 'lm_head.weight_scale'",
			"",
			"the scheduler failed to recover",
		),
		want: keyErrorAt("2-4", "", "2026-03-14T06:20:31.317856550Z") +
			`unknown/error 6-6 rank="" time="2026-03-14T06:20:31.317856550Z" exc="" msg="the scheduler failed to recover"` + "\n",
	},
	{
		name: "cloud logging export without labels of a healthy stretch: the stream's ERROR is no error",
		log: prefixed("ERROR 2026-03-14T06:20:31.250Z ",
			"Loading safetensors checkpoint shards:  40% Completed | 2/5 [00:03<00:04,  1.52s/it]",
			"Loading safetensors checkpoint shards: 100% Completed | 5/5 [00:07<00:00,  1.49s/it]",
			"Capturing batches (bs=8 avail_mem=20.51 GB): 100%|██████████| 4/4 [00:01<00:00,  2.95it/s]",
			"The server is fired up and ready to roll!",
		),
		want: "",
	},
	{
		name: "a level word and a time on one line alone keep their level",
		log: lines(
			"[2026-03-14 06:20:29 TP0] Decode batch, #running-req: 3, token usage: 0.12",
			"ERROR 2026-03-14T06:20:31Z the cache disappeared",
			"[2026-03-14 06:20:32 TP0] Decode batch, #running-req: 3, token usage: 0.12",
		),
		want: `unknown/error 2-2 rank="" time="" exc="" msg="ERROR 2026-03-14T06:20:31Z the cache disappeared"` + "\n",
	},
	{
		name: "cloud logging export, newest line first",
		log: lines(
			"ERROR 2026-03-14T06:20:31Z {} KeyError: 'lm_head.weight_scale'",
			"ERROR 2026-03-14T06:20:31Z {}             ~~~~~~~~~~~^^^^^^",
			"ERROR 2026-03-14T06:20:31Z {}     param = params_dict[name]",
			`ERROR 2026-03-14T06:20:31Z {}   File "/opt/app/loader.py", line 88, in load_weights`,
			`ERROR 2026-03-14T06:20:31Z {}     load_weights(model)`,
			`ERROR 2026-03-14T06:20:31Z {}   File "/opt/app/main.py", line 12, in <module>`,
			"ERROR 2026-03-14T06:20:31Z {} Traceback (most recent call last):",
			"INFO 2026-03-14T06:20:30Z {} Loading weights from /models/x",
		),
		want: keyErrorAt("1-7", "", "2026-03-14T06:20:31Z"),
	},
	{
		name: "kubectl's pod prefix before sglang's header of ranks alone",
		log: lines(
			"[pod/sglang-0/sglang] [TP0] Scheduler hit an exception: Traceback (most recent call last):",
			`[pod/sglang-0/sglang]   File "/opt/app/loader.py", line 88, in load_weights`,
			"[pod/sglang-0/sglang]     param = params_dict[name]",
			"[pod/sglang-0/sglang] KeyError: 'lm_head.weight_scale'",
		),
		want: keyErrorAt("1-4", "TP0", ""),
	},
	{
		name: "a native crash's report under stern's prefix",
		log: lines(
			"sglang-7d9f-x2 sglang Fatal Python error: Segmentation fault",
			"sglang-7d9f-x2 sglang ",
			"sglang-7d9f-x2 sglang Thread 0x00007f3a (most recent call first):",
			`sglang-7d9f-x2 sglang   File "/opt/app/loader.py", line 88 in load_weights`,
		),
		want: `unknown/error 1-4 rank="" time="" exc="" msg="Fatal Python error: Segmentation fault"` + "\n",
	},
	{
		name: "tensorrt-llm",
		log:  prefixed("[03/14/2026-06:20:31] [TRT-LLM] [RANK 3] [E] ", keyErrorTB...),
		want: keyErrorAt("1-5", "rank3", "03/14/2026-06:20:31"),
	},
	{
		name: "the rust router's launcher",
		log:  prefixed("[Router (Rust)] 2026-03-14 06:20:31 - WARN - ", keyErrorTB...),
		want: keyErrorAt("1-5", "", "2026-03-14 06:20:31"),
	},
	{
		name: "the rust router's tracing",
		log:  prefixed("2026-03-14T06:20:31.120Z ERROR smg::routers::http::pd_router: src/routers/pd.rs:172: ", keyErrorTB...),
		want: keyErrorAt("1-5", "", "2026-03-14T06:20:31.120Z"),
	},
	{
		name: "a quoted paste",
		log: lines(
			"> Traceback (most recent call last):",
			`>   File "/opt/app/loader.py", line 88, in load_weights`,
			">     param = params_dict[name]",
			">             ~~~~~~~~~~~^^^^^^",
			"> KeyError: 'lm_head.weight_scale'",
			">",
			"> During handling of the above exception, another exception occurred:",
			">",
			"> Traceback (most recent call last):",
			`>   File "/opt/app/main.py", line 12, in <module>`,
			"> RuntimeError: could not load the checkpoint",
			"",
			"Any idea what is wrong?",
		),
		want: keyErrorAt("1-11", "", ""),
	},
	{
		name: "double-spaced paste",
		log: lines(
			"[2026-03-14 06:20:30] Prefill batch, #new-seq: 1",
			"",
			"[2026-03-14 06:20:30] Decode batch, #running-req: 1",
			"",
			"Exception in thread Thread-7 (transfer_worker):",
			"",
			"Traceback (most recent call last):",
			"",
			`  File "/opt/app/conn.py", line 30, in transfer_worker`,
			"",
			"    self.send(chunk)",
			"",
			"ImportError:",
			"",
			"libibverbs.so.1: cannot open shared object file",
			"",
			"[2026-03-14 06:20:31] Decode batch, #running-req: 0",
			"",
			"Traceback (most recent call last):",
			"",
			`  File "/opt/app/conn.py", line 52, in send`,
			"",
			"RuntimeError: transfer of room 42 failed:",
			"",
			"the peer at 10.0.0.7:17001 closed the connection",
			"",
			"[2026-03-14 06:20:32] Decode batch, #running-req: 0",
		),
		want: `unknown/traceback 5-15 rank="" time="" exc="ImportError" msg="libibverbs.so.1: cannot open shared object file"` + "\n" +
			`unknown/traceback 19-25 rank="" time="" exc="RuntimeError" msg="transfer of room 42 failed:"` + "\n",
	},
	{
		name: "a quoted, double-spaced paste under a console's timestamp",
		log: lines(
			`> [2026-05-02T11:40:07.118Z]   File "/opt/app/models/vlm.py", line 310, in load_weights`,
			">",
			"> [2026-05-02T11:40:07.118Z]     param = params_dict[name]",
			"> ",
			"> [2026-05-02T11:40:07.118Z]             ~~~~~~~~~~~^^^^^^",
			"> ",
			"> [2026-05-02T11:40:07.119Z] KeyError: 'vision_proj.bias'",
			"> ",
			"> [2026-05-02T11:40:07.119Z] ",
			"> ",
			"> [2026-05-02T11:40:07.120Z] [2026-05-02 11:40:07] Received sigquit from a child process.",
		),
		want: `unknown/traceback 1-7 rank="" time="2026-05-02T11:40:07.118Z" exc="KeyError" msg="'vision_proj.bias'"` + "\n" +
			`t/sigquit 11-11 rank="" time="2026-05-02 11:40:07" exc="" msg="Received sigquit from a child process."` + "\n",
	},
	{
		name: "JSON lines, one line of the traceback each",
		log: lines(
			`{"time": "2026-03-14T06:20:31", "level": "ERROR", "message": "Traceback (most recent call last):"}`,
			`{"time": "2026-03-14T06:20:31", "level": "ERROR", "message": "  File \"/opt/app/loader.py\", line 88, in load_weights"}`,
			`{"time": "2026-03-14T06:20:31", "level": "ERROR", "message": "    param = params_dict[name]"}`,
			`{"time": "2026-03-14T06:20:31", "level": "ERROR", "message": "KeyError: 'lm_head.weight_scale'"}`,
		),
		want: keyErrorAt("1-4", "", "2026-03-14T06:20:31"),
	},
	{
		name: "a JSON line holding a whole traceback",
		log: lines(
			`{"time": "2026-03-14T06:20:30", "level": "INFO", "message": "Loading weights"}`,
			`{"time": "2026-03-14T06:20:31", "level": "ERROR", "message": "load failed\nTraceback (most recent call last):\n  File \"/opt/app/loader.py\", line 88, in load_weights\n    param = params_dict[name]\nKeyError: 'lm_head.weight_scale'"}`,
			`{"time": "2026-03-14T06:20:32", "level": "INFO", "message": "shutting down"}`,
		),
		want: keyErrorAt("2-2", "", "2026-03-14T06:20:31"),
	},
	{
		name: "docker's json-file log",
		log: prefixedJSON(`{"log":"`, `\n","stream":"stderr","time":"2026-03-14T06:20:31.5Z"}`,
			"Traceback (most recent call last):",
			`  File \"/opt/app/loader.py\", line 88, in load_weights`,
			"    param = params_dict[name]",
			"KeyError: 'lm_head.weight_scale'"),
		want: keyErrorAt("1-4", "", "2026-03-14T06:20:31.5Z"),
	},
	{
		name: "a log of one line under a collector's prefix",
		log:  lines(`[pod/sglang-0/server] KeyError: 'lm_head.weight_scale'`),
		want: `unknown/error 1-1 rank="" time="" exc="KeyError" msg="'lm_head.weight_scale'"` + "\n",
	},
	{
		name: "a log of one line: a quote around journald's header, a platform's stamp and a logger's fields",
		log:  lines(`> Mar 14 06:20:31 gpu-node-4 python3[5120]: 2026-03-14T06:20:31.097121828Z 2026-03-14 06:20:31,096 - sglang - INFO - [2026-03-14 06:20:31 TP0] KeyError: 'lm_head.weight_scale'`),
		want: `unknown/error 1-1 rank="TP0" time="2026-03-14 06:20:31" exc="KeyError" msg="'lm_head.weight_scale'"` + "\n",
	},
	{
		name: "a log of two lines, quoted, under journald's header",
		log: lines(
			`> Mar 14 06:20:31 gpu-node-4 python3[5120]: Loading weights`,
			`> Mar 14 06:20:31 gpu-node-4 python3[5120]: KeyError: 'lm_head.weight_scale'`,
		),
		want: `unknown/error 2-2 rank="" time="Mar 14 06:20:31" exc="KeyError" msg="'lm_head.weight_scale'"` + "\n",
	},
	{
		name: "logfmt lines, one line of the traceback each",
		log: lines(
			`ts=2026-03-14T06:20:31 level=error pod=sglang-0 msg="Traceback (most recent call last):"`,
			`ts=2026-03-14T06:20:31 level=error pod=sglang-0 msg="  File \"/opt/app/loader.py\", line 88, in load_weights"`,
			`ts=2026-03-14T06:20:31 level=error pod=sglang-0 msg="    param = params_dict[name]"`,
			`ts=2026-03-14T06:20:31 level=error pod=sglang-0 msg="KeyError: 'lm_head.weight_scale'"`,
		),
		want: keyErrorAt("1-4", "", "2026-03-14T06:20:31"),
	},
	{
		name: "a logfmt record holding a whole traceback, and lines that only look like logfmt",
		log: lines(
			`time=2026-03-14T06:20:30 level=info msg=starting`,
			`Using tp_size=2 dp_size=1 for this run`,
			`ts=2026-03-14T06:20:31 lvl=ERROR message="load failed\nTraceback (most recent call last):\n  File \"/opt/app/loader.py\", line 88, in load_weights\n    param = params_dict[name]\nKeyError: 'lm_head.weight_scale'" caller=loader.go:12`,
			`tp_size=2 dp_size=1`,
		),
		want: keyErrorAt("3-3", "", "2026-03-14T06:20:31"),
	},
	{
		name: "a JSON record at error level whose message has no word of failure",
		log: lines(
			`{"time": "2026-03-14T06:20:30", "level": "INFO", "message": "engine ready"}`,
			`{"time": "2026-03-14T06:20:31", "level": "ERROR", "message": "engine stopped answering"}`,
		),
		want: `unknown/error 2-2 rank="" time="2026-03-14T06:20:31" exc="" msg="engine stopped answering"` + "\n",
	},
	{
		name: "API error bodies: OpenAI's object and a nested error",
		log: lines(
			`{"object":"error","message":"the worker went away","type":"InternalServerError","param":null,"code":500}`,
			`{"error": {"message": "upstream closed the stream", "type": "server_error", "code": 502}}`,
			`{"object":"chat.completion","message":"upstream closed the stream"}`,
		),
		want: `unknown/error 1-1 rank="" time="" exc="" msg="the worker went away"` + "\n" +
			`unknown/error 2-2 rank="" time="" exc="" msg="upstream closed the stream"` + "\n",
	},
	{
		name: "a header learnt from the lines before the one that proposes it, over a torch rank and a wrapped line",
		log: lines(
			"[pod/sglang-0/sglang] [2026-03-14 06:20:29 TP0] Load weight end. type=DeepseekV3ForCausalLM",
			"[pod/sglang-0/sglang] [2026-03-14 06:20:30 TP1] Load weight end. type=DeepseekV3ForCausalLM",
			"[pod/sglang-0/sglang] ",
			"[pod/sglang-0/sglang] [rank6]:[E314 06:30:31.730311765 ProcessGroupNCCL.cpp:616] [Rank 6] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, Nume",
			"[pod/sglang-0/sglang] lOut=1, Timeout(ms)=600000) ran for 600050 milliseconds before timing out.",
		),
		want: `unknown/error 4-5 rank="rank6" time="" exc="" msg="[Rank 6] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, Nume"` + "\n",
	},
	{
		name: "a frame whose path runs past the header's reach, under a worker logger's header",
		log: prefixed("(Worker pid=148) ERROR 07-01 02:36:18 [engine.py:366] ",
			`  File "/data/projects/team/miniconda3/envs/serving-python3.10/lib/python3.10/site-packages/engine/model_loader/weights/loader.py", line 88, in load_weights`,
			"    param = params_dict[name]",
			"KeyError: 'lm_head.weight_scale'"),
		want: keyErrorAt("1-3", "", "07-01 02:36:18"),
	},
	{
		name: "a logger's record under a prefix tells where the prefix ends",
		log: lines(
			"[pod/sglang-0/sglang] [2026-03-14 06:20:29 TP0] Load weight end.",
			"[pod/sglang-0/sglang] [2026-03-14 06:20:30 TP1] Load weight end.",
			"[pod/sglang-0/sglang] 2026-03-14 06:20:31,431 - CUTE_DSL - WARNING - [handle_import_error] - Unexpected error during package walk: x",
			"[pod/sglang-0/sglang] [2026-03-14 06:20:31] Unexpected error during package walk: x",
		),
		want: `unknown/warning 3-3 rank="" time="" exc="" msg="[handle_import_error] - Unexpected error during package walk: x"` + "\n",
	},
	{
		name: "argparse's usage under a prefix",
		log: prefixed("[pod/sglang-0/sglang] ",
			"usage: launch_server.py [-h] --model-path MODEL_PATH [--port PORT]",
			"                        [--tp-size TP_SIZE]",
			"launch_server.py: error: unrecognized arguments: --tp-szie 2"),
		want: `unknown/error 1-3 rank="" time="" exc="" msg="launch_server.py: error: unrecognized arguments: --tp-szie 2"` + "\n",
	},
	// Near misses.
	{
		name: "only two lines start alike",
		log: lines(
			"worker-3 ValueError: batch too large, retrying",
			"worker-3 retry 1 ok",
			"Traceback (most recent call last):",
			`  File "/opt/app/main.py", line 12, in <module>`,
			"KeyError: 'k'",
		),
		// Not a header: the first line keeps its prefix, and the
		// exception in it is an error said in passing, not an exception
		// line.
		want: `unknown/error 1-1 rank="" time="" exc="" msg="worker-3 ValueError: batch too large, retrying"` + "\n" +
			`unknown/traceback 3-5 rank="" time="" exc="KeyError" msg="'k'"` + "\n",
	},
	{
		name: "sglang's headers already parse",
		log: lines(
			"[2026-03-14 06:20:31 TP0] Scheduler hit an exception: Traceback (most recent call last):",
			`  File "/opt/app/loader.py", line 88, in load_weights`,
			"    param = params_dict[name]",
			"KeyError: 'lm_head.weight_scale'",
			"[2026-03-14 06:20:31 TP0] Load weight end.",
			"[2026-03-14 06:20:32 TP0] Load weight end.",
			"[2026-03-14 06:20:33 TP0] Load weight end.",
		),
		want: keyErrorAt("1-4", "TP0", "2026-03-14 06:20:31"),
	},
	{
		name: "an exception group's tree margin is not a header",
		log: lines(
			"  + Exception Group Traceback (most recent call last):",
			`  |   File "/opt/app/main.py", line 12, in <module>`,
			"  | ExceptionGroup: two ports (2 sub-exceptions)",
			"  +-+---------------- 1 ----------------",
			"    | Traceback (most recent call last):",
			`    |   File "/opt/app/net.py", line 7, in bind`,
			"    | OSError: port 30000 is taken",
			"    +------------------------------------",
		),
		want: `unknown/traceback 1-8 rank="" time="" exc="OSError" msg="port 30000 is taken"` + "\n",
	},
	{
		name: "a quoted paste whose first line has a message before the traceback's head",
		log: lines(
			"> Initialization failed. model_init_state: Traceback (most recent call last):",
			`>   File "/opt/app/loader.py", line 88, in load_weights`,
			">     param = params_dict[name]",
			"> KeyError: 'lm_head.weight'",
			"> ",
			"> Initialization failed. detoken_init_state: init ok",
		),
		want: `unknown/traceback 1-4 rank="" time="" exc="KeyError" msg="'lm_head.weight'"` + "\n" +
			`unknown/error 6-6 rank="" time="" exc="" msg="Initialization failed. detoken_init_state: init ok"` + "\n",
	},
	{
		name: "a collector's label and a message before the traceback's head",
		log: prefixed("gpu-node-7 app/sglang >> ",
			"Init failed. state: Traceback (most recent call last):",
			`  File "/opt/app/loader.py", line 88, in load_weights`,
			"    param = params_dict[name]",
			"KeyError: 'lm_head.weight_scale'",
		),
		want: keyErrorAt("1-4", "", ""),
	},
	{
		name: "a pod label and a message before the traceback's head",
		log: prefixed("[pod/sglang-0/main] ",
			"Warmup failed: Traceback (most recent call last):",
			`  File "/opt/app/loader.py", line 88, in load_weights`,
			"    param = params_dict[name]",
			"",
			"KeyError: 'lm_head.weight_scale'",
		),
		want: keyErrorAt("1-5", "", ""),
	},
	{
		name: "only the first line of a paste indented",
		log: lines(
			"    Traceback (most recent call last):",
			`  File "/opt/app/loader.py", line 88, in load_weights`,
			"    param = params_dict[name]",
			`  File "/opt/app/weights.py", line 12, in get`,
			"    return d[k]",
			"KeyError: 'lm_head.weight_scale'",
		),
		want: keyErrorAt("1-6", "", ""),
	},
	{
		name: "an exception line followed by an unrelated traceback",
		log: lines(
			"ValueError: bad value",
			"  hint: pass --x",
			"Traceback (most recent call last):",
			`  File "/opt/app/main.py", line 12, in <module>`,
			"KeyError: 'k'",
		),
		want: `unknown/error 1-2 rank="" time="" exc="ValueError" msg="bad value"` + "\n" +
			`unknown/traceback 3-5 rank="" time="" exc="KeyError" msg="'k'"` + "\n",
	},
}

func prefixedJSON(open, close string, ls ...string) string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = open + l + close
	}
	return lines(out...)
}

// A header is forgotten once the lines stop carrying it.
func TestLearntHeaderIsForgotten(t *testing.T) {
	m := testMatcher(t)
	var got []Occurrence
	e := m.NewEngine("x", func(o Occurrence) { got = append(got, o) })
	e.Write([]byte(prefixed("Mar 14 06:20:31 gpu-node-4 python3(5120) ", keyErrorTB...)))
	if !e.hdr.learnt {
		t.Fatal("the collector's header was not learnt")
	}
	e.Write([]byte(lines("Traceback (most recent call last):", `  File "/opt/app/main.py", line 12, in <module>`)))
	if !e.hdr.learnt {
		t.Fatal("the header was forgotten after two lines without it")
	}
	e.Write([]byte(lines("RuntimeError: could not load the checkpoint")))
	if e.hdr.learnt {
		t.Fatal("the header is still learnt after three of four lines without it")
	}
	e.Flush()
	want := keyErrorAt("1-5", "", "Mar 14 06:20:31") +
		`unknown/traceback 6-8 rank="" time="" exc="RuntimeError" msg="could not load the checkpoint"` + "\n"
	if s := withTime(got); s != want {
		t.Errorf("got:\n%s\nwant:\n%s", s, want)
	}
}

// Lines that carry a learnt header but match nothing allocate nothing.
func TestNoAllocationPerLineUnderALearntHeader(t *testing.T) {
	m := builtinMatcher(t)
	const hdr = "Mar 14 06:20:31 gpu-node-4 python3(5120) "
	e := m.NewEngine("x", func(Occurrence) {})
	e.Write([]byte(prefixed(hdr, keyErrorTB...)))
	line := []byte(hdr + "[2026-03-14 06:20:40 TP0] Decode batch, #running-req: 12, #token: 2048, gen throughput (token/s): 812.5\n")
	e.Write(line)
	e.Write(line)
	if !e.hdr.learnt {
		t.Fatal("the collector's header was not learnt")
	}
	if n := testing.AllocsPerRun(200, func() { e.Write(line) }); n != 0 {
		t.Errorf("Write(%q): %v allocations per line, want 0", line, n)
	}
}

// TestRepeatedLabelIsLearnt reads lines of a library's own (no traceback,
// no record header after the label) under a collector's label: a label
// that the lines before repeat byte for byte is learnt as a header, but a
// prefix that states a time, or one of plain words, is not.
func TestRepeatedLabelIsLearnt(t *testing.T) {
	m := testMatcher(t)
	body := []string{
		"shard 1 of 2 loaded",
		"shard 2 of 2 loaded",
		"Ignore import error when loading sglang.srt.models.a: No module named 'a'",
		"Ignore import error when loading sglang.srt.models.b: No module named 'b'",
	}
	tests := []struct {
		name, log string
		learnt    bool
	}{
		{"kubectl logs --prefix", prefixed("[pod/llm-prefill-0/server] ", body...), true},
		{"stern", prefixed("llm-decode-6c9f7d-qx2lp sglang ", body...), true},
		{"a Loki export's labels", prefixed("{app=\"sglang\", pod=\"sglang-0\"}\t", body...), true},
		{"lines of one second", prefixed("[Tue Sep  9 02:30:28 2025] node: ", body...), false},
		{"plain words", prefixed("note that ", body...), false},
	}
	for _, tt := range tests {
		for _, piece := range []int{0, 1, 13} {
			got := occurrences(t, m, tt.log, piece)
			if learnt := len(got) == 0; learnt != tt.learnt {
				t.Errorf("%s (pieces of %d): learnt %v, want %v; got\n%s", tt.name, piece, learnt, tt.learnt, brief(got))
			}
		}
	}
}

// argparse's usage starts a line's content after a header that ends in a
// space or in a tab (a Loki export's labels), and nowhere inside a word.
func TestUsageStartsContent(t *testing.T) {
	tests := []struct {
		line string
		want int
	}{
		{"2025-09-09T17:04:01.000Z\t{app=\"sglang\"}\tusage: launch_server.py [-h] --model-path MODEL_PATH", 40},
		{"sglang-1  | usage: launch_server.py [-h] --model-path MODEL_PATH", 12},
		{"token usage: 0.08, #running-req: 31", -1},
	}
	for _, tt := range tests {
		if got := contentStart([]byte(tt.line)); got != tt.want {
			t.Errorf("contentStart(%q) = %d, want %d", tt.line, got, tt.want)
		}
	}
}

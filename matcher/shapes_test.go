package matcher

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		name, in                  string
		stream, rank, time, ranks string
		record                    bool
		level                     Level
		msg                       string
	}{
		{name: "sglang", in: "[2026-11-29 10:15:02 TP3] Load weight begin.", time: "2026-11-29 10:15:02", ranks: "TP3", record: true, msg: "Load weight begin."},
		{name: "ranks without time", in: "[TP0] Scheduler hit an exception: x", ranks: "TP0", record: true, msg: "Scheduler hit an exception: x"},
		{name: "the releases of 2024: the time of day alone", in: "[17:39:28 TP0] Load weight end.", time: "17:39:28", ranks: "TP0", record: true, msg: "Load weight end."},
		{name: "the releases of 2024, main process", in: "[17:39:39] The server is fired up and ready to roll!", time: "17:39:39", record: true, msg: "The server is fired up and ready to roll!"},
		{name: "a clock that is not one", in: "[17:39] x", msg: "[17:39] x"},
		{name: "two-digit ranks any order", in: "[2026-11-29 10:15:02.123 TP12 DP3] x", time: "2026-11-29 10:15:02.123", ranks: "TP12 DP3", record: true, msg: "x"},
		{name: "continuation", in: "  File \"a.py\", line 1, in f", msg: "  File \"a.py\", line 1, in f"},
		{name: "kubectl timestamp", in: "2026-11-29T10:15:02.123456789Z [2026-11-29 10:15:02 TP0] x", time: "2026-11-29 10:15:02", ranks: "TP0", record: true, msg: "x"},
		{name: "kubectl timestamp on a continuation", in: "2026-11-29T10:15:02.123456789Z   File \"a.py\", line 1", time: "2026-11-29T10:15:02.123456789Z", msg: "  File \"a.py\", line 1"},
		{name: "a timestamp in brackets", in: "[2025-02-27T16:30:43.48675097Z] [rank3]:[E227 16:30:43.526290891 ProcessGroupNCCL.cpp:1785] boom", time: "2025-02-27T16:30:43.48675097Z", rank: "rank3", stream: "rank3", record: true, level: LevelError, msg: "boom"},
		{name: "sglang's own header is no bracketed timestamp", in: "[2026-11-29T10:15:02 TP0] x", msg: "[2026-11-29T10:15:02 TP0] x"},
		{name: "the container runtime's file (CRI)", in: "2026-11-29T10:15:02.123456789Z stderr F [2026-11-29 10:15:02 TP0] x", time: "2026-11-29 10:15:02", ranks: "TP0", record: true, msg: "x"},
		{name: "CRI continuation", in: "2026-11-29T10:15:02.123456789Z stderr F   File \"a.py\", line 1", time: "2026-11-29T10:15:02.123456789Z", msg: "  File \"a.py\", line 1"},
		{name: "CRI part of a split line", in: "2026-11-29T10:15:02.123456789Z stdout P ValueError: x", time: "2026-11-29T10:15:02.123456789Z", msg: "ValueError: x"},
		{name: "CRI empty line", in: "2026-11-29T10:15:02.123456789Z stderr F", time: "2026-11-29T10:15:02.123456789Z", msg: ""},
		{name: "a word after a timestamp that is no CRI stream", in: "2026-11-29T10:15:02Z stderrF x", time: "2026-11-29T10:15:02Z", msg: "stderrF x"},
		{name: "timestamp with offset", in: "2026-11-29T10:15:02+01:00 ValueError: x", time: "2026-11-29T10:15:02", msg: "ValueError: x"},
		{name: "an export's timestamp and a tab", in: "2026-11-29T10:15:02+08:00\t[2026-11-29 02:15:02 DP7 TP7] x", time: "2026-11-29 02:15:02", ranks: "DP7 TP7", record: true, msg: "x"},
		{name: "a Cloud Logging export: its severity is the stream's", in: "ERROR 2026-03-14T06:20:31Z {} [2026-03-14 06:20:29 TP0] Decode batch, #running-req: 3", time: "2026-03-14 06:20:29", ranks: "TP0", record: true, msg: "Decode batch, #running-req: 3"},
		{name: "a Cloud Logging export with labels, plain text", in: `INFO 2026-03-14T06:20:31.250Z {"pod":"sglang-0"} Loading safetensors checkpoint shards: 40% Completed`, time: "2026-03-14T06:20:31.250Z", msg: "Loading safetensors checkpoint shards: 40% Completed"},
		{name: "a level word before a timestamp is not always an export", in: "ERROR 2026-03-14T06:20:31Z failed to connect", msg: "ERROR 2026-03-14T06:20:31Z failed to connect"},
		{name: "compose", in: "llm-prefill-0  | [2026-11-29 10:15:02] x", stream: "llm-prefill-0", time: "2026-11-29 10:15:02", record: true, msg: "x"},
		{name: "compose continuation", in: "llm-decode-0   |   File \"a.py\"", stream: "llm-decode-0", msg: "  File \"a.py\""},
		{name: "journald", in: "Mar 14 06:20:31 gpu-node-4 python3[5120]:   File \"a.py\"", stream: "python3[5120]", time: "Mar 14 06:20:31", msg: "  File \"a.py\""},
		{name: "a container's timestamp under journald", in: "Mar 14 06:20:31 gpu-node-4 python3[5120]: 2026-11-29T10:15:02.123456789Z   File \"a.py\"", stream: "python3[5120]", time: "Mar 14 06:20:31", msg: "  File \"a.py\""},
		{name: "compose under journald", in: "Mar 14 06:20:31 gpu-node-4 python3[5120]: llm-decode-0   |   File \"a.py\"", stream: "llm-decode-0", time: "Mar 14 06:20:31", msg: "  File \"a.py\""},
		{name: "compose empty line", in: "llm-decode-0   |", stream: "llm-decode-0", msg: ""},
		{name: "compose without replica number", in: "deepseek-v32  |   File \"a.py\"", stream: "deepseek-v32", msg: "  File \"a.py\""},
		{name: "srun task label", in: "0: [rank3]:[W305 03:55:35.235035264 socket.cpp:462] [c10d] x", stream: "0: [rank3", rank: "rank3", record: true, level: LevelWarning, msg: "[c10d] x"},
		{name: "ray actor", in: "(SGLangEngine pid=4123, ip=10.0.3.7) Traceback (most recent call last):", stream: "SGLangEngine pid=4123, ip=10.0.3.7", msg: "Traceback (most recent call last):"},
		{name: "ray task", in: "(pid=77) KeyError: 'x'", stream: "pid=77", msg: "KeyError: 'x'"},
		{name: "ray actor, indented paste", in: "  (SGLangEngine pid=69916)   File \"/x/storage.py\", line 1457, in _new_shared_cuda", stream: "SGLangEngine pid=69916", msg: "  File \"/x/storage.py\", line 1457, in _new_shared_cuda"},
		{name: "torchrun rank", in: "[rank3]:   File \"a.py\", line 2, in f", stream: "rank3", rank: "rank3", msg: "  File \"a.py\", line 2, in f"},
		{name: "torch c10", in: "[rank4]:[E1129 10:15:02.104512039 ProcessGroupNCCL.cpp:616] [Rank 4] Watchdog caught collective operation timeout", stream: "rank4", rank: "rank4", record: true, level: LevelError, msg: "[Rank 4] Watchdog caught collective operation timeout"},
		{name: "torch c10 short month", in: "[W226 11:16:37.104512039 ProcessGroupNCCL.cpp:1496] Warning: x", record: true, level: LevelWarning, msg: "Warning: x"},
		{name: "glog error", in: "E1129 10:01:02.553695 67580 rdma_context.cpp:203] Failed to register memory 0x7c0ab6000000: Bad address [14]", record: true, level: LevelError, msg: "Failed to register memory 0x7c0ab6000000: Bad address [14]"},
		{name: "glog info", in: "I1129 10:01:02.553695 67580 transfer_engine.cpp:53] Transfer Engine starting", record: true, level: LevelInfo, msg: "Transfer Engine starting"},
		{name: "compose and glog", in: "llm-prefill-0  | E1129 10:01:02.014493   391 tcp_transport.cpp:542] TcpTransport::startTransfer failed", stream: "llm-prefill-0", record: true, level: LevelError, msg: "TcpTransport::startTransfer failed"},
		{name: "uvicorn error", in: "[2026-11-29 10:15:02] ERROR:    Exception in ASGI application", time: "2026-11-29 10:15:02", record: true, level: LevelError, msg: "Exception in ASGI application"},
		{name: "uvicorn info", in: "[2026-11-29 10:15:26] INFO:     Uvicorn running on http://127.0.0.1:30000", time: "2026-11-29 10:15:26", record: true, level: LevelInfo, msg: "Uvicorn running on http://127.0.0.1:30000"},
		{name: "bare uvicorn line", in: "INFO:     127.0.0.1:40000 - \"POST /generate HTTP/1.1\" 200 OK", record: true, level: LevelInfo, msg: "127.0.0.1:40000 - \"POST /generate HTTP/1.1\" 200 OK"},
		{name: "python logging", in: "ERROR:sglang.srt.server:request failed", record: true, level: LevelError, msg: "request failed"},
		{name: "vllm style", in: "INFO 11-29 17:50:56 __init__.py:190] Automatically detected platform cuda.", record: true, level: LevelInfo, msg: "Automatically detected platform cuda."},
		{name: "rust router", in: "2026-11-29 10:20:00 ERROR smg::routers::http: src/routers/http/pd_router.rs:812: Prefill server failed", record: true, level: LevelError, msg: "smg::routers::http: src/routers/http/pd_router.rs:812: Prefill server failed"},
		{name: "absl and TensorFlow: an info line that speaks of errors", in: "2026-11-29 10:20:00.990529: I tensorflow/core/util/port.cc:153] oneDNN custom operations are on. Results may differ by round-off errors.", record: true, level: LevelInfo, msg: "oneDNN custom operations are on. Results may differ by round-off errors."},
		{name: "absl and TensorFlow at error level", in: "2026-11-29 10:20:00.007851: E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:485] Unable to register cuFFT factory", record: true, level: LevelError, msg: "Unable to register cuFFT factory"},
		{name: "absl without fractions, warning", in: "2026-11-29 10:20:00: W tensorflow/core/framework/op_kernel.cc:1828] op failed", record: true, level: LevelWarning, msg: "op failed"},
		{name: "absl in an indented paste", in: "    2026-11-29 10:20:00.990529: I tensorflow/core/util/port.cc:153] round-off errors may differ", record: true, level: LevelInfo, msg: "round-off errors may differ"},
		{name: "a colon and a letter after a time that are no absl header", in: "2026-11-29 10:20:00: I think it failed", msg: "2026-11-29 10:20:00: I think it failed"},
		{name: "nccl warn", in: "node-3:190:3197 [2] NCCL WARN NET/IB : Got async event : port error", record: true, level: LevelError, msg: "WARN NET/IB : Got async event : port error"},
		{name: "nccl info", in: "node-3:190:3197 [2] NCCL INFO Connected all trees", record: true, level: LevelInfo, msg: "INFO Connected all trees"},
		{name: "bar glued to a record", in: "Loading shards: 100% Completed | 5/5 [00:04<00:00,  1.10it/s][2026-11-29 10:15:18 TP0] Load weight end.", time: "2026-11-29 10:15:18", ranks: "TP0", record: true, msg: "Load weight end."},
		{name: "a crash report glued to a bar", in: "Capturing batches (bs=448 avail_mem=87.41 GB):   8%|█▋        | 4/51 [00:20<03:35,  4.59s/it]Fatal Python error: Segmentation fault", msg: "Fatal Python error: Segmentation fault"},
		{name: "a bar at its start, nothing glued", in: "Capturing batches (bs=4 avail_mem=7.41 GB):   0%|          | 0/23 [00:00<?, ?it/s]", msg: "Capturing batches (bs=4 avail_mem=7.41 GB):   0%|          | 0/23 [00:00<?, ?it/s]"},
		{name: "a bar inside a record, a traceback head glued", in: "[2026-11-29 10:15:18 TP0] Capturing batches: 4/51 [00:20<03:35,  4.59s/it]Traceback (most recent call last):", msg: "Traceback (most recent call last):"},
		{name: "brackets that are no bar's timing", in: "[2026-11-29 10:15:18 TP0] rates [a/s] and [b?] x", time: "2026-11-29 10:15:18", ranks: "TP0", record: true, msg: "rates [a/s] and [b?] x"},
		// Not prefixes.
		{name: "table row", in: "name | value", msg: "name | value"},
		{name: "bracketed text", in: "[sgl_kernel] CRITICAL: x", msg: "[sgl_kernel] CRITICAL: x"},
		{name: "parenthesis", in: "(see above) RuntimeError: x", msg: "(see above) RuntimeError: x"},
		{name: "word ERROR mid-line", in: "Set ERROR_LEVEL to 3", msg: "Set ERROR_LEVEL to 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := ParseLine([]byte(tt.in))
			got := fmt.Sprintf("stream=%q rank=%q time=%q ranks=%q record=%v level=%d msg=%q",
				l.Stream, l.Rank, l.Header.Time, l.Header.Ranks, l.Record, l.Level, l.Msg)
			want := fmt.Sprintf("stream=%q rank=%q time=%q ranks=%q record=%v level=%d msg=%q",
				tt.stream, tt.rank, tt.time, tt.ranks, tt.record, tt.level, tt.msg)
			if got != want {
				t.Errorf("ParseLine(%q)\n got %s\nwant %s", tt.in, got, want)
			}
		})
	}
}

// TestEngineShapes runs the event shapes of real logs, each fed whole and
// in small pieces.
func TestEngineShapes(t *testing.T) {
	m := testMatcher(t)
	tests := []struct {
		name, log, want string
	}{
		{
			name: "tracebacks of two torchrun ranks interleaved line by line",
			log: "[rank0]: Traceback (most recent call last):\n" +
				"[rank1]: Traceback (most recent call last):\n" +
				"[rank0]:   File \"a.py\", line 1, in f\n" +
				"[rank1]:   File \"b.py\", line 2, in g\n" +
				"[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n" +
				"[rank1]: torch.distributed.DistBackendError: NCCL error: remote process exited\n",
			want: `t/oom 1-5 rank="rank0" exc="torch.OutOfMemoryError" msg="CUDA out of memory. Tried to allocate 2.00 GiB."` + "\n" +
				`unknown/traceback 2-6 rank="rank1" exc="torch.distributed.DistBackendError" msg="NCCL error: remote process exited"` + "\n",
		},
		{
			name: "a bare head, then a head another process announced, then one traceback",
			log: "Process Process-1:\n" +
				"Traceback (most recent call last):\n" +
				"router init state: Traceback (most recent call last):\n" +
				"  File \"/x/manager.py\", line 68, in start_router_process\n" +
				"    model_client = ModelRpcClient(server_args, port_args)\n" +
				"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 112.00 MiB.\n" +
				"\n" +
				"detoken init state: init ok\n",
			want: `t/oom 1-6 rank="" exc="torch.OutOfMemoryError" msg="CUDA out of memory. Tried to allocate 112.00 MiB."` + "\n",
		},
		{
			name: "a pod's log file as the container runtime writes it (CRI)",
			log: "2026-11-29T10:15:02.000000001Z stderr F [2026-11-29 10:15:02 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"2026-11-29T10:15:02.000000002Z stderr F   File \"a.py\", line 1, in f\n" +
				"2026-11-29T10:15:02.000000003Z stderr F     g()\n" +
				"2026-11-29T10:15:02.000000004Z stderr F RuntimeError: CUDA error: out of memory\n" +
				"2026-11-29T10:15:02.000000005Z stderr F\n",
			want: `t/oom 1-4 rank="TP0" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "docker's json-file: a frame's escaped quotes still open the traceback",
			log: `{"log":"  File \"/opt/app/loader.py\", line 88, in load_weights\n","stream":"stderr","time":"2026-11-29T10:15:02.1Z"}` + "\n" +
				`{"log":"    param = params_dict[name]\n","stream":"stderr","time":"2026-11-29T10:15:02.2Z"}` + "\n" +
				`{"log":"KeyError: 'lm_head.weight_scale'\n","stream":"stderr","time":"2026-11-29T10:15:02.3Z"}` + "\n",
			want: `unknown/traceback 1-3 rank="" exc="KeyError" msg="'lm_head.weight_scale'"` + "\n",
		},
		{
			name: "an exception line at the frames' indentation ends the traceback",
			log: "File \"s/batch.py\", line 2654, in _force_track\n" +
				"      x = f(y)\n" +
				"  File \"s/batch.py\", line 2660, in f\n" +
				"      assert i % chunk_size == 0\n" +
				"             ^^^^^^^^^^^^^^^^^^^\n" +
				"  AssertionError\n",
			want: `unknown/traceback 1-6 rank="" exc="AssertionError" msg="assert i % chunk_size == 0"` + "\n",
		},
		{
			name: "a bare assert says what failed in the line that raised it",
			log: "Traceback (most recent call last):\n" +
				"  File \"/x/gemm.py\", line 167, in gemm\n" +
				"    assert n % 64 == 0 and k % 128 == 0\n" +
				"AssertionError\n",
			want: `unknown/traceback 1-4 rank="" exc="AssertionError" msg="assert n % 64 == 0 and k % 128 == 0"` + "\n",
		},
		{
			name: "compose services keep their records apart",
			log: "p-0  | [2026-11-29 10:15:02 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"d-0  | [2026-11-29 10:15:02] Decode batch, #running-req: 1\n" +
				"p-0  |   File \"a.py\", line 1, in f\n" +
				"p-0  | RuntimeError: CUDA error: out of memory\n" +
				"p-0  | \n",
			want: `t/oom 1-4 rank="TP0" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "unprefixed tracebacks of two processes interleaved",
			log: "Process SpawnProcess-1:\nProcess SpawnProcess-2:\n" +
				"Traceback (most recent call last):\nTraceback (most recent call last):\n" +
				"  File \"a.py\", line 1, in run\n  File \"a.py\", line 1, in run\n" +
				"KeyError: 'a'\nRuntimeError: CUDA error: out of memory\n",
			want: `unknown/traceback 1-8 rank="" exc="KeyError" msg="'a'"` + "\n" +
				`t/oom 1-8 rank="" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "Ray re-raising a remote task's error: the remote exception is the key",
			log: "Traceback (most recent call last):\n" +
				"  File \"/x/ray/_private/worker.py\", line 919, in get_objects\n" +
				"    raise value.as_instanceof_cause()\n" +
				"ray.exceptions.RayTaskError(KeyError): ray::Runner.run() (pid=77, ip=10.0.0.2, actor_id=ab12)\n" +
				"  File \"/x/trainer.py\", line 12, in run\n" +
				"    self.init()\n" +
				"ray.exceptions.RayTaskError(KeyError): ray::Worker.init() (pid=78, ip=10.0.0.2)\n" +
				"  File \"/x/worker.py\", line 3, in init\n" +
				"    cfg['missing']\n" +
				"KeyError: 'missing'\n",
			want: `unknown/traceback 1-10 rank="" exc="KeyError" msg="'missing'"` + "\n",
		},
		{
			name: "Ray's re-raise cut before the remote exception names its class",
			log: "Traceback (most recent call last):\n" +
				"  File \"/x/ray/_private/worker.py\", line 906, in get_objects\n" +
				"    raise value.as_instanceof_cause()\n" +
				"ray.exceptions.RayTaskError(OutOfMemoryError): ray::main_task() (pid=508, ip=10.1.2.6)\n" +
				"  File \"/x/main_ppo.py\", line 168, in main_task\n" +
				"    trainer.fit()\n",
			want: `unknown/traceback 1-6 rank="" exc="OutOfMemoryError" msg="ray::main_task() (pid=508, ip=10.1.2.6)"` + "\n",
		},
		{
			name: "Ray's report of an error nobody awaited is a traceback",
			log: "(Driver pid=5) Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::Worker.init() (pid=78, ip=10.0.0.2)\n" +
				"(Driver pid=5)   File \"/x/worker.py\", line 3, in init\n" +
				"(Driver pid=5)     torch.empty(n, device='cuda')\n" +
				"(Driver pid=5) RuntimeError: CUDA error: out of memory\n",
			want: `t/oom 1-4 rank="" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "frames pasted without indentation",
			log: "[2026-11-29 10:15:02 TP2] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"File \"/x/scheduler.py\", line 1787, in run_scheduler_process\n" +
				"scheduler = Scheduler(server_args, port_args)\n" +
				"File \"/x/model_runner.py\", line 253, in init_torch_distributed\n" +
				"pass\n" +
				"RuntimeError: CUDA error: out of memory\n",
			want: `t/oom 1-6 rank="TP2" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "unindented frames with caret lines and an annotated assignment as source",
			log: "File \"/x/pynccl.py\", line 110, in __init__\n" +
				"self.comm: ncclComm_t = self.nccl.ncclCommInitRank(\n" +
				"File \"/x/matcher.py\", line 308, in fill\n" +
				"return self._handle.fill(bitmask, index)\n" +
				"^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n" +
				"File \"/x/utils.py\", line 106, in get_hidden_dim\n" +
				"raise NotImplementedError()\n" +
				"~~~~~^^^^^^^^^\n" +
				"NotImplementedError\n",
			want: `unknown/traceback 1-9 rank="" exc="NotImplementedError" msg=""` + "\n",
		},
		{
			name: "an unindented frame with no source line before the exception",
			log:  "Traceback (most recent call last):\nFile \"<string>\", line 1, in <module>\nKeyError: 'model'\n",
			want: `unknown/traceback 1-3 rank="" exc="KeyError" msg="'model'"` + "\n",
		},
		{
			name: "a signal handler's segfault banner and its frames in Python's shape",
			log: "!!!!!!! Segfault encountered !!!!!!!\n" +
				"  File \"<unknown>\", line 0, in ncclCommInitRank\n" +
				"File \"<unknown>\", line 0, in ffi_call\n" +
				"[2026-11-29 10:15:02] next\n",
			want: `unknown/error 1-3 rank="" exc="" msg="!!!!!!! Segfault encountered !!!!!!!"` + "\n",
		},
		{
			name: "an argparse error no record knows ends its usage text",
			log:  "usage: router.py [-h] [--policy POLICY]\n                 [--port PORT]\nrouter.py: error: something odd about --policy\nnext\n",
			want: `unknown/error 1-3 rank="" exc="" msg="router.py: error: something odd about --policy"` + "\n",
		},
		{
			name: "an exception message over several lines",
			log:  "ImportError: \n[kernel] CRITICAL: Could not load any library!\nAttempted locations:\n1. /x/a.so\n\nok\n",
			// A message that starts on the line after its class may hold
			// blank lines; it goes on until a record or an opener.
			want: `unknown/error 1-6 rank="" exc="ImportError" msg="[kernel] CRITICAL: Could not load any library!"` + "\n",
		},
		{
			name: "a CUDA error's advice lines belong to it",
			log: "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n" +
				"RuntimeError: CUDA error: an illegal memory access was encountered\n" +
				"CUDA kernel errors might be asynchronously reported at some other API call.\n" +
				"For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n" +
				"ValueError: next\n",
			want: `unknown/traceback 1-5 rank="" exc="RuntimeError" msg="CUDA error: an illegal memory access was encountered"` + "\n" +
				`unknown/error 6-6 rank="" exc="ValueError" msg="next"` + "\n",
		},
		{
			name: "exception group: the leaf errors, not the group",
			log: "  + Exception Group Traceback (most recent call last):\n" +
				"  |   File \"a.py\", line 3, in <module>\n" +
				"  |     raise ExceptionGroup(\"two\", [ValueError(1), KeyError(2)])\n" +
				"  | ExceptionGroup: two (2 sub-exceptions)\n" +
				"  +-+---------------- 1 ----------------\n" +
				"    | RuntimeError: CUDA error: out of memory\n" +
				"    +---------------- 2 ----------------\n" +
				"    | KeyError: 2\n" +
				"    +------------------------------------\n" +
				"done\n",
			want: `t/oom 1-9 rank="" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "logging error is not a server error",
			log: "--- Logging error ---\nTraceback (most recent call last):\n" +
				"  File \"/usr/lib/python3.11/logging/__init__.py\", line 1110, in emit\n" +
				"TypeError: not all arguments converted during string formatting\n" +
				"Call stack:\n  File \"a.py\", line 1, in <module>\nMessage: 'x %s'\nArguments: (1, 2)\n",
			want: "",
		},
		{
			name: "native crash: the thrown class and what()",
			log: "terminate called after throwing an instance of 'c10::DistBackendError'\n" +
				"  what():  [PG ID 0 Rank 3] Process group watchdog thread terminated with exception\n" +
				"Exception raised from checkTimeout at /x/ProcessGroupNCCL.cpp:635 (most recent call first):\n" +
				"frame #0: c10::Error::Error() + 0x98 (0x7f in /x/libc10.so)\n" +
				"frame #1: <unknown function> + 0x1 (0x7f in /x/libtorch.so)\n" +
				"\n",
			want: `unknown/error 1-5 rank="" exc="c10::DistBackendError" msg="[PG ID 0 Rank 3] Process group watchdog thread terminated with exception"` + "\n",
		},
		{
			name: "Python fatal error with its thread dump",
			log: "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f1 (most recent call first):\n" +
				"  File \"a.py\", line 1 in f\n\nExtension modules: numpy.core (total: 1)\n[2026-11-29 10:15:02] next\n",
			want: `unknown/error 1-6 rank="" exc="" msg="Fatal Python error: Segmentation fault"` + "\n",
		},
		{
			name: "UCX crash report",
			log: "[node-1:4123:0:4188] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)\n" +
				"==== backtrace (tid:   4188) ====\n 0  /usr/lib/libucs.so.0(ucs_handle_error+0x2e4) [0x7f]\n=================================\n",
			want: `unknown/error 1-4 rank="" exc="" msg="[node-1:4123:0:4188] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)"` + "\n",
		},
		{
			name: "glog error lines are errors, warnings are not",
			log:  "W1129 10:01:02.1 1 a.cpp:1] retrying\nE1129 10:01:02.2 1 rdma_context.cpp:203] Failed to register memory 0x7c0ab6000000: Bad address [14]\n",
			want: `unknown/error 2-2 rank="" exc="" msg="Failed to register memory 0x7c0ab6000000: Bad address [14]"` + "\n",
		},
		{
			name: "a message that starts with Error",
			log:  "[2026-11-29 10:15:02] Error fetching prefill parallel info from bootstrap: connection refused\n",
			want: `unknown/error 1-1 rank="" exc="" msg="Error fetching prefill parallel info from bootstrap: connection refused"` + "\n",
		},
		{
			name: "an exception line pasted in backticks",
			log:  "`ValueError: Weight output_partition_size = 8 is not divisible by 128.`\n",
			want: `unknown/error 1-1 rank="" exc="ValueError" msg="Weight output_partition_size = 8 is not divisible by 128."` + "\n",
		},
		{
			name: "a traceback cut by the end of the log names its last frame",
			log: "[TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"  File \".../scheduler.py\", line 1653, in run_event_loop\n    dispatch_event_loop(self)\n" +
				"  File \".../common.py\", line 412, in alloc_paged_token_slots_extend\n",
			want: `unknown/traceback 1-4 rank="TP0" exc="" msg="File \".../common.py\", line 412, in alloc_paged_token_slots_extend"` + "\n",
		},
		{
			name: "a traceback whose head is not in the log",
			log: "    self._init_handles()\n" +
				"  File \"/x/triton/compiler/compiler.py\", line 385, in _init_handles\n" +
				"    raise OutOfResources(self.metadata.shared, max_shared, \"shared memory\")\n" +
				"triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072\n\n",
			want: `unknown/traceback 2-4 rank="" exc="triton.runtime.errors.OutOfResources" msg="out of resource: shared memory, Required: 131072"` + "\n",
		},
		{
			name: "a CUDA error printed by a kernel library",
			log:  "CUDA error (/x/flash_fwd_launch_template.h:188): an illegal memory access was encountered\n",
			want: `unknown/error 1-1 rank="" exc="" msg="CUDA error (/x/flash_fwd_launch_template.h:188): an illegal memory access was encountered"` + "\n",
		},
		{
			name: "an exception line hard-wrapped by a terminal",
			log:  "ok\nRuntimeError: PD disagg: PP>1 not supported for MiniMax sparse ind\nex yet.\nnext\n",
			want: `t/pp 2-2 rank="" exc="RuntimeError" msg="PD disagg: PP>1 not supported for MiniMax sparse index yet."` + "\n",
		},
		{
			name: "an exception line under a long source line holding the record's words",
			log: "Traceback (most recent call last):\n" +
				"  File \"/x/sglang/srt/distributed/utils.py\", line 55, in ensure_divisibility\n" +
				"    assert numerator % denominator == 0, \"{} is not divisible by {}\".format(\n" +
				"AssertionError: 28 is not divisible by 8\n",
			want: `t/divide 1-4 rank="" exc="AssertionError" msg="28 is not divisible by 8"` + "\n",
		},
		{
			name: "a log record hard-wrapped at a space",
			log: "[2026-11-29 10:15:02] Transfer thread failed because of x. Prefill instance with bootstrap_port=8998 is\ndead.\n" +
				"[2026-11-29 10:15:03] next\n",
			want: `t/wrapper 1-2 rank="" exc="" msg="Transfer thread failed because of x. Prefill instance with bootstrap_port=8998 is dead."` + "\n",
		},
		{
			name: "a log pasted with a margin on every line (a list item, a notebook's output)",
			log: "  [2026-07-21 19:49:50] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"    File \"/x/scheduler.py\", line 2706, in run_scheduler_process\n" +
				"      scheduler.event_loop_normal()\n" +
				"      ~~~~~~~~~~~~~~~~~~~~~~~~~~~^^\n" +
				"    File \"/x/hook.py\", line 134, in validate\n" +
				"      raise ValueError(\n" +
				"      ...<2 lines>...\n" +
				"      )\n" +
				"  ValueError: cannot schedule prefill in phase=running_decode\n" +
				"  \n" +
				"  [2026-07-21 19:49:50] Received sigquit from a child process. It usually means the child failed.\n",
			want: `unknown/traceback 1-9 rank="" exc="ValueError" msg="cannot schedule prefill in phase=running_decode"` + "\n" +
				`t/sigquit 11-11 rank="" exc="" msg="Received sigquit from a child process. It usually means the child failed."` + "\n",
		},
		{
			name: "an excerpt that starts inside a traceback pasted with a margin: the exception is less indented than the frames",
			log: "    File \"/x/sdpa_attention.py\", line 91, in sdpa_attention_forward\n" +
				"      attn_output = attn_output.transpose(1, 2).contiguous()\n" +
				"  torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 42.00 MiB.\n" +
				"  \n",
			want: `t/oom 1-3 rank="" exc="torch.OutOfMemoryError" msg="CUDA out of memory. Tried to allocate 42.00 MiB."` + "\n",
		},
		{
			name: "an excerpt that starts inside faulthandler's stack dump: no traceback, and the error after it comes alone",
			log: "  File \"/x/multiprocessing/process.py\", line 314 in _bootstrap\n" +
				"  File \"<string>\", line 1 in <module>\n" +
				"RuntimeError: CUDA error: out of memory\n",
			want: `t/oom 3-3 rank="" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "the same frames in a traceback's shape open one",
			log: "  File \"/x/multiprocessing/process.py\", line 314, in _bootstrap\n" +
				"  File \"<string>\", line 1, in <module>\n" +
				"RuntimeError: CUDA error: out of memory\n",
			want: `t/oom 1-3 rank="" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "an exception with no message, in a chain: the line that raised it is of its own traceback",
			log: "Traceback (most recent call last):\n" +
				"  File \"/x/engine.py\", line 1340, in wait\n" +
				"    data = reader.recv()\n" +
				"EOFError\n" +
				"During handling of the above exception, another exception occurred:\n" +
				"Traceback (most recent call last):\n" +
				"  File \"/opt/venv/bin/sglang\", line 6, in <module>\n" +
				"    sys.exit(main())\n",
			want: `unknown/traceback 1-8 rank="" exc="EOFError" msg="data = reader.recv()"` + "\n",
		},
		{
			name: "a harmless exception raised where it always is: no finding",
			log: "Traceback (most recent call last):\n" +
				"  File \"/usr/lib/python3.11/multiprocessing/resource_tracker.py\", line 239, in main\n" +
				"    cache[rtype].remove(name)\n" +
				"KeyError: '/mp-dv7az532'\n",
			want: "",
		},
		{
			name: "the same frame with another exception is a finding",
			log: "Traceback (most recent call last):\n" +
				"  File \"/usr/lib/python3.11/multiprocessing/resource_tracker.py\", line 239, in main\n" +
				"    cache[rtype].remove(name)\n" +
				"KeyError: 'shm'\n",
			want: `unknown/traceback 1-4 rank="" exc="KeyError" msg="'shm'"` + "\n",
		},
		{
			name: "an error raised while a harmless one was handled is a finding",
			log: "Traceback (most recent call last):\n" +
				"  File \"/usr/lib/python3.11/multiprocessing/resource_tracker.py\", line 239, in main\n" +
				"    cache[rtype].remove(name)\n" +
				"KeyError: '/mp-dv7az532'\n" +
				"\nDuring handling of the above exception, another exception occurred:\n\n" +
				"Traceback (most recent call last):\n" +
				"  File \"/x/a.py\", line 1, in f\n" +
				"RuntimeError: CUDA error: out of memory\n",
			want: `t/oom 1-10 rank="" exc="RuntimeError" msg="CUDA error: out of memory"` + "\n",
		},
		{
			name: "a tab-separated export: time, labels and the line, each header ending in a tab",
			log: "2025-09-09T17:04:00.000Z\t{app=\"sglang\"}\t[2026-01-05 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
				"2025-09-09T17:04:00.000Z\t{app=\"sglang\"}\t  File \"/x/scheduler.py\", line 3, in run\n" +
				"2025-09-09T17:04:00.000Z\t{app=\"sglang\"}\t    self.step()\n" +
				"2025-09-09T17:04:00.000Z\t{app=\"sglang\"}\tValueError: bad step\n" +
				"2025-09-09T17:04:01.000Z\t{app=\"sglang\"}\t[2026-01-05 10:00:01] Received sigquit from a child process. It usually means the child failed.\n",
			want: `unknown/traceback 1-4 rank="TP0" exc="ValueError" msg="bad step"` + "\n" +
				`t/sigquit 5-5 rank="" exc="" msg="Received sigquit from a child process. It usually means the child failed."` + "\n",
		},
		{
			name: "trap words stay quiet",
			log: "[2026-11-29 10:15:20 TP0] Ignore import error when loading sglang.srt.models.x: No module named 'y'\n" +
				"[2026-11-29 10:15:20 TP0] Disable CUDA graph for this batch size\n" +
				"/x/launch_server.py:56: UserWarning: 'python -m sglang.launch_server' is still supported\n" +
				"  warnings.warn(\n" +
				"[2026-11-29 10:15:27 TP0] Decode batch, #running-req: 3, token usage: 0.12, cuda graph: True\n" +
				"node-3:190:3197 [2] NCCL INFO NET/Plugin: Could not find: libnccl-net.so\n",
			want: "",
		},
	}
	for _, tt := range tests {
		for _, piece := range []int{0, 1, 13} {
			t.Run(fmt.Sprintf("%s/piece=%d", tt.name, piece), func(t *testing.T) {
				if got := brief(occurrences(t, m, tt.log, piece)); got != tt.want {
					t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
				}
			})
		}
	}
}

// An open event keeps at most maxKept bytes of any message, however long
// the line.
func TestEventMemoryIsBounded(t *testing.T) {
	m := testMatcher(t)
	long := strings.Repeat("y", 4*maxKept)
	log := "Traceback (most recent call last):\n  File \"" + long + "\", line 1, in f\n" +
		"ValueError: " + long + "\n"
	got := occurrences(t, m, log, 0)
	if len(got) != 1 || len(got[0].Message) > maxKept || got[0].Exception != "ValueError" {
		t.Fatalf("got %d occurrences, message of %d bytes", len(got), len(got[0].Message))
	}
}

package matcher

import "testing"

// Lines that say something went wrong, in the shapes servers and their
// runtimes print them, and near misses that use the same words as names,
// settings, counts of none, paths, URLs or flags.
func TestSaysError(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		lvl  Level
		want bool
	}{
		{"sampling NaN", "Detected errors during sampling! NaN in the logits.", LevelNone, true},
		{"nan loss", "step 12: nan loss", LevelNone, true},
		{"loss is nan", "loss is nan, skipping the batch", LevelNone, true},
		{"nan or inf", "logits contain NaN/Inf values", LevelNone, true},
		{"router failed", "Failed to select PD pair error=no prefill worker available", LevelNone, true},
		{"json error body", `{"object":"error","message":"The model does not exist.","type":"NotFoundError","param":null,"code":404}`, LevelNone, true},
		{"5xx at info", `10.0.0.2:4100 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error`, LevelInfo, true},
		{"4xx", `10.0.0.2:4100 - "POST /v1/responses HTTP/1.1" 401 Unauthorized`, LevelInfo, true},
		{"bracketed level", "[11/02/2026-10:00:01] [ENG] [E] could not load the plan", LevelNone, true},
		{"timed out", "Request 17 timed out after 600 s", LevelNone, true},
		{"bar glued to an error", "Capturing batches (bs=24 avail_mem=2.95 GB):   0%|          | 0/16 [00:00<?, ?it/s]error: capture failed", LevelNone, true},
		{"exception as the subject", "RuntimeError in llava image encoding: The expanded size of the tensor (0) must match the existing size (2438)", LevelNone, true},
		{"dotted exception as the subject", "torch.OutOfMemoryError raised while capturing graphs", LevelNone, true},
		{"panic at a location", "thread 'actix-rt|system:0|arbiter:0' panicked at src/router.rs:589:79:", LevelNone, true},
		{"timeout event", "Watchdog timeout!", LevelNone, true},
		{"segfault", "!!! Segfault encountered in worker 3 !!!", LevelNone, true},
		{"an issue's checklist", "- [X] 1. I have searched related issues but cannot get the expected help.", LevelNone, false},
		{"an unticked checklist item", "* [ ] 2. The bug has not been fixed in the latest version.", LevelNone, false},
		{"a dash and brackets that are no task", "- [E] request 12 failed", LevelNone, true},
		{"a print call pasted with the log", `    print(f"Error processing request: {e}")`, LevelNone, false},
		{"a logger call", `logger.error("Failed to load %s", path)`, LevelNone, false},
		{"a Rust error attribute", `    #[error("Validation failed: {0}")]`, LevelNone, false},
		{"a Rust expect", `        .expect("Failed to create HTTP client"),`, LevelNone, false},
		{"a batch-script directive", `#SBATCH --error=slurm_logs/%A_%a/error.txt       # error file`, LevelNone, false},
		{"a comment in C, Go or Rust", "        // Initial health check with timeout", LevelNone, false},
		{"a table row", "| Failed requests                   | 0          |", LevelNone, false},
		{"a pipe-led line that is no row", "| worker 3 failed to start", LevelNone, true},
		{"an error that starts with let", "letting the request fail: timeout", LevelNone, true},
		{"segmentation fault", "Segmentation fault (core dumped)", LevelNone, true},
		{"abort", "Aborted (core dumped)", LevelNone, true},
		{"abort call", "abort() called from the transfer thread", LevelNone, true},
		{"aborted what", "Generation aborted: the scheduler stopped", LevelNone, true},
		{"panic", "thread 'tokio-runtime-worker' panicked at src/main.rs:10:5", LevelNone, true},
		{"assertion", "Assertion `index < size' failed.", LevelNone, true},
		{"fatal", "fatal: the transfer engine stopped", LevelNone, true},
		{"killed", "Worker 2 was killed by signal 9", LevelNone, true},
		{"exception mid-line", "Caught an exception while loading shard 3", LevelNone, true},
		{"upper case", "TRANSFER FAILED for room 12", LevelNone, true},
		{"error with value", "status=failed error=connection reset", LevelNone, true},
		{"could not", "[sgl_kernel] CRITICAL: Could not load any common_ops library!", LevelNone, true},
		{"no such file", "open /dev/infiniband/uverbs0: No such file or directory", LevelNone, true},
		{"connection refused", "connect to 10.0.0.4:8998: Connection refused", LevelNone, true},
		{"no route", "socketPollConnect: Connect to 10.0.0.4<56849> returned 113(No route to host)", LevelNone, true},
		{"core dumped", "bash: line 1: 4123 Aborted                 (core dumped) python3 -m sglang.launch_server", LevelNone, true},
		{"out of memory", "worker 3: out of memory while growing the KV pool", LevelNone, true},
		{"unauthorized", "Unauthorized: the token is missing", LevelNone, true},
		{"cannot", "cannot allocate memory for the transfer buffer", LevelNone, true},

		{"identifier", "error_rate=0.01 over the window", LevelNone, false},
		{"bar glued to a Python warning", "Capturing batches (bs=24 avail_mem=2.95 GB):   0%|          | 0/16 [00:00<?, ?it/s]/usr/lib/python3/dist-packages/triton/language/semantic.py:1670: UserWarning: tl.where with a non-boolean condition is deprecated and will error out in a future triton release.", LevelNone, false},
		{"exception class named, not the subject", "ErrorHandler registered for 3 routes", LevelNone, false},
		{"exception class before a capital", "KeyError Handling: enabled", LevelNone, false},
		{"a failure introduced", "Scheduler hit an exception:", LevelNone, false},
		{"a failure introduced after a time", "Failed at 10:32:", LevelNone, false},
		{"a failure introduced after a file", "Error while loading model_runner.py:", LevelNone, false},
		{"request aborted by its client", "Request is disconnected from the client side (type 1). Abort request obj.rid='9f2c'", LevelNone, false},
		{"rollout abort", "sglang_rollout.py:311 - Abort request for http://10.0.0.5:15000", LevelNone, false},
		{"aborting the request", "req 41: invalid stop_regex '(' (missing ); aborting the request", LevelNone, false},
		{"abort all requests", "Aborting all requests before the weight update", LevelNone, false},
		{"phrase inside a name", "set cannot_fail=1 and unable_to_retry=0", LevelNone, false},
		{"phrase at warning level", "Could not find a tuned config, using the default one", LevelWarning, false},
		{"flag in a command", "launch with --disable-fail-fast and --tp 8", LevelNone, false},
		{"count field", "fail_count=0 retries=3", LevelNone, false},
		{"errors zero", "# of errors: 0", LevelNone, false},
		{"errors zero json", `{"errors": 0, "ok": 12}`, LevelNone, false},
		{"error none", "finished request 7, error=None", LevelNone, false},
		{"error null", `{"id": 3, "error": null}`, LevelNone, false},
		{"nan option", "nan_check=False", LevelNone, false},
		{"nan detection option", "Enable NaN detection for debugging", LevelNone, false},
		{"path", "loaded /opt/app/error_handler.py", LevelNone, false},
		{"path segment", "serving files from /srv/errors/ and /srv/ok/", LevelNone, false},
		{"url", "see https://example.com/docs/errors#timeout for details", LevelNone, false},
		{"flag listing", "  --enable-nan-detection  Check the logits for NaN.", LevelNone, false},
		{"no errors", "Benchmark finished with no errors", LevelNone, false},
		{"zero failed", "12 passed, 0 failed", LevelNone, false},
		{"error rate", "error rate 0.0% over 1000 requests", LevelNone, false},
		{"timeout setting", "Init torch distributed with timeout 600", LevelNone, false},
		{"timeout key", "watchdog timeout: 300 s", LevelNone, false},
		{"setting value", "server_args: log_level='error'", LevelNone, false},
		{"class name", "caught a TypeError earlier, retrying", LevelNone, false},
		{"cpp name", "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98", LevelNone, false},
		{"python source", `assert x >= 0, "x must not be negative, assertion"`, LevelNone, false},
		{"announces", "Scheduler hit an exception:", LevelNone, false},
		{"chain line", "During handling of the above exception, another exception occurred:", LevelNone, false},
		{"warning level", "Failed to load the optional plugin", LevelWarning, false},
		{"mirror", "Using the mirror at mirror.example.com", LevelNone, false},
		{"nanoseconds", "took 1200 nanoseconds", LevelNone, false},
		{"python warning", "/usr/lib/python3.11/site-packages/torch_npu/x/compiler_config.py:106: UserWarning: these options may not take effect or report error in this mode", LevelNone, false},
		{"python warning, dotted class", "/opt/app/run.py:12: torch.jit.TracerWarning: converting a tensor failed, results may be wrong", LevelNone, false},
		{"python warning at a module's top", "x.py:3: DeprecationWarning: error_callback is deprecated", LevelNone, false},
		{"not a warning class", "/opt/app/run.py:12: RuntimeError: CUDA failed", LevelNone, true},
		{"path with a space is not one", "in /opt/my app/run.py:12: UserWarning: it failed", LevelNone, true},
		{"no line number", "/opt/app/run.py: UserWarning: it failed", LevelNone, true},
		{"pydantic field error", "  Value error, 'role' must be one of 'system', 'assistant' (case-insensitive). [type=value_error, input_value='user', input_type=str]", LevelNone, false},
		{"pydantic missing field", "  Field required [type=missing, input_value={'model': 'x'}, input_type=dict]", LevelNone, false},
		{"pydantic link", "    For further information visit https://errors.pydantic.dev/2.12/v/value_error", LevelNone, false},
		{"pydantic header", "17 validation errors for ChatCompletionRequest", LevelNone, true},
		{"a bracket that is not pydantic's", "Value error in step 3 [type=fatal]", LevelNone, true},
		{"exception after text", "worker 3 stopped: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", LevelNone, true},
		{"camel class after text", "rank 2 gave up with KVTransferError: Failed to get kvcache from prefill instance", LevelNone, true},
		{"exception after text at info", "worker 3 stopped: torch.OutOfMemoryError: CUDA out of memory.", LevelInfo, false},
		{"class only named, with a colon after", "the handler for TypeError:ignored", LevelNone, false},
		{"cpp scope with a colon", "frame #3: c10::Error: boom", LevelNone, false},
		{"lowercase name", "set pyerror: 3", LevelNone, false},
		{"2xx", `10.0.0.2:4100 - "POST /generate HTTP/1.1" 200 OK`, LevelInfo, false},
		{"status in text", `"GET /x HTTP/1.1" 5000 bytes`, LevelInfo, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := saysError([]byte(tt.msg), tt.lvl); got != tt.want {
				t.Errorf("saysError(%q, %d) = %v, want %v", tt.msg, tt.lvl, got, tt.want)
			}
		})
	}
}

// A line the automaton proposes for its words, that the check rejects,
// costs no allocation.
func TestSaysErrorAllocatesNothing(t *testing.T) {
	msg := []byte("error_rate=0.01, # of errors: 0, fail_count=0, nan_check=False, see /x/error_handler.py")
	if n := testing.AllocsPerRun(100, func() { saysError(msg, LevelNone) }); n != 0 {
		t.Errorf("saysError: %v allocations, want 0", n)
	}
}

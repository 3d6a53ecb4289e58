package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// longCommand is a launch command of a PD prefill server with many flags,
// some of them wrong, as a production launch script holds.
var longCommand = strings.Fields(`CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 NCCL_DEBUG=WARN SGLANG_DISAGG_STAGING_BUFFER=0
python3 -m sglang.launch_server --model-path /models/MiniMax-M3-Sparse --tokenizer-path /models/MiniMax-M3-Sparse
--trust-remote-code --host 0.0.0.0 --port 30100 --tp-size 4 --pp-size 2 --dp-size 1 --nnodes 1 --node-rank 0
--disaggregation-mode prefill --disaggregation-transfer-backend mooncake --disaggregation-bootstrap-port 8998
--disaggregation-ib-device mlx5_0,mlx5_1 --page-size 64 --chunked-prefill-size 8192 --max-prefill-tokens 16384
--mem-fraction-static 0.82 --max-running-requests 4096 --context-length 196k --kv-cache-dtype auto
--attention-backend fa3 --cuda-graph-bs-decode 1 2 4 8 16 32 64 128 --cuda-graph-max-bs 256 --disable-overlap-schedule
--schedule-policy fcfs --schedule-conservativeness 1.0 --watchdog-timeout 300 --log-level info --enable-metrics
--served-model-name minimax-m3 --tool-call-parser minimax-m3 --reasoning-parser minimax-m3 --random-seed 718204533
--tp-szie 4 --reasoning_parser minimax-m3 --moe-a2a-backend none --ep-size 1 --decode-log-interval 40
--json-model-override-args {} --enable-hierarchical-cache --hicache-ratio 2 --hicache-write-policy write_through`)

// BenchmarkCheck runs the whole check of a long launch command, as the
// command line does: flag parsing, loading the records, parsing the launch
// command, the rules and rendering. It should stay well under 50 ms.
func BenchmarkCheck(b *testing.B) {
	args := append([]string{"check", "--format", "text", "--color", "never", "--"}, longCommand...)
	b.ReportAllocs()
	for b.Loop() {
		if code := run(args, strings.NewReader(""), io.Discard, io.Discard, os.Getenv); code != exitFound {
			b.Fatalf("exit status %d", code)
		}
	}
}

// BenchmarkCheckPair is BenchmarkCheck for a prefill and a decode command.
func BenchmarkCheckPair(b *testing.B) {
	prefill := strings.Join(longCommand, " ")
	decode := strings.ReplaceAll(strings.ReplaceAll(prefill, "prefill", "decode"), "--tp-size 4", "--tp-size 8")
	args := []string{"check", "--format", "json", "--prefill", prefill, "--decode", decode}
	b.ReportAllocs()
	for b.Loop() {
		if code := run(args, strings.NewReader(""), io.Discard, io.Discard, os.Getenv); code != exitFound {
			b.Fatalf("exit status %d", code)
		}
	}
}

func TestCheckLong(t *testing.T) {
	var out, errOut bytes.Buffer
	args := append([]string{"check", "--color", "never", "--"}, longCommand...)
	if code := run(args, strings.NewReader(""), &out, &errOut, os.Getenv); code != exitFound {
		t.Fatalf("exit status %d, stderr %s", code, errOut.String())
	}
	for _, want := range []string{"sglang/pd-minimax-sparse-pp", "did you mean --tp-size?", "did you mean --reasoning-parser?",
		"--cuda-graph-max-bs is deprecated", "- --tp-size 4 --pp-size 2 --disaggregation-mode prefill", "+ --tp-size 8 --pp-size 1 --disaggregation-mode prefill"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

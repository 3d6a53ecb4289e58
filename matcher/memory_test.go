package matcher

import (
	"strings"
	"testing"
)

func TestMemoryObserve(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  Memory
	}{
		{"a start-up's lines in order", []string{
			"Load weight begin. avail mem=78.50 GB",
			"Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=47.40 GB, mem usage=31.10 GB.",
			"KV Cache is allocated. #tokens: 412000, K size: 18.20 GB, V size: 18.20 GB",
			"Memory pool end. avail mem=10.10 GB",
			"Capture cuda graph end. Time elapsed: 12.31 s. mem usage=1.25 GB. avail mem=8.85 GB.",
		}, Memory{BeforeWeights: 78.5, Weights: 31.1, AfterWeights: 47.4, KVCache: 36.4, AfterPool: 10.1, Graphs: 1.25, AfterGraphs: 8.85, PoolTokens: 412000}},
		{"a capture under way", []string{
			"Load weight begin. avail mem=78.50 GB",
			"Capture cuda graph begin. This can take up to several minutes.",
		}, Memory{BeforeWeights: 78.5, Capturing: true}},
		{"a newer release's capture under way", []string{
			"Capture target decode CUDA graph begin. backend=full, num_tokens_per_req=1, bs=[1, 2, 4], avail mem=5.55 GB",
		}, Memory{Capturing: true}},
		{"a newer release's capture that ended", []string{
			"Capture target decode CUDA graph begin. backend=full, bs=[1, 2, 4], avail mem=5.55 GB",
			"Capture target decode CUDA graph end. elapsed=4.01 s, mem usage=0.98 GB, avail mem=4.57 GB.",
		}, Memory{Graphs: 0.98, AfterGraphs: 4.57}},
		{"a capture that ended", []string{
			"Capture cuda graph begin. This can take up to several minutes. avail mem=10.00 GB",
			"Capture cuda graph end. Time elapsed: 12.31 s. mem usage=1.25 GB. avail mem=8.85 GB.",
		}, Memory{Graphs: 1.25, AfterGraphs: 8.85}},
		{"the scheduler's pool line", []string{
			"max_total_num_tokens=30100, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=2048, context_len=131072, available_gpu_mem=3.10 GB",
		}, Memory{PoolTokens: 30100, ContextLen: 131072}},
		{"an older release without mem usage: the weights are the drop", []string{
			"Load weight begin. avail mem=23.50 GB",
			"Load weight end. type=LlamaForCausalLM, dtype=torch.float16, avail mem=8.50 GB",
		}, Memory{BeforeWeights: 23.5, Weights: 15, AfterWeights: 8.5}},
		{"a restart forgets the earlier start", []string{
			"Load weight begin. avail mem=78.50 GB",
			"Load weight end. type=X, avail mem=47.40 GB, mem usage=31.10 GB.",
			"Memory pool end. avail mem=10.10 GB",
			"Load weight begin. avail mem=77.00 GB",
		}, Memory{BeforeWeights: 77}},
		{"other lines with the words", []string{
			"Init torch distributed ends. mem usage=0.56 GB",
			"The avail mem=x GB figure is not a number",
		}, Memory{}},
	}
	for _, tt := range tests {
		var m Memory
		for _, l := range tt.lines {
			m.observe([]byte(l))
		}
		if diff := m; diff.KVCache-tt.want.KVCache > 1e-9 || tt.want.KVCache-diff.KVCache > 1e-9 {
			t.Errorf("%s: KV cache %v, want %v", tt.name, m.KVCache, tt.want.KVCache)
		}
		m.KVCache, tt.want.KVCache = 0, 0
		if m != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, m, tt.want)
		}
	}
}

// An event carries the memory lines logged before it, under its
// configuration, and an event before them carries none.
func TestOccurrenceCarriesMemory(t *testing.T) {
	m := testMatcher(t)
	const log = "[2026-11-29 10:15:02] server_args=ServerArgs(tp_size=2, mem_fraction_static=0.88)\n" +
		"[2026-11-29 10:15:03 TP0] RuntimeError: CUDA error: out of memory\n" +
		"[2026-11-29 10:15:04 TP0] Load weight begin. avail mem=78.50 GB\n" +
		"[2026-11-29 10:15:20 TP0] RuntimeError: CUDA error: out of memory\n" +
		"[2026-11-29 10:15:30 TP0] Load weight end. type=Qwen3ForCausalLM, avail mem=47.40 GB, mem usage=31.10 GB.\n" +
		"[2026-11-29 10:16:20 TP0] RuntimeError: CUDA error: out of memory\n"
	var got []Occurrence
	e := m.NewEngine("x.log", func(o Occurrence) { got = append(got, o) })
	if err := e.Scan(strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d occurrences, want 3:\n%s", len(got), brief(got))
	}
	want := []struct{ before, after any }{{nil, nil}, {78.5, nil}, {78.5, 47.4}}
	for i, o := range got {
		before, _ := o.Config.Lookup(MemBeforeWeights)
		after, _ := o.Config.Lookup(MemAfterWeights)
		if before != want[i].before || after != want[i].after {
			t.Errorf("occurrence at line %d: memory %v/%v, want %v/%v", o.Line, before, after, want[i].before, want[i].after)
		}
		if v, _ := o.Config.Lookup("tp_size"); v != int64(2) {
			t.Errorf("occurrence at line %d: tp_size %v under the memory fields, want 2", o.Line, v)
		}
	}
}

// A traceback's occurrence names its innermost frame and its innermost
// frame in sglang's own code.
func TestOccurrenceOwnFrame(t *testing.T) {
	m := testMatcher(t)
	const log = "Traceback (most recent call last):\n" +
		"  File \"/x/sglang/srt/managers/scheduler.py\", line 10, in event_loop\n" +
		"    self.step()\n" +
		"  File \"/x/sglang/srt/speculative/eagle_worker.py\", line 20, in draft\n" +
		"    out = torch.gather(a, 0, idx)\n" +
		"  File \"/x/torch/functional.py\", line 30, in gather\n" +
		"    return impl(a)\n" +
		"IndexError: index 7 is out of bounds for dimension 0 with size 4\n"
	var got []Occurrence
	e := m.NewEngine("x.log", func(o Occurrence) { got = append(got, o) })
	if err := e.Scan(strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d occurrences, want 1:\n%s", len(got), brief(got))
	}
	if o := got[0]; !strings.Contains(o.Frame, "torch/functional.py") || !strings.Contains(o.OwnFrame, "speculative/eagle_worker.py") {
		t.Errorf("Frame %q, OwnFrame %q; want torch's and the speculative worker's", o.Frame, o.OwnFrame)
	}
}

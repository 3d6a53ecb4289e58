package remedies

import (
	"strings"
	"testing"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
)

func TestSize(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1.50 GiB", 1.5, true},
		{"812.44 MiB", 812.44 / 1024, true},
		{"2 TiB", 2048, true},
		{"1024 KiB", 1.0 / 1024, true},
		{"79.19 GB", 79.19, true},
		{"1073741824 B", 1, true},
		{"", 0, false},
		{"1.5", 0, false},
		{"lots GiB", 0, false},
	}
	for _, tt := range tests {
		got, ok := size(tt.in)
		if ok != tt.ok || (ok && (got-tt.want > 1e-9 || tt.want-got > 1e-9)) {
			t.Errorf("size(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// oomCaps are an allocator message's figures: tried, free, total.
func oomCaps(tried, free, total string) map[string]string {
	return map[string]string{capOOMTried: tried, capOOMFree: free, capOOMTotal: total}
}

// ownCaps are the figures of a message that also names this process's own
// memory.
func ownCaps(tried, free, total, own string) map[string]string {
	caps := oomCaps(tried, free, total)
	caps[capOOMOwn] = own
	return caps
}

func TestWorkedFractions(t *testing.T) {
	started := mapConfig{"mem_fraction_static": 0.88, matcher.MemBeforeWeights: 78.5, matcher.MemAfterWeights: 47.4}
	loading := mapConfig{"mem_fraction_static": 0.88, matcher.MemBeforeWeights: 78.5}
	tp4loading := mapConfig{"mem_fraction_static": 0.88, "tp_size": int64(4), matcher.MemBeforeWeights: 78.3}
	tests := []struct {
		name    string
		work    string
		vals    Values
		want    string // "" when no value is given
		note    string // a phrase of the arithmetic, or "" for none
		refused bool
	}{
		{"oom: shortfall plus a spare GiB", fractionAfterOOM,
			Values{Captures: oomCaps("2.50 GiB", "812.44 MiB", "79.19 GiB"), Config: started}, "0.84", "1.71 GiB short", false},
		{"oom: a small request still steps down", fractionAfterOOM,
			Values{Captures: oomCaps("20.00 MiB", "1.00 GiB", "79.19 GiB"), Config: started}, "0.86", "0.00 GiB short", false},
		{"oom: the old message's figures", fractionAfterOOM,
			Values{Captures: oomCaps("256.00 MiB", "97.44 MiB", "39.39 GiB"), Config: mapConfig{"mem_fraction_static": 0.9}}, "0.87", "of the 39.39 GiB GPU", false},
		{"oom: a capture of the fraction wins over the configuration", fractionAfterOOM,
			Values{Captures: map[string]string{capOOMTried: "2.00 GiB", capOOMFree: "0 B", capOOMTotal: "80 GiB", "mem_fraction_static": "0.8"}, Config: started}, "0.76", "0.8 − 0.037", false},
		{"oom: while capturing CUDA graphs", fractionAfterOOM,
			Values{Captures: oomCaps("2.50 GiB", "812.44 MiB", "79.19 GiB"), Config: mapConfig{"mem_fraction_static": 0.88, matcher.MemBeforeWeights: 78.5, matcher.MemAfterWeights: 47.4, matcher.MemCapturing: true}}, "0.84", "while capturing CUDA graphs", false},
		{"oom: no fraction known", fractionAfterOOM,
			Values{Captures: oomCaps("2.50 GiB", "812.44 MiB", "79.19 GiB")}, "", "", false},
		{"oom: no figures in the message", fractionAfterOOM,
			Values{Config: started}, "", "", false},
		{"oom: while loading the weights", fractionAfterOOM,
			Values{Captures: oomCaps("2.50 GiB", "812.44 MiB", "79.19 GiB"), Config: loading}, "", "while the weights were loading", true},
		{"oom: more than the fraction can give", fractionAfterOOM,
			Values{Captures: oomCaps("60.00 GiB", "1.00 GiB", "79.19 GiB"), Config: started}, "", "the peak itself must shrink", true},
		{"oom: other processes hold the GPU", fractionAfterOOM,
			Values{Captures: ownCaps("1.25 GiB", "402.00 MiB", "79.19 GiB", "14.17 GiB"), Config: started}, "", "Other processes hold 64.63 GiB", true},
		{"oom: this process holds the GPU", fractionAfterOOM,
			Values{Captures: ownCaps("2.50 GiB", "812.44 MiB", "79.19 GiB", "77.60 GiB"), Config: started}, "0.84", "1.71 GiB short", false},
		{"weights: the next TP that fits", tpForWeights,
			Values{Captures: oomCaps("2.00 GiB", "1.12 GiB", "79.19 GiB"), Config: tp4loading}, "8", "TP ≥ 4 × 80.07 / 65.73 = 4.87 → 8", false},
		{"weights: far too large doubles more than once", tpForWeights,
			Values{Captures: oomCaps("60.00 GiB", "1.12 GiB", "79.19 GiB"), Config: tp4loading}, "16", "= 8.40 → 16", false},
		{"weights: this process's own memory is the shard", tpForWeights,
			Values{Captures: ownCaps("2.00 GiB", "1.12 GiB", "79.19 GiB", "75.00 GiB"), Config: tp4loading}, "8", "a shard needs more than 77.00 GiB", false},
		{"weights: other processes hold the GPU", tpForWeights,
			Values{Captures: ownCaps("1.25 GiB", "402.00 MiB", "79.19 GiB", "14.17 GiB"), Config: tp4loading}, "", "Other processes hold", true},
		{"weights: not while loading", tpForWeights,
			Values{Captures: oomCaps("2.00 GiB", "1.12 GiB", "79.19 GiB"), Config: started}, "", "", true},
		{"weights: no TP size known", tpForWeights,
			Values{Captures: oomCaps("2.00 GiB", "1.12 GiB", "79.19 GiB"), Config: loading}, "", "", false},
		{"kv pool: above the weights' share", fractionForKVPool,
			Values{Config: mapConfig{"mem_fraction_static": 0.7, matcher.MemBeforeWeights: 78.5, matcher.MemAfterWeights: 12.3}}, "0.9", "take 0.843 of the GPU", false},
		{"kv pool: the weights leave no room at all", fractionForKVPool,
			Values{Config: mapConfig{"mem_fraction_static": 0.7, matcher.MemBeforeWeights: 78.5, matcher.MemAfterWeights: 2.3}}, "", "no `--mem-fraction-static` leaves room", true},
		{"kv pool: the weights fit, something else took the pool", fractionForKVPool,
			Values{Config: mapConfig{"mem_fraction_static": 0.7, matcher.MemBeforeWeights: 78.54, matcher.MemAfterWeights: 40.88}}, "0.75",
			"under the 0.7 the server ran with: 0.220 (17.32 GB) was left for the KV cache", false},
		{"kv pool: the fraction already covers the weights", fractionForKVPool,
			Values{Config: mapConfig{"mem_fraction_static": 0.95, matcher.MemBeforeWeights: 78.5, matcher.MemAfterWeights: 12.3}}, "", "", false},
		{"kv pool: no start-up lines", fractionForKVPool,
			Values{Config: mapConfig{"mem_fraction_static": 0.7}}, "", "", false},
		{"suggested: a margin above sglang's least", fractionAboveSuggested,
			Values{Captures: map[string]string{capFractionNow: "0.8", capFractionSuggested: "0.848"}}, "0.88", "is 0.848 (the server ran with 0.8); 0.03 more", false},
		{"suggested: a margin rounds up", fractionAboveSuggested,
			Values{Captures: map[string]string{capFractionSuggested: "0.6"}}, "0.63", "→ 0.63", false},
		{"suggested: nearly the whole GPU", fractionAboveSuggested,
			Values{Captures: map[string]string{capFractionNow: "0.9", capFractionSuggested: "0.94"}}, "", "weights take nearly the whole GPU", true},
		{"suggested: back where the last start failed the other way", fractionAboveSuggested,
			Values{Captures: map[string]string{capFractionNow: "0.8", capFractionSuggested: "0.848"}, Config: mapConfig{matcher.Previous + "mem_fraction_static": 0.85}}, "", "Failing both ways", true},
		{"suggested: the message names none", fractionAboveSuggested,
			Values{Captures: map[string]string{capFractionNow: "0.8"}}, "", "", false},
	}
	for _, tt := range tests {
		w := &workedValues{Values: tt.vals}
		v, ok := w.Lookup(tt.work)
		got := ""
		if ok {
			got = v.(string)
		}
		if got != tt.want {
			t.Errorf("%s: %s = %q, want %q", tt.name, tt.work, got, tt.want)
		}
		notes := strings.Join(w.notes, "\n")
		if (tt.note == "") != (notes == "") || !strings.Contains(notes, tt.note) {
			t.Errorf("%s: notes %q, want one with %q", tt.name, notes, tt.note)
		}
		if w.refused[tt.work] != tt.refused {
			t.Errorf("%s: refused %v, want %v", tt.name, w.refused[tt.work], tt.refused)
		}
	}
}

// A fix whose worked value is refused drops the steps and the command line
// that would make the change, and says why.
func TestRemedyDropsARefusedChange(t *testing.T) {
	rec := &patterns.Record{ID: "t/oom", Title: "t", Severity: patterns.SeverityError,
		Fix: patterns.Fix{Steps: []string{"Check nvidia-smi", "Lower it to {fraction_after_oom|mem_fraction_static-0.05|0.85}"},
			Before: "--mem-fraction-static {mem_fraction_static|0.9}", After: "--mem-fraction-static {fraction_after_oom|mem_fraction_static-0.05|0.85}"}}
	caps := oomCaps("2.50 GiB", "812.44 MiB", "79.19 GiB")
	loading := &diagnose.Finding{Record: rec, Line: 9, Captures: caps,
		Config: mapConfig{"mem_fraction_static": 0.88, matcher.MemBeforeWeights: 78.5}}
	r := For(loading)
	if len(r.Steps) != 1 || r.Before != "" || r.After != "" || len(r.Worked) != 1 {
		t.Errorf("while loading: steps %q, before %q, after %q, worked %q; want the check alone, no command line, one note", r.Steps, r.Before, r.After, r.Worked)
	}
	running := &diagnose.Finding{Record: rec, Line: 9, Captures: caps,
		Config: mapConfig{"mem_fraction_static": 0.88, matcher.MemBeforeWeights: 78.5, matcher.MemAfterWeights: 47.4}}
	r = For(running)
	if len(r.Steps) != 2 || r.Steps[1] != "Lower it to 0.84" || r.After != "--mem-fraction-static 0.84" || r.Example || len(r.Worked) != 1 {
		t.Errorf("at run time: steps %q, after %q, example %v, worked %q", r.Steps, r.After, r.Example, r.Worked)
	}
	plain := &diagnose.Finding{Record: rec, Line: 9, Config: mapConfig{"mem_fraction_static": 0.88}}
	r = For(plain)
	if r.After != "--mem-fraction-static 0.83" || len(r.Worked) != 0 {
		t.Errorf("without figures: after %q, worked %q; want the fixed step and no note", r.After, r.Worked)
	}
}

// A fraction worked back past the one the log's previous start failed with
// is refused: the fix lies elsewhere. A middle value is given.
func TestWorkedFractionsNeverUndoTheLastChange(t *testing.T) {
	prev := matcher.Previous + "mem_fraction_static"
	tests := []struct {
		name    string
		work    string
		vals    Values
		want    string
		refused bool
	}{
		{"raised after the pool failed, now OOM asks to go back below", fractionAfterOOM,
			Values{Captures: oomCaps("6.00 GiB", "0.50 GiB", "79.19 GiB"), Config: mapConfig{"mem_fraction_static": 0.9, prev: 0.85}}, "", true},
		{"raised after the pool failed, now OOM asks for a middle value", fractionAfterOOM,
			Values{Captures: oomCaps("1.00 GiB", "0.50 GiB", "79.19 GiB"), Config: mapConfig{"mem_fraction_static": 0.9, prev: 0.8}}, "0.88", false},
		{"lowered before the OOM: nothing to undo", fractionAfterOOM,
			Values{Captures: oomCaps("6.00 GiB", "0.50 GiB", "79.19 GiB"), Config: mapConfig{"mem_fraction_static": 0.85, prev: 0.9}}, "0.76", false},
		{"lowered after an OOM, now the pool asks to go back above", fractionForKVPool,
			Values{Config: mapConfig{"mem_fraction_static": 0.7, prev: 0.85, matcher.MemBeforeWeights: 78.5, matcher.MemAfterWeights: 12.3}}, "", true},
		{"lowered after an OOM, now the pool asks for a middle value", fractionForKVPool,
			Values{Config: mapConfig{"mem_fraction_static": 0.7, prev: 0.95, matcher.MemBeforeWeights: 78.5, matcher.MemAfterWeights: 12.3}}, "0.9", false},
	}
	for _, tt := range tests {
		w := &workedValues{Values: tt.vals}
		v, ok := w.Lookup(tt.work)
		got := ""
		if ok {
			got = v.(string)
		}
		if got != tt.want || w.refused[tt.work] != tt.refused {
			t.Errorf("%s: %q refused %v; want %q refused %v (notes %q)", tt.name, got, w.refused[tt.work], tt.want, tt.refused, w.notes)
		}
		if tt.refused && !strings.Contains(strings.Join(w.notes, " "), "Failing both ways") {
			t.Errorf("%s: notes %q do not say why", tt.name, w.notes)
		}
	}
}

func TestWorkedContextThatFits(t *testing.T) {
	tests := []struct {
		name string
		cfg  mapConfig
		want string
	}{
		{"a pool smaller than the context", mapConfig{matcher.MemPoolTokens: 30100.0, matcher.MemContextLen: 131072.0}, "29696"},
		{"the configuration's context length", mapConfig{matcher.MemPoolTokens: 30100.0, "context_length": int64(65536)}, "29696"},
		{"a tiny pool is not rounded to nothing", mapConfig{matcher.MemPoolTokens: 1500.0}, "1500"},
		{"the context already fits", mapConfig{matcher.MemPoolTokens: 30100.0, matcher.MemContextLen: 8192.0}, ""},
		{"no pool line", mapConfig{matcher.MemContextLen: 8192.0}, ""},
	}
	for _, tt := range tests {
		w := &workedValues{Values: Values{Config: tt.cfg}}
		v, ok := w.Lookup(contextThatFits)
		got := ""
		if ok {
			got = v.(string)
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q (notes %q)", tt.name, got, tt.want, w.notes)
		}
	}
}

// A fix whose change the log's figures rule out shows the record's other
// change when those figures allow it, in the server's own values.
func TestRemedyOtherwise(t *testing.T) {
	rec := &patterns.Record{ID: "t/oom", Title: "t", Severity: patterns.SeverityError,
		Fix: patterns.Fix{Steps: []string{"Lower it to {fraction_after_oom|mem_fraction_static-0.05|0.85}", "More GPUs: {tp_for_weights|tp_size*2|8}"},
			Before: "--mem-fraction-static {mem_fraction_static|0.9}", After: "--mem-fraction-static {fraction_after_oom|mem_fraction_static-0.05|0.85}",
			Otherwise: &patterns.Change{Before: "--tp-size {tp_size|4}", After: "--tp-size {tp_for_weights|tp_size*2|8}"}}}
	tp4 := func(weightsLoaded bool) mapConfig {
		c := mapConfig{"mem_fraction_static": 0.88, "tp_size": int64(4), matcher.MemBeforeWeights: 78.3}
		if weightsLoaded {
			c[matcher.MemAfterWeights] = 40.1
		}
		return c
	}
	tests := []struct {
		name          string
		caps          map[string]string
		cfg           mapConfig
		steps         []string
		before, after string
	}{
		{"while loading: more GPUs", oomCaps("2.00 GiB", "1.12 GiB", "79.19 GiB"), tp4(false),
			[]string{"More GPUs: 8"}, "--tp-size 4", "--tp-size 8"},
		{"at run time: a lower fraction", oomCaps("2.00 GiB", "1.12 GiB", "79.19 GiB"), tp4(true),
			[]string{"Lower it to 0.85"}, "--mem-fraction-static 0.88", "--mem-fraction-static 0.85"},
		{"other processes hold the GPU: neither", ownCaps("2.00 GiB", "1.12 GiB", "79.19 GiB", "20.00 GiB"), tp4(false),
			nil, "", ""},
	}
	for _, tt := range tests {
		r := For(&diagnose.Finding{Record: rec, Line: 9, Captures: tt.caps, Config: tt.cfg})
		if strings.Join(r.Steps, "|") != strings.Join(tt.steps, "|") || r.Before != tt.before || r.After != tt.after || (r.After != "" && r.Example) {
			t.Errorf("%s: steps %q, %q → %q (example %v); want %q, %q → %q", tt.name, r.Steps, r.Before, r.After, r.Example, tt.steps, tt.before, tt.after)
		}
	}
}

func TestOSPackage(t *testing.T) {
	tests := []struct {
		lib, want string
	}{
		{"libnuma.so.1", "libnuma1"},
		{"libibverbs.so.1", "libibverbs1 ibverbs-providers"},
		{"libGL.so.1", "libgl1"},
		{"libglib-2.0.so.0", "libglib2.0-0"},
		{"libssl.so.3", "libssl3"},     // the version names the package
		{"libssl.so.1.1", "libssl1.1"}, // another version, another package
		{"libssl.so.10", ""},           // a version the table does not know
		{"libucp.so.0", "libucx0"},     // a library by its stem
		{"libcudart.so.12", ""},        // CUDA comes from no OS package here
		{"libfoo.so", ""},
		{"", ""},
	}
	for _, tt := range tests {
		caps := map[string]string{}
		if tt.lib != "" {
			caps[capLibrary] = tt.lib
		}
		w := &workedValues{Values: Values{Captures: caps}}
		v, ok := w.Lookup(osPackage)
		got, _ := v.(string)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: %s = %q, %v; want %q", tt.lib, osPackage, got, ok, tt.want)
		}
		if len(w.notes) > 0 || w.refused[osPackage] {
			t.Errorf("%s: a table look-up left notes %q or a refusal", tt.lib, w.notes)
		}
	}
}

// A step about a server whose weights are loaded is left out of the fix of
// an allocation that failed while they were loading, and kept otherwise.
func TestOnceLoadedSteps(t *testing.T) {
	rec := &patterns.Record{ID: "t/oom", Title: "t", Severity: patterns.SeverityError,
		Fix: patterns.Fix{Steps: []string{"Check nvidia-smi", "{once_loaded}Cut the activation peak"}}}
	const (
		loader  = `File "/sgl-workspace/sglang/python/sglang/srt/model_loader/loader.py", line 670, in load_weights_and_postprocess`
		moe     = `File "/usr/local/lib/python3.12/dist-packages/sglang/srt/layers/moe/fused_moe_triton/layer.py", line 537, in _load_w13`
		forward = `File "/usr/local/lib/python3.12/dist-packages/sglang/srt/layers/attention/flashinfer_backend.py", line 301, in forward_extend`
		theirs  = `File "/opt/venv/lib/python3.12/site-packages/vllm/model_executor/model_loader/loader.py", line 12, in load_weights`
	)
	tests := []struct {
		name  string
		cfg   mapConfig
		frame string
		want  int
	}{
		{"while loading", mapConfig{matcher.MemBeforeWeights: 78.5}, "", 1},
		{"after loading", mapConfig{matcher.MemBeforeWeights: 78.5, matcher.MemAfterWeights: 47.4}, "", 2},
		{"no start-up lines", nil, "", 2},
		{"no start-up lines, failed in the loader", nil, loader, 1},
		{"no start-up lines, failed placing experts", nil, moe, 1},
		{"no start-up lines, failed in a forward pass", nil, forward, 2},
		{"no start-up lines, another project's loader", nil, theirs, 2},
		{"the start-up lines say loaded, whatever the frame", mapConfig{matcher.MemBeforeWeights: 78.5, matcher.MemAfterWeights: 47.4}, loader, 2},
	}
	for _, tt := range tests {
		f := &diagnose.Finding{Record: rec, Line: 9, OwnFrame: tt.frame}
		if tt.cfg != nil {
			f.Config = tt.cfg
		}
		r := For(f)
		if len(r.Steps) != tt.want {
			t.Errorf("%s: steps %q, want %d", tt.name, r.Steps, tt.want)
		}
		if len(r.Steps) == 2 && r.Steps[1] != "Cut the activation peak" {
			t.Errorf("%s: step rendered %q", tt.name, r.Steps[1])
		}
	}
}

package remedies

import (
	"strings"
	"testing"
)

func TestWorkedParallel(t *testing.T) {
	tp := func(n int64) mapConfig { return mapConfig{"tp_size": n} }
	dpAttn := func(tp, dp int64) mapConfig {
		return mapConfig{"tp_size": tp, "dp_size": dp, "enable_dp_attention": true}
	}
	divides := func(num, den string) map[string]string {
		return map[string]string{capNumerator: num, capDenominator: den}
	}
	tests := []struct {
		name string
		work string
		cfg  mapConfig
		caps map[string]string
		want string // "" when no value is given
		note string // a phrase of the arithmetic
	}{
		{"the server's layout", parallelNow, dpAttn(8, 4), nil, "--tp-size 8 --dp-size 4 --enable-dp-attention", ""},
		{"pipeline stages shown", parallelNow, mapConfig{"tp_size": int64(4), "pp_size": int64(2)}, nil, "--tp-size 4 --pp-size 2", ""},
		{"no TP size, no layout", parallelNow, mapConfig{}, nil, "", ""},

		{"heads: the largest TP dividing both, GPUs kept as stages", parallelForHeads, tp(8), divides("28", "8"), "--tp-size 4 --pp-size 2", "largest TP size that divides both 28 and 8 is 4"},
		{"vocabulary over 24", parallelForHeads, tp(24), divides("129280", "24"), "--tp-size 8 --pp-size 3", "TP × PP = 8 × 3"},
		{"stages multiply the server's own", parallelForHeads, mapConfig{"tp_size": int64(8), "pp_size": int64(2)}, divides("28", "8"), "--tp-size 4 --pp-size 4", ""},
		{"a bare assertion halves the TP size", parallelForHeads, tp(8), nil, "--tp-size 4 --pp-size 2", "names no head count"},
		{"a count the TP size divides is another split", parallelForHeads, tp(4), divides("16", "6"), "--tp-size 2 --pp-size 2", "names no head count"},
		{"DP attention: a larger DP size that divides the count", parallelForHeads, dpAttn(16, 2), divides("28", "8"), "--tp-size 16 --dp-size 4 --enable-dp-attention", "16 / 4 = 4 does"},
		{"DP attention, bare assertion: the next DP size", parallelForHeads, dpAttn(8, 2), nil, "--tp-size 8 --dp-size 4 --enable-dp-attention", "halves that to 2"},
		{"DP attention on every rank: the TP size is what moves", parallelForHeads, dpAttn(8, 8), nil, "--tp-size 4 --dp-size 4 --enable-dp-attention --pp-size 2", "--dp-size 8 → 4"},
		{"speculative decoding takes no stages", parallelForHeads, mapConfig{"tp_size": int64(8), "speculative_algorithm": "EAGLE"}, divides("28", "8"), "--tp-size 4", "stay idle"},
		{"TP 1 has nothing to halve", parallelForHeads, tp(1), nil, "", ""},

		{"weights: half the TP size", parallelForWeights, tp(4), nil, "--tp-size 2 --pp-size 2", "4 → 2"},
		{"weights with DP attention keep DP a divisor", parallelForWeights, dpAttn(8, 8), nil, "--tp-size 4 --dp-size 4 --enable-dp-attention --pp-size 2", ""},
		{"weights at TP 1", parallelForWeights, tp(1), nil, "", ""},
		{"weights at an odd TP size", parallelForWeights, tp(3), nil, "", ""},

		{"fewer GPUs", parallelOnFewer, tp(4), nil, "--tp-size 2", ""},
		{"fewer GPUs with DP attention", parallelOnFewer, dpAttn(8, 8), nil, "--tp-size 4 --dp-size 4 --enable-dp-attention", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &workedValues{Values: Values{Captures: tt.caps, Config: tt.cfg}}
			v, ok := w.Lookup(tt.work)
			got := ""
			if ok {
				got = v.(string)
			}
			if got != tt.want {
				t.Errorf("%s = %q, want %q (notes %q)", tt.work, got, tt.want, w.notes)
			}
			if notes := strings.Join(w.notes, " "); !strings.Contains(notes, tt.note) {
				t.Errorf("%s: notes %q lack %q", tt.work, notes, tt.note)
			}
		})
	}
}

// A layout the fix moves to, rendered in a record's template, shows the
// server's own flags before and after, and an example without them.
func TestParallelInTemplates(t *testing.T) {
	tmplBefore, tmplAfter := "--model-path {model_path|M} {parallel_now|--tp-size 8}", "--model-path {model_path|M} {parallel_for_heads|--tp-size 4 --pp-size 2}"
	w := &workedValues{Values: Values{Captures: map[string]string{capNumerator: "40", capDenominator: "16"}, Config: mapConfig{"model_path": "org/m", "tp_size": int64(16), "nnodes": int64(2)}}}
	before, ownB := Render(tmplBefore, w)
	after, ownA := Render(tmplAfter, w)
	if before != "--model-path org/m --tp-size 16" || after != "--model-path org/m --tp-size 8 --pp-size 2" || !ownB || !ownA {
		t.Errorf("rendered %q (%v) → %q (%v)", before, ownB, after, ownA)
	}
	w = &workedValues{}
	if after, own := Render(tmplAfter, w); after != "--model-path M --tp-size 4 --pp-size 2" || own {
		t.Errorf("without a configuration: %q (own %v)", after, own)
	}
}

package remedies

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/pyrepr"
)

// Worked values: numbers a fix computes from the figures the log states,
// each with its arithmetic in one line. A template names them like fields:
// {fraction_after_oom|mem_fraction_static-0.05|0.85} tries the worked
// value first, then the fixed step, then the example.
const (
	// fractionAfterOOM is the --mem-fraction-static that frees what a
	// failed allocation lacked, from the allocator's message (tried, free,
	// total) and the server's fraction.
	fractionAfterOOM = "fraction_after_oom"
	// fractionForKVPool is the --mem-fraction-static that leaves room for
	// a KV-cache pool after the weights, from the start-up's memory lines.
	fractionForKVPool = "fraction_for_kv_pool"
	// fractionAboveSuggested is the --mem-fraction-static a little above
	// the least one sglang's own message computes.
	fractionAboveSuggested = "fraction_above_suggested"
	// contextThatFits is the --context-length one request of which fits
	// in the KV-cache pool the start-up sized.
	contextThatFits = "context_that_fits"
	// tpForWeights is the --tp-size whose shards fit a GPU when an
	// allocation failed while the weights were loading, from the
	// allocator's message and the server's TP size and fraction. It is
	// not applicable to any other out-of-memory: a step that names it is
	// left out then.
	tpForWeights = "tp_for_weights"
	// onceLoaded stands for nothing: a step that names it ("{once_loaded}Cut
	// the activation peak …") is about a server whose weights are loaded,
	// and is left out when an allocation failed while they were loading.
	onceLoaded = "once_loaded"
)

// Captures an allocator's out-of-memory message gives, by name.
const (
	capOOMTried = "oom_tried" // "Tried to allocate 1.50 GiB"
	capOOMFree  = "oom_free"  // "… of which 812.44 MiB is free", "97.44 MiB free"
	capOOMTotal = "oom_total" // "total capacity of 79.19 GiB", "39.39 GiB total capacity"
	capOOMOwn   = "oom_own"   // "Including non-PyTorch memory, this process has 14.17 GiB memory in use"
)

const (
	// oomSpare is what a fraction worked from an OOM frees beyond the
	// shortfall: the next peak is rarely exactly this one.
	oomSpare = 1.0 // GiB
	// minFractionStep is the smallest change worth suggesting.
	minFractionStep = 0.02
	// kvShare is the share of the GPU a worked fraction gives the KV cache
	// above what the weights need.
	kvShare = 0.05
	// maxFraction is the highest fraction suggested: above it, run-time
	// activations have no room.
	maxFraction = 0.95
	// minFraction is the lowest: below it, the KV cache is too small to
	// serve and the fix lies elsewhere.
	minFraction = 0.3
	// othersShare is the share of a GPU other processes may hold before
	// they, not the server's settings, are the cause of an OOM.
	othersShare = 0.1
)

// neitherWay is what to change when the fraction fails both ways.
const neitherWay = "spread the model over more GPUs (a larger `--tp-size`), load a quantized checkpoint, store the KV cache in fp8 (`--kv-cache-dtype fp8_e5m2`), " +
	"or shrink the peak (`--chunked-prefill-size`, `--max-running-requests`, `--context-length`) instead of moving `--mem-fraction-static` again"

// workedValues answers the worked names on top of a finding's values and
// keeps the arithmetic of those it gave (and why one could not be given).
type workedValues struct {
	Values
	// ownFrame is the failure's innermost traceback frame in sglang's
	// code, or "": where it failed tells the phase when the log's
	// start-up lines are missing.
	ownFrame string
	notes    []string
	// refused holds the worked values whose figures say the change they
	// stand for would not help: a fix step or command line that names one
	// is not shown.
	refused map[string]bool
}

func (w *workedValues) Lookup(name string) (any, bool) {
	var work func() (string, string, bool)
	switch name {
	case fractionAfterOOM:
		work = w.fractionAfterOOM
	case fractionForKVPool:
		work = w.fractionForKVPool
	case fractionAboveSuggested:
		work = w.fractionAboveSuggested
	case contextThatFits:
		work = w.contextThatFits
	case tpForWeights:
		if !w.loadingWeights() {
			w.refuse(name)
			return nil, false
		}
		work = w.tpForWeights
	case onceLoaded:
		if w.loadingWeights() {
			w.refuse(name)
			return nil, false
		}
		return "", true
	case parallelNow:
		work = w.parallelNow
	case parallelForHeads:
		work = w.parallelForHeads
	case parallelForWeights:
		work = w.parallelForWeights
	case parallelOnFewer:
		work = w.parallelOnFewer
	case osPackage:
		work = w.osPackageOf
	default:
		return w.Values.Lookup(name)
	}
	v, why, ok := work()
	return w.note(name, v, why, ok)
}

// note keeps a worked value's arithmetic, once. A value not given with a
// reason is refused.
func (w *workedValues) note(name, v, why string, ok bool) (any, bool) {
	if why != "" && !contains(w.notes, why) {
		w.notes = append(w.notes, why)
	}
	if !ok {
		if why != "" {
			w.refuse(name)
		}
		return nil, false
	}
	return v, true
}

// refuse marks a worked value as one the log's figures rule out.
func (w *workedValues) refuse(name string) {
	if w.refused == nil {
		w.refused = make(map[string]bool)
	}
	w.refused[name] = true
}

// refuses reports whether a template names a refused worked value.
func (w *workedValues) refuses(tmpl string) bool {
	for name := range w.refused {
		if strings.Contains(tmpl, "{"+name+"|") || strings.Contains(tmpl, "{"+name+"}") || strings.Contains(tmpl, "|"+name+"|") {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// number is a numeric value of the finding, or false.
func (w *workedValues) number(name string) (float64, bool) {
	v, ok := w.Values.Lookup(name)
	if !ok {
		return 0, false
	}
	if n, ok := pyrepr.IntValue(v); ok {
		return float64(n), true
	}
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

// fractionAfterOOM lowers the fraction by what the allocation lacked plus
// a spare GiB, as a share of the GPU: sglang's static share shrinks the KV
// pool by exactly that much and leaves it to activations.
func (w *workedValues) fractionAfterOOM() (string, string, bool) {
	if why, held := w.othersHold(); held {
		return "", why, false
	}
	if loading, how := w.weightsPhase(); loading {
		return "", "The allocation failed while the weights were loading (" + how + "): " +
			"the weights do not fit on the GPUs as they are split, and `--mem-fraction-static` does not change that.", false
	}
	f, ok := w.number("mem_fraction_static")
	if !ok || f <= 0 || f >= 1 {
		return "", "", false
	}
	tried, ok1 := size(w.Captures[capOOMTried])
	free, ok2 := size(w.Captures[capOOMFree])
	total, ok3 := size(w.Captures[capOOMTotal])
	if !ok1 || !ok2 || !ok3 || total <= 0 {
		return "", "", false
	}
	short := math.Max(tried-free, 0)
	step := math.Max((short+oomSpare)/total, minFractionStep)
	next := math.Floor((f-step)*100+1e-9) / 100
	if next < minFraction {
		return "", fmt.Sprintf("The allocation lacked %s GiB of a %s GiB GPU: lowering `--mem-fraction-static` from %s would leave the KV cache almost nothing, "+
			"so the peak itself must shrink (smaller `--chunked-prefill-size`, `--max-running-requests`, CUDA-graph batch).",
			gib(short), gib(total), fraction(f)), false
	}
	if p, ok := w.number(matcher.Previous + "mem_fraction_static"); ok && p < f && next <= p {
		return "", fmt.Sprintf("The log's previous start ran with `--mem-fraction-static %s` and this one raised it to %s; the %s this OOM asks for is back at or below where it started. "+
			"Failing both ways means the weights, the KV cache and the activations do not fit together: %s.", fraction(p), fraction(f), fraction(next), neitherWay), false
	}
	why := fmt.Sprintf("Worked from the message: it tried %s GiB with %s GiB free, %s GiB short; with %s GiB to spare that is %s of the %s GiB GPU, so %s − %s → %s.",
		gib(tried), gib(free), gib(short), gib(oomSpare), share(step), gib(total), fraction(f), share(step), fraction(next))
	if v, _ := w.Values.Lookup(matcher.MemCapturing); v == true {
		why += " It failed while capturing CUDA graphs (the log has `Capture cuda graph begin` and no end): fewer graph batch sizes (a lower `--cuda-graph-max-bs`) shrink the same need without shrinking the KV cache."
	}
	return fraction(next), why, true
}

// othersHold reports whether the allocator's message says other processes
// hold a real share of the GPU (what is in use less this process's own):
// then they, not the server's settings, are what to change first.
func (w *workedValues) othersHold() (string, bool) {
	free, ok1 := size(w.Captures[capOOMFree])
	total, ok2 := size(w.Captures[capOOMTotal])
	own, ok3 := size(w.Captures[capOOMOwn])
	if !ok1 || !ok2 || !ok3 || total <= 0 || free+own > total {
		return "", false
	}
	others := total - free - own
	if others <= othersShare*total {
		return "", false
	}
	return fmt.Sprintf("Other processes hold %s GiB of this %s GiB GPU (%s in use − %s of this process's): free the GPU before changing the server's settings.",
		gib(others), gib(total), gib(total-free), gib(own)), true
}

// loadingWeights reports whether the failure came while the weights were
// loading (see weightsPhase).
func (w *workedValues) loadingWeights() bool {
	loading, _ := w.weightsPhase()
	return loading
}

// weightsPhase reports whether the failure came while the weights were
// loading, and how that is known: the start-up logged Load weight begin
// and no Load weight end; or, when the log has neither, the traceback
// failed in sglang's weight-loading code.
func (w *workedValues) weightsPhase() (loading bool, how string) {
	if m, ok := w.memory(); ok {
		return m.BeforeWeights > 0 && m.AfterWeights == 0, "the log has `Load weight begin` and no `Load weight end`"
	}
	if fn, ok := loadingFrame(w.ownFrame); ok {
		return true, "the traceback failed in sglang's " + fn + ", which loads them"
	}
	return false, ""
}

// loadingFrame reports whether a frame line is in sglang's weight-loading
// code: a file under model_loader/, or a function that loads or places
// weights (load_weights, weight_loader, _load_w13, …). It returns the
// function's name.
func loadingFrame(frame string) (string, bool) {
	m := frameRE.FindStringSubmatch(strings.TrimSpace(frame))
	if m == nil || !strings.Contains(m[1], "sglang/srt/") {
		return "", false
	}
	fn := m[3]
	if strings.Contains(m[1], "sglang/srt/model_loader/") || strings.HasPrefix(fn, "load_weights") ||
		strings.HasPrefix(fn, "weight_loader") || strings.HasPrefix(fn, "_load_") || strings.HasSuffix(fn, "_weight_loader") {
		return fn, true
	}
	return "", false
}

// tpForWeights scales the TP size by how far a shard overran what a GPU
// gives the weights: at least what the GPU held when the allocation
// failed, plus the allocation (the loading had not finished, so the shard
// is larger still), against the fraction less the KV cache's share. TP
// sizes are powers of two in practice (they must divide the attention
// heads), so the next one at or above is suggested.
func (w *workedValues) tpForWeights() (string, string, bool) {
	tried, ok1 := size(w.Captures[capOOMTried])
	free, ok2 := size(w.Captures[capOOMFree])
	total, ok3 := size(w.Captures[capOOMTotal])
	if !ok1 || !ok2 || !ok3 || total <= 0 || free > total {
		return "", "", false
	}
	need := total - free + tried
	if why, held := w.othersHold(); held {
		return "", why, false
	}
	if own, ok := size(w.Captures[capOOMOwn]); ok && own < total-free {
		need = own + tried
	}
	tp, ok := w.number("tp_size")
	if !ok || tp < 1 {
		return "", "", false
	}
	f, ok := w.number("mem_fraction_static")
	if !ok || f <= kvShare || f >= 1 {
		return "", "", false
	}
	budget := (f - kvShare) * total
	scale := tp * need / budget
	next := tp * 2
	for next < scale {
		next *= 2
	}
	why := fmt.Sprintf("Worked from the message: at TP %s a GPU held %s GiB (%s total − %s free) and asked for %s more before the weights were loaded, so a shard needs more than %s GiB; "+
		"with `--mem-fraction-static %s` less %s for the KV cache a GPU gives the weights %s GiB → TP ≥ %s × %s / %s = %s → %s.",
		fraction(tp), gib(total-free), gib(total), gib(free), gib(tried), gib(need),
		fraction(f), share(kvShare), gib(budget), fraction(tp), gib(need), gib(budget), strconv.FormatFloat(scale, 'f', 2, 64), fraction(next))
	return fraction(next), why, true
}

// fractionForKVPool raises the fraction above the share the weights left
// used: sglang keeps (1 − fraction) of the memory free before the weights
// for activations, so the pool exists only when that is less than what the
// weights left free.
func (w *workedValues) fractionForKVPool() (string, string, bool) {
	m, ok := w.memory()
	if !ok || m.BeforeWeights <= 0 || m.AfterWeights <= 0 || m.AfterWeights >= m.BeforeWeights {
		return "", "", false
	}
	used := 1 - m.AfterWeights/m.BeforeWeights
	next := math.Ceil((used+kvShare)*100-1e-9) / 100
	if next > maxFraction {
		return "", fmt.Sprintf("After the weights only %s of %s GB were free: the weights take %s of the GPU, and no `--mem-fraction-static` leaves room for both a KV cache and run-time activations. "+
			"Spread the model over more GPUs or load a smaller (quantized) checkpoint.",
			gib(m.AfterWeights), gib(m.BeforeWeights), share(used)), false
	}
	ran, fit := w.number("mem_fraction_static")
	fit = fit && ran >= next
	if fit {
		// The weights fit under the fraction the server had: something the
		// start-up lines do not itemise (a hybrid model's state cache, a
		// draft model, another process) took the rest. A step up is all
		// the figures support.
		next = math.Ceil((ran+kvShare)*100-1e-9) / 100
		if next > maxFraction {
			return "", "", false
		}
	}
	if f, ok := w.number("mem_fraction_static"); ok {
		if why, undone := w.undoesLowering(f, next); undone {
			return "", why, false
		}
	}
	if fit {
		left := ran - used
		why := fmt.Sprintf("Worked from the start-up: %s GB were free before the weights and %s GB after, so the weights take %s of the GPU, under the %s the server ran with: "+
			"%s (%s GB) was left for the KV cache and was not enough. Something the start-up lines do not itemise took part of it: "+
			"a hybrid model's state cache (`--max-mamba-cache-size`), a draft model, or another process on the GPU. %s more → %s.",
			gib(m.BeforeWeights), gib(m.AfterWeights), share(used), fraction(ran), share(left), gib(left*m.BeforeWeights), share(kvShare), fraction(next))
		return fraction(next), why, true
	}
	why := fmt.Sprintf("Worked from the start-up: %s GB were free before the weights and %s GB after, so the weights take %s of the GPU; with %s more for the KV cache → %s.",
		gib(m.BeforeWeights), gib(m.AfterWeights), share(used), share(kvShare), fraction(next))
	return fraction(next), why, true
}

// undoesLowering reports, and says why, when a raised fraction is back at
// or above where the log's previous start ran before this one lowered it
// to now: the server fails both ways.
func (w *workedValues) undoesLowering(now, next float64) (string, bool) {
	p, ok := w.number(matcher.Previous + "mem_fraction_static")
	if !ok || now >= p || next < p {
		return "", false
	}
	return fmt.Sprintf("The log's previous start ran with `--mem-fraction-static %s` and this one lowered it to %s; the %s the weights need is back at or above where it started. "+
		"Failing both ways means the weights, the KV cache and the activations do not fit together: %s.", fraction(p), fraction(now), fraction(next), neitherWay), true
}

// Captures of sglang's message when the weights leave the KV cache no
// room: the fraction it ran with and the least one that leaves any.
const (
	capFractionNow       = "current"
	capFractionSuggested = "suggested"
)

// suggestedMargin is what a worked fraction adds to the least one sglang
// suggests: at exactly that, the KV-cache pool is empty.
const suggestedMargin = 0.03

// fractionAboveSuggested adds a margin to the least fraction sglang's
// message names, so that the pool holds requests, not nothing.
func (w *workedValues) fractionAboveSuggested() (string, string, bool) {
	least, err := strconv.ParseFloat(strings.TrimSpace(w.Captures[capFractionSuggested]), 64)
	if err != nil || least <= 0 || least >= 1 {
		return "", "", false
	}
	next := math.Ceil((least+suggestedMargin)*100-1e-9) / 100
	if next > maxFraction {
		return "", fmt.Sprintf("sglang's message puts the least `--mem-fraction-static` that leaves the KV cache any room at %s: the weights take nearly the whole GPU, "+
			"and no fraction leaves room for both a KV cache and run-time activations. Spread the model over more GPUs or load a smaller (quantized) checkpoint.", fraction(least)), false
	}
	now := ""
	if f, err := strconv.ParseFloat(strings.TrimSpace(w.Captures[capFractionNow]), 64); err == nil {
		now = fmt.Sprintf(" (the server ran with %s)", fraction(f))
		if why, undone := w.undoesLowering(f, next); undone {
			return "", why, false
		}
	}
	why := fmt.Sprintf("Worked from the message: the least fraction that leaves the KV cache any room is %s%s; %s more gives the pool room for requests → %s.",
		fraction(least), now, fraction(suggestedMargin), fraction(next))
	return fraction(next), why, true
}

// contextThatFits caps the context length at the pool's size, rounded
// down to a multiple of 1024 tokens: a request that long can then always
// be served, and a longer one is rejected up front.
func (w *workedValues) contextThatFits() (string, string, bool) {
	pool, ok := w.number(matcher.MemPoolTokens)
	if !ok || pool < 1 {
		return "", "", false
	}
	next := pool
	if pool >= 2048 {
		next = math.Floor(pool/1024) * 1024
	}
	ctx, known := w.number(matcher.MemContextLen)
	if !known {
		ctx, known = w.number("context_length")
	}
	if known && ctx > 0 && ctx <= next {
		return "", "", false // the context already fits: the pool was full of other requests
	}
	why := fmt.Sprintf("Worked from the start-up: the KV-cache pool holds %.0f tokens", pool)
	if known && ctx > 0 {
		why += fmt.Sprintf(" and one request may use %.0f", ctx)
	}
	why += fmt.Sprintf("; a context length of at most the pool, rounded down to 1024s, is %.0f.", next)
	return strconv.FormatFloat(next, 'f', 0, 64), why, true
}

// memory returns the start-up's memory lines the finding's configuration
// carries.
func (w *workedValues) memory() (matcher.Memory, bool) {
	var m matcher.Memory
	get := func(name string) float64 {
		if w.Config == nil {
			return 0
		}
		v, ok := w.Config.Lookup(name)
		if !ok {
			return 0
		}
		x, _ := v.(float64)
		return x
	}
	m.BeforeWeights, m.Weights, m.AfterWeights = get(matcher.MemBeforeWeights), get(matcher.MemWeights), get(matcher.MemAfterWeights)
	return m, m.BeforeWeights > 0 || m.AfterWeights > 0
}

// sizeRE reads a memory size as allocators print it: "1.50 GiB", "812 MiB".
var sizeRE = regexp.MustCompile(`^([\d.]+)\s*([KMGT]i?B|B)$`)

// size is a memory size in GiB.
func size(s string) (float64, bool) {
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	switch strings.TrimSuffix(strings.TrimSuffix(m[2], "B"), "i") {
	case "":
		v /= 1 << 30
	case "K":
		v /= 1 << 20
	case "M":
		v /= 1 << 10
	case "T":
		v *= 1 << 10
	}
	return v, true
}

func gib(v float64) string      { return strconv.FormatFloat(v, 'f', 2, 64) }
func share(v float64) string    { return strconv.FormatFloat(v, 'f', 3, 64) }
func fraction(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

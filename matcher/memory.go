package matcher

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// Memory is what a server's start-up said about its GPU memory, in GB as
// sglang prints it (and the KV pool's size in tokens): the memory free before the weights were loaded, after
// them, after the KV-cache pool, and after the CUDA graphs, with what each
// step took. A zero field was not logged. sglang sizes its static share
// (--mem-fraction-static) against the memory free before the weights.
type Memory struct {
	BeforeWeights float64 // "Load weight begin. avail mem=…"
	Weights       float64 // "Load weight end. … mem usage=…", or the drop in free memory
	AfterWeights  float64 // "Load weight end. … avail mem=…"
	KVCache       float64 // "KV Cache is allocated. … K size: …, V size: …"
	AfterPool     float64 // "Memory pool end. avail mem=…"
	Graphs        float64 // "Capture cuda graph end. … mem usage=…"
	AfterGraphs   float64 // "Capture cuda graph end. … avail mem=…"
	// PoolTokens is how many tokens the KV-cache pool holds, and
	// ContextLen the context length the server runs with: "#tokens: …",
	// "max_total_num_tokens=…, …, context_len=…".
	PoolTokens, ContextLen float64
	// Capturing is true between "Capture cuda graph begin" and its end.
	Capturing bool
}

// Memory fields by the names templates use.
const (
	MemBeforeWeights = "gpu_mem_before_weights_gb"
	MemWeights       = "gpu_mem_weights_gb"
	MemAfterWeights  = "gpu_mem_after_weights_gb"
	MemKVCache       = "gpu_mem_kv_cache_gb"
	MemAfterPool     = "gpu_mem_after_pool_gb"
	MemGraphs        = "gpu_mem_cuda_graphs_gb"
	MemAfterGraphs   = "gpu_mem_after_graphs_gb"
	MemPoolTokens    = "max_total_num_tokens"
	MemContextLen    = "context_len"
	// MemCapturing answers true while CUDA graphs are being captured.
	MemCapturing = "gpu_capturing_cuda_graphs"
)

// Lookup answers a memory field by its name.
func (m Memory) Lookup(name string) (any, bool) {
	if name == MemCapturing {
		return m.Capturing, m.Capturing
	}
	var v float64
	switch name {
	case MemBeforeWeights:
		v = m.BeforeWeights
	case MemWeights:
		v = m.Weights
	case MemAfterWeights:
		v = m.AfterWeights
	case MemKVCache:
		v = m.KVCache
	case MemAfterPool:
		v = m.AfterPool
	case MemGraphs:
		v = m.Graphs
	case MemAfterGraphs:
		v = m.AfterGraphs
	case MemPoolTokens:
		v = m.PoolTokens
	case MemContextLen:
		v = m.ContextLen
	}
	if v <= 0 {
		return nil, false
	}
	return v, true
}

var (
	availMemRE = regexp.MustCompile(`avail mem=([\d.]+) ?GB`)
	memUsageRE = regexp.MustCompile(`mem usage=([\d.]+) ?GB`)
	kvSizeRE   = regexp.MustCompile(`K size: ([\d.]+) ?GB, V size: ([\d.]+) ?GB`)
	tokensRE   = regexp.MustCompile(`#tokens: (\d+)`)
	poolRE     = regexp.MustCompile(`max_total_num_tokens=(\d+)`)
	contextRE  = regexp.MustCompile(`context_len=(\d+)`)
)

// observe reads one of sglang's memory lines. A new "Load weight begin" is
// a new start: what an earlier start said no longer holds.
func (m *Memory) observe(msg []byte) {
	avail := gb(availMemRE, msg, 1)
	usage := gb(memUsageRE, msg, 1)
	switch {
	case bytes.Contains(msg, []byte("Load weight begin")):
		*m = Memory{BeforeWeights: avail}
	case bytes.Contains(msg, []byte("Load weight end")):
		m.AfterWeights, m.Weights = avail, usage
		if usage == 0 && m.BeforeWeights > avail && avail > 0 {
			m.Weights = m.BeforeWeights - avail
		}
		m.KVCache, m.AfterPool, m.Graphs, m.AfterGraphs, m.PoolTokens, m.ContextLen, m.Capturing = 0, 0, 0, 0, 0, 0, false
	case bytes.Contains(msg, []byte("KV Cache is allocated")):
		m.KVCache = gb(kvSizeRE, msg, 1) + gb(kvSizeRE, msg, 2)
		m.PoolTokens = gb(tokensRE, msg, 1)
	case bytes.Contains(msg, []byte("max_total_num_tokens=")):
		m.PoolTokens = gb(poolRE, msg, 1)
		if c := gb(contextRE, msg, 1); c > 0 {
			m.ContextLen = c
		}
	case bytes.Contains(msg, []byte("Memory pool end")):
		m.AfterPool = avail
	case captureLine(msg, "begin"):
		m.Capturing = true
	case captureLine(msg, "end"):
		m.Graphs, m.AfterGraphs, m.Capturing = usage, avail, false
	}
}

// captureLine reports whether msg is the begin or end line of a CUDA graph
// capture, in any release's words: "Capture cuda graph begin.", "Capture
// target decode CUDA graph end. …".
func captureLine(msg []byte, which string) bool {
	if !bytes.HasPrefix(msg, []byte("Capture ")) {
		return false
	}
	return bytes.Contains(msg, []byte("cuda graph "+which)) || bytes.Contains(msg, []byte("CUDA graph "+which))
}

// known reports whether any memory line was read.
func (m Memory) known() bool { return m != Memory{} }

// gb is the number in group i of re's match in msg, or 0.
func gb(re *regexp.Regexp, msg []byte, i int) float64 {
	sub := re.FindSubmatch(msg)
	if sub == nil || len(sub) <= i {
		return 0
	}
	v, err := strconv.ParseFloat(string(sub[i]), 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// Previous prefixes a field of the configuration the server ran with at
// the start before this one, when the log restarted it:
// "previous.mem_fraction_static".
const Previous = "previous."

// context is a configuration that also answers the memory fields and the
// previous start's fields.
type context struct {
	base Config
	mem  Memory
	prev Config
	// command is the launch command beside a logged configuration (run's
	// command, or one the log printed): it answers what the logged
	// configuration does not, such as how the user spelt a flag.
	command Config
}

// BaseConfig returns the configuration an occurrence's Config adds the
// log's memory figures and previous start to: the server's own (its
// ServerArgs line, or the launch command). ok is false for a Config that
// adds nothing to another.
func BaseConfig(c Config) (base Config, ok bool) {
	if x, ok := c.(context); ok {
		return x.base, true
	}
	return nil, false
}

func (c context) Lookup(name string) (any, bool) {
	if v, ok := c.mem.Lookup(name); ok {
		return v, true
	}
	if field, ok := strings.CutPrefix(name, Previous); ok {
		if c.prev == nil {
			return nil, false
		}
		return c.prev.Lookup(field)
	}
	if c.base != nil {
		if v, ok := c.base.Lookup(name); ok {
			return v, true
		}
	}
	if c.command != nil {
		return c.command.Lookup(name)
	}
	return nil, false
}

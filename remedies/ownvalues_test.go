package remedies

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/pyrepr"
)

// deployments are server configurations of several shapes as sglang logs
// them: the server_args lines of fixture logs, and servers with DP
// attention, expert parallelism, two nodes, speculative decoding and LoRA
// adapters made from them. Each is
// real-shaped: like sglang's own line it has every field of the flag
// table, those the fixture does not give at their defaults.
func readDeployments() (map[string]*pyrepr.ServerArgs, error) {
	out := map[string]*pyrepr.ServerArgs{}
	for name, file := range map[string]string{
		"one GPU":                       "port-in-use.log",
		"TP4":                           "oom-tp4-sigquit.log",
		"TP8":                           "healthy-tp8-startup.log",
		"PD prefill, PP2, mooncake":     "pd-prefill-minimax-pp2-mooncake.log",
		"PD prefill, PP2, nixl":         "pd-prefill-minimax-pp2-nixl.log",
		"PD decode, TP4":                "pd-decode-minimax-tp4.log",
		"PD prefill, TP8":               "pd-prefill-minimax-hetero-tp.log",
		"TP4, KV pool too small":        "kv-pool-not-enough-memory.log",
		"TP2, CUDA graph capture":       "cuda-graph-capture-oom.log",
		"TP8, MoE (Qwen3-235B-A22B)":    "nccl-watchdog-tp8.log",
		"TP2, PD prefill, nixl (Llama)": "native-segfault.log",
	} {
		data, err := os.ReadFile("../testdata/logs/" + file)
		if err != nil {
			return nil, err
		}
		i := strings.Index(string(data), "server_args=ServerArgs(")
		if i < 0 {
			return nil, fmt.Errorf("%s: no server_args line", file)
		}
		line, _, _ := strings.Cut(string(data[i:]), "\n")
		a := pyrepr.ParseServerArgs(strings.TrimPrefix(line, "server_args="))
		if !a.Complete || len(a.Fields) < 20 {
			return nil, fmt.Errorf("%s: %d fields read, complete %v", file, len(a.Fields), a.Complete)
		}
		out[name] = a
	}
	out["TP8, DP attention, EP8"] = with(out["TP8"], map[string]any{
		"dp_size": int64(8), "enable_dp_attention": true, "ep_size": int64(8), "moe_a2a_backend": "deepep",
	})
	out["TP8, EP8, MoE"] = with(out["TP8, MoE (Qwen3-235B-A22B)"], map[string]any{
		"ep_size": int64(8), "moe_runner_backend": "flashinfer_trtllm", "enable_eplb": true,
	})
	out["TP16 over two nodes"] = with(out["TP8, MoE (Qwen3-235B-A22B)"], map[string]any{
		"tp_size": int64(16), "nnodes": int64(2), "node_rank": int64(1), "dist_init_addr": "10.8.0.21:5000",
	})
	out["TP8, EAGLE3"] = with(out["TP8"], map[string]any{
		"speculative_algorithm": "EAGLE3", "speculative_draft_model_path": "lmsys/SGLang-EAGLE3-Llama-3.1-405B",
		"speculative_num_steps": int64(3), "speculative_eagle_topk": int64(1), "speculative_num_draft_tokens": int64(4),
	})
	out["one GPU, LoRA"] = with(out["one GPU"], map[string]any{
		"model_path": "meta-llama/Llama-3.1-8B-Instruct", "enable_lora": true,
		"lora_paths":    []any{"sql=/adapters/sql-lora", "chat=/adapters/chat-lora"},
		"max_lora_rank": int64(16), "lora_target_modules": []any{"q_proj", "v_proj"},
		"max_loras_per_batch": int64(4), "max_loaded_loras": int64(4), "lora_backend": "csgmv",
	})
	table, err := patterns.Flags()
	if err != nil {
		return nil, err
	}
	for _, a := range out {
		// What sglang resolves before it prints the line, when the
		// fixture does not say.
		for k, v := range map[string]any{
			"attention_backend": "flashinfer", "sampling_backend": "flashinfer", "grammar_backend": "xgrammar",
			"page_size": int64(1), "hicache_ratio": 2.0,
		} {
			if old, ok := a.Fields[k]; !ok || old == nil {
				if !ok {
					a.Order = append(a.Order, k)
				}
				a.Fields[k] = v
			}
		}
		for _, fl := range table.Flags {
			if _, ok := a.Fields[fl.Dest]; ok {
				continue
			}
			a.Fields[fl.Dest] = defaultValue(fl)
			a.Order = append(a.Order, fl.Dest)
		}
	}
	return out, nil
}

func deployments(t testing.TB) map[string]*pyrepr.ServerArgs {
	t.Helper()
	deps, err := readDeployments()
	if err != nil {
		t.Fatal(err)
	}
	return deps
}

// with is a copy of a configuration with some fields set.
func with(a *pyrepr.ServerArgs, set map[string]any) *pyrepr.ServerArgs {
	c := pyrepr.ParseServerArgs(a.Repr())
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, ok := c.Fields[k]; !ok {
			c.Order = append(c.Order, k)
		}
		c.Fields[k] = set[k]
	}
	return c
}

// defaultValue is a flag's default as ServerArgs holds it.
func defaultValue(fl *patterns.Flag) any {
	if fl.Default == "" || fl.Default == "null" {
		return nil
	}
	d := json.NewDecoder(strings.NewReader(fl.Default))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	return pyValue(v)
}

func pyValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pyValue(e)
		}
		return out
	}
	return v
}

// launchFixes are the hand-written records whose fix changes an sglang
// launch command (its before or after passes sglang's flags and no
// other's), and how many carry a before/after that changes something
// else (a variable, code, a package, another server's flags).
func launchFixes(pack *patterns.Pack, table *patterns.FlagTable) (recs []*patterns.Record, other int) {
	for _, r := range pack.Records {
		if r.Gen != nil || r.Fix.Before == "" && r.Fix.After == "" {
			continue
		}
		sglang := func(text string) bool {
			flags := sglangFlags(text)
			return len(flags) > 0 && !slices.ContainsFunc(flags, func(f string) bool { return table.Lookup(f) == nil })
		}
		// The flags of the change as written, or as its example shows
		// them: a worked value's default may hold them
		// ("{parallel_now|--tp-size 4}").
		before, _ := Render(r.Fix.Before, nil)
		after, _ := Render(r.Fix.After, nil)
		if !sglang(r.Fix.Before+" "+r.Fix.After) && !sglang(before+" "+after) {
			other++
			continue
		}
		recs = append(recs, r)
	}
	return recs, other
}

// implied is a server's configuration with the settings a record's
// error implies, which a server that logs this error runs with: the
// switches and the choices its fix's before names
// ("--enable-hierarchical-cache", "--attention-backend fa3"), and, where
// the server leaves them unset, the names it gives (EAGLE) and the flags
// it draws from the server's values ("--dist-init-addr {dist_init_addr|…}"
// on a single node), with the example value. A literal size, port, path
// or fraction is not implied: it is measured against the server's own.
type implied struct {
	base matcher.Config
	set  map[string]any
}

func (c implied) Lookup(name string) (any, bool) {
	if v, ok := c.set[name]; ok {
		return v, true
	}
	v, ok := c.base.Lookup(name)
	if u, implied := c.set[unsetOnly+name]; implied && v == nil {
		return u, true
	}
	return v, ok
}

// impliedBy returns the settings a fix's before implies.
func impliedBy(before string, table *patterns.FlagTable) map[string]any {
	if servers.MatchString(before) {
		return nil // two servers' flags
	}
	set := map[string]any{}
	// A flag the before draws from the server's values is one the server
	// sets: where the deployment leaves it unset, it has the example.
	for _, m := range placedRE.FindAllStringSubmatch(before, -1) {
		exprs, def := alternatives(m[1])
		if len(exprs) == 0 || def == "" || !fieldRE.MatchString(exprs[0]) {
			continue
		}
		var v any = def
		if n, err := strconv.ParseInt(def, 10, 64); err == nil {
			v = n
		} else if f, err := strconv.ParseFloat(def, 64); err == nil {
			v = f
		}
		set[unsetOnly+strings.TrimSpace(exprs[0])] = v
	}
	before, _ = Render(before, nil) // a placeholder's example, where it has one
	args := launch.FixArgs(before, table)
	for i := 0; i < len(args); i++ {
		name, value, eq := strings.Cut(args[i], "=")
		fl := table.Lookup(name)
		if fl == nil {
			continue
		}
		if !fl.TakesValue() {
			set[fl.Dest] = !strings.Contains(fl.Action, "store_false")
			continue
		}
		if !eq && i+1 < len(args) {
			i++
			value = args[i]
		}
		switch {
		case slices.Contains(fl.Choices, value):
			set[fl.Dest] = value
		case nameRE.MatchString(value):
			// A name of no fixed list (an algorithm, a parser): implied
			// where the server leaves it unset.
			set[unsetOnly+fl.Dest] = value
		}
	}
	return set
}

// placedRE finds a flag whose value is a placeholder; fieldRE is a
// placeholder that is a field's name.
var (
	placedRE = regexp.MustCompile(`--[a-z0-9-]+[ =]\{([^{}]*)\}`)
	fieldRE  = regexp.MustCompile(`^\s*[a-z_][a-z0-9_.]*\s*$`)
)

// unsetOnly marks an implied setting that applies only where the server
// leaves the field unset.
const unsetOnly = "?"

// diagnoseOwnLine diagnoses one of the record's own test lines in the log
// of a server with a configuration and returns the finding of the
// record, or nil when none of its lines gives one.
func diagnoseOwnLine(m *matcher.Matcher, r *patterns.Record, cfg matcher.Config) *diagnose.Finding {
	for _, line := range r.Tests.Match {
		s := diagnose.New(m, diagnose.Options{})
		if err := s.Add("server.log", diagnose.SourceOptions{Known: cfg}).Scan(strings.NewReader(line + "\n")); err != nil {
			return nil
		}
		for _, f := range s.Findings() {
			if f.ID == r.ID {
				return f
			}
		}
	}
	return nil
}

// ownRender is a hand-written launch fix rendered for one deployment.
type ownRender struct {
	rec  *patterns.Record
	dep  string
	cfg  matcher.Config // the deployment with the settings the error implies
	f    *diagnose.Finding
	rem  Remedy
	seen bool // the record's own line gave its finding
}

// ownRenders renders every hand-written launch fix for every deployment,
// once for the tests that judge them: diagnosed from the record's own
// error line where that gives the record's finding, as a bare finding of
// the record otherwise.
var ownRenders = sync.OnceValues(func() ([]ownRender, error) {
	pack, err := patterns.Builtin()
	if err != nil {
		return nil, err
	}
	m, err := matcher.Compile(pack)
	if err != nil {
		return nil, err
	}
	table, err := patterns.Flags()
	if err != nil {
		return nil, err
	}
	deps, err := readDeployments()
	if err != nil {
		return nil, err
	}
	recs, _ := launchFixes(pack, table)
	names := make([]string, 0, len(deps))
	for name := range deps {
		names = append(names, name)
	}
	slices.Sort(names)
	var out []ownRender
	for _, r := range recs {
		set := impliedBy(r.Fix.Before, table)
		for _, name := range names {
			cfg := implied{deps[name], set}
			f, seen := diagnoseOwnLine(m, r, cfg), true
			if f == nil {
				f, seen = &diagnose.Finding{ID: r.ID, Record: r, Config: cfg}, false
			}
			out = append(out, ownRender{r, name, cfg, f, For(f), seen})
		}
	}
	return out, nil
})

// Every hand-written fix that changes a launch command shows the
// server's own values, not an example: on the log of a server of one of
// several shapes, with the settings the error implies, and the record's
// own error line, the share want of them at least render wholly from the
// server's values, overall and on every shape. The misses are logged.
func TestFixesInOwnValues(t *testing.T) {
	const want = 0.90
	renders, err := ownRenders()
	if err != nil {
		t.Fatal(err)
	}
	pack, table := builtin(t)
	recs, other := launchFixes(pack, table)
	deps := deployments(t)
	names := make([]string, 0, len(deps))
	for name := range deps {
		names = append(names, name)
	}
	slices.Sort(names)
	own := map[string]int{}
	judged := map[string]int{}
	misses := map[string][]string{}
	undiagnosed, withheld := 0, 0
	for _, x := range renders {
		rem, name := x.rem, x.dep
		switch {
		case !x.seen:
			undiagnosed++
			continue
		case rem.Before == "" && rem.After == "":
			withheld++ // the log's figures rule the change out, and the remedy says why
			continue
		}
		judged[name]++
		if !rem.Example {
			own[name]++
			continue
		}
		misses[x.rec.ID] = append(misses[x.rec.ID], fmt.Sprintf("%s: %q → %q", name, rem.Before, rem.After))
	}
	total, totalOwn := 0, 0
	worst, worstName := 2.0, ""
	for _, name := range names {
		total += judged[name]
		totalOwn += own[name]
		share := float64(own[name]) / float64(max(judged[name], 1))
		t.Logf("%-32s %3d/%3d in the server's own values (%.1f%%)", name, own[name], judged[name], 100*share)
		if share < worst {
			worst, worstName = share, name
		}
	}
	ids := make([]string, 0, len(misses))
	for id := range misses {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		t.Logf("example, not own: %s on %d deployments, e.g. %s", id, len(misses[id]), misses[id][0])
	}
	share := float64(totalOwn) / float64(max(total, 1))
	t.Logf("%d records change a launch command (%d others change something else); %d/%d renders in the server's own values (%.1f%%), worst %s (%.1f%%); %d renders found no finding, %d withheld by the log's figures",
		len(recs), other, totalOwn, total, 100*share, worstName, 100*worst, undiagnosed, withheld)
	if share < want || worst < want {
		t.Errorf("%.1f%% of renders in the server's own values overall, %.1f%% on %s; want at least %.0f%%", 100*share, 100*worst, worstName, 100*want)
	}
	if len(recs) < 200 || total < len(recs)*len(names)*9/10 {
		t.Errorf("only %d records with a launch fix, %d renders judged", len(recs), total)
	}
}

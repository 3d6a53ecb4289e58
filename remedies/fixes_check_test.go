package remedies

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/pyrepr"
)

// deployments are server configurations of several shapes, as sglang logs
// them: the server_args lines of fixture logs, and a DP-attention server
// with expert parallelism made from one of them.
func deployments(t *testing.T) map[string]*pyrepr.ServerArgs {
	t.Helper()
	out := map[string]*pyrepr.ServerArgs{}
	for name, file := range map[string]string{
		"one GPU":                 "port-in-use.log",
		"TP4":                     "oom-tp4-sigquit.log",
		"TP8":                     "healthy-tp8-startup.log",
		"PD prefill, PP2":         "pd-prefill-minimax-pp2-mooncake.log",
		"PD decode, TP4":          "pd-decode-minimax-tp4.log",
		"PD prefill, TP8":         "pd-prefill-minimax-hetero-tp.log",
		"TP4, KV pool too small":  "kv-pool-not-enough-memory.log",
		"TP2, CUDA graph capture": "cuda-graph-capture-oom.log",
	} {
		data, err := os.ReadFile("../testdata/logs/" + file)
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(string(data), "server_args=ServerArgs(")
		if i < 0 {
			t.Fatalf("%s: no server_args line", file)
		}
		line, _, _ := strings.Cut(string(data[i:]), "\n")
		a := pyrepr.ParseServerArgs(strings.TrimPrefix(line, "server_args="))
		if !a.Complete || len(a.Fields) < 20 {
			t.Fatalf("%s: %d fields read, complete %v", file, len(a.Fields), a.Complete)
		}
		out[name] = a
	}
	dpa := pyrepr.ParseServerArgs(out["TP8"].Repr())
	for k, v := range map[string]any{"dp_size": int64(8), "enable_dp_attention": true, "ep_size": int64(8), "moe_a2a_backend": "deepep"} {
		dpa.Fields[k] = v
	}
	out["TP8, DP attention, EP8"] = dpa
	return out
}

// Every hand-written fix, rendered in the values of servers of several
// shapes, passes check: its flags exist, its values are among their
// choices, and the command it makes trips no check rule at error level
// that the server's command when the error happens (the fix's before
// applied to its configuration) does not trip already.
func TestRenderedFixesPassCheck(t *testing.T) {
	pack, err := patterns.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	table, err := patterns.Flags()
	if err != nil {
		t.Fatal(err)
	}
	deps := deployments(t)
	names := make([]string, 0, len(deps))
	for name := range deps {
		names = append(names, name)
	}
	slices.Sort(names)
	rendered, ruled, noted := 0, 0, 0
	for _, r := range pack.Records {
		if r.Gen != nil || r.Fix.After == "" || !strings.HasPrefix(r.ID, "sglang/") {
			continue
		}
		for _, name := range names {
			a := deps[name]
			rem := For(&diagnose.Finding{ID: r.ID, Record: r, Config: a})
			if rem.After == "" {
				continue
			}
			args := launch.FixArgs(rem.After, table)
			if len(args) == 0 {
				continue
			}
			rendered++
			for _, is := range launch.Judge(args, table) {
				switch is.ID {
				case "sglang/unrecognized-arguments", "sglang/invalid-choice", "sglang/invalid-value":
					t.Errorf("%s on %s: the fix %q does not pass check: %s", r.ID, name, rem.After, is.Message)
				}
			}
			if servers.MatchString(rem.After) || rem.Example {
				// Two servers' flags, or an example rather than a change
				// to this server's command.
				continue
			}
			ruled++
			// What the server runs when the error happens (the fix's
			// before, in this server's values), and with the fix: a rule
			// the change alone trips at error level is said in the remedy.
			notes := strings.Join(rem.Worked, " ")
			for _, is := range launch.Rejudge(a, launch.FixArgs(rem.Before, table), args, table) {
				if severityOf(is) < patterns.SeverityError {
					continue
				}
				noted++
				if !strings.Contains(notes, is.Message) {
					t.Errorf("%s on %s: the fix %q makes check predict %s, and the remedy does not say so", r.ID, name, rem.After, is.ID)
				}
			}
		}
	}
	t.Logf("%d fixes rendered in %d deployments and judged; %d through the rules, %d with a problem the change alone brings, said in the remedy", rendered, len(deps), ruled, noted)
	if rendered < 500 || ruled < 200 {
		t.Errorf("only %d fixes rendered and judged, %d through the rules", rendered, ruled)
	}
}

// severityOf is a check problem's severity: its own, or its record's.
func severityOf(is launch.Issue) patterns.Severity {
	if is.Severity != 0 {
		return is.Severity
	}
	pack, err := patterns.Curated()
	if err != nil {
		panic(err)
	}
	if rec := pack.Lookup(is.ID); rec != nil {
		return rec.Severity
	}
	return 0
}

package remedies

import (
	"slices"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
)

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

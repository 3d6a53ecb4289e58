package remedies

import (
	"testing"

	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
)

// Every hand-written fix that changes a launch command, rendered in the
// values of servers of several shapes (from the record's own error line,
// with the settings it implies), passes check: its flags exist, its
// values are among their choices, and the command it makes trips no check
// rule at error level that the server's command when the error happens
// (the fix's before applied to its configuration) does not trip already.
func TestRenderedFixesPassCheck(t *testing.T) {
	table := flagTable(t)
	renders, err := ownRenders()
	if err != nil {
		t.Fatal(err)
	}
	recs, deps := map[string]bool{}, map[string]bool{}
	rendered, ruled := 0, 0
	for _, x := range renders {
		r, name, rem := x.rec, x.dep, x.rem
		recs[r.ID], deps[name] = true, true
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
		// before, in this server's values), and with the fix: no rule
		// at error level that the change alone trips.
		for _, is := range launch.Rejudge(x.cfg, launch.FixArgs(rem.Before, table), args, table) {
			if severityOf(is) >= patterns.SeverityError {
				t.Errorf("%s on %s: the fix %q makes check predict %s: %s", r.ID, name, rem.After, is.ID, is.Message)
			}
		}
	}
	t.Logf("%d fixes of %d records rendered in %d deployments and judged; %d through the rules", rendered, len(recs), len(deps), ruled)
	if len(recs) < 250 || len(deps) < 16 || rendered < 3500 || ruled < 3000 {
		t.Errorf("only %d fixes of %d records in %d deployments rendered and judged, %d through the rules", rendered, len(recs), len(deps), ruled)
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

package diagnose

import (
	"strings"
	"testing"

	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
)

// TestFromIssues checks that findings carry the user's before/after in
// their record and captures, name the record they prevent, and come most
// severe first.
func TestFromIssues(t *testing.T) {
	pack, err := patterns.Curated()
	if err != nil {
		t.Fatal(err)
	}
	issues := []launch.Issue{
		{ID: "sglang/deprecated-flag", Side: "command line", Message: "m1", Before: "--a 1", After: "--b 1"},
		{ID: "sglang/pd-minimax-sparse-pp", Side: "prefill command", Message: "m2", Before: "--pp-size 2", After: "--pp-size 1",
			Captures: map[string]string{"pp_size": "2"}},
		{ID: "sglang/spec-with-mixed-chunk", Severity: patterns.SeverityWarning, Message: "m3"},
		{ID: "sglang/invalid-choice", Message: "m4", Before: "--x y"},
	}
	findings, err := FromIssues(pack, issues)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, f := range findings {
		order = append(order, f.ID)
	}
	want := "sglang/invalid-choice sglang/pd-minimax-sparse-pp sglang/deprecated-flag sglang/spec-with-mixed-chunk"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("order = %s, want %s", got, want)
	}
	f := findings[1]
	orig := pack.Lookup("sglang/pd-minimax-sparse-pp")
	if f.Record == orig || f.Record.Fix.Before != "--pp-size 2" || f.Record.Fix.After != "--pp-size 1" || f.Record.Cause != orig.Cause {
		t.Errorf("record fix = %+v", f.Record.Fix)
	}
	if orig.Fix.Before == "--pp-size 2" {
		t.Error("the pack's record was changed")
	}
	if f.Captures["before"] != "--pp-size 2" || f.Captures["after"] != "--pp-size 1" || f.Captures["pp_size"] != "2" {
		t.Errorf("captures = %v", f.Captures)
	}
	if issues[1].Captures["before"] != "" {
		t.Error("the issue's captures were changed")
	}
	if f.Source != "prefill command" || f.Line != 0 || f.Count != 1 || f.Severity != patterns.SeverityError || !f.RootCause {
		t.Errorf("finding = %+v", f)
	}
	if findings[3].Severity != patterns.SeverityWarning || findings[3].Record.Fix.Before != pack.Lookup("sglang/spec-with-mixed-chunk").Fix.Before {
		t.Errorf("severity override or record fix: %+v", findings[3])
	}
	if _, err := FromIssues(pack, []launch.Issue{{ID: "no/such-record"}}); err == nil || err.Error() != `no pattern record "no/such-record"` {
		t.Errorf("an unknown id: error %v", err)
	}
	if got, err := FromIssues(pack, nil); err != nil || len(got) != 0 {
		t.Errorf("no issues: %v, %v", got, err)
	}
}

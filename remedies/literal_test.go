package remedies

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/patterns"
)

// A fix that writes a literal value of the user's own choosing where the
// server's configuration carries one is reported; a placeholder, a
// switch, a choice, a name the error implies, a fixed new value, and two
// servers' flags are not.
func TestLiteralFixes(t *testing.T) {
	table, err := patterns.Flags()
	if err != nil {
		t.Fatal(err)
	}
	mk := func(id, before, after string) *patterns.Record {
		return &patterns.Record{ID: id, Title: "t", Severity: patterns.SeverityError, Match: patterns.Match{Message: "widget " + id},
			Fix: patterns.Fix{Before: before, After: after}, Tests: patterns.Tests{Match: []string{"widget " + id}}}
	}
	pack, err := patterns.NewPack([]*patterns.Record{
		mk("t/literal", "--tp-size 8", "--tp-size 4"),
		mk("t/literal-eq", "--mem-fraction-static=0.9", ""),
		mk("t/literal-after", "--mem-fraction-static {mem_fraction_static|0.9}", "--mem-fraction-static 0.8"),
		mk("t/port", "--host {host|0.0.0.0} --port 30000", "--port {port+10|30010}"),
		mk("t/template", "--tp-size {tp_size|8}", "--tp-size {tp_size/2|4}"),
		mk("t/fixed", "--pp-size {pp_size|2}", "--pp-size 1"),
		mk("t/new-path", "--model-path {model_path|/a}", "--model-path /b"),
		mk("t/switch", "--enable-metrics", "--enable-metrics --tp-size 2"),
		mk("t/choice", "--attention-backend fa3 --speculative-algorithm EAGLE", "--attention-backend triton"),
		mk("t/two-servers", "prefill: --page-size 64   decode: --page-size 1", "prefill: --page-size 64   decode: --page-size 64"),
		mk("t/other-program", "docker run --device /dev/kfd img", "docker run --device /dev/kfd -e X=1 img"),
		mk("t/none", "", "--tp-size 2"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range LiteralFixes(pack, table) {
		got = append(got, fmt.Sprintf("%s %s %s %s", l.Record.ID, l.Side, l.Flag, l.Value))
	}
	want := []string{
		"t/literal before --tp-size 8",
		"t/literal-eq before --mem-fraction-static 0.9",
		"t/literal-after after --mem-fraction-static 0.8",
		"t/port before --port 30000",
	}
	if !slices.Equal(got, want) {
		t.Errorf("LiteralFixes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// literalsKept are the built-in records whose fix keeps a literal value
// the configuration carries, and why.
var literalsKept = map[string]string{
	"sglang/flag-repeated":                "check shows the command's own flags; the record's fix is the example for a log that has none",
	"sglang/pd-mooncake-ib-device-config": "a JSON value: a placeholder's example cannot hold braces",
	"sglang/rocm-aiter-mla-head-count":    "the TP size that fits depends on the model's head counts, which the configuration does not carry",
}

// The built-in records draw every value of the user's own choosing from
// the configuration, but for those kept with a reason.
func TestBuiltinLiteralFixes(t *testing.T) {
	pack, table := builtin(t)
	kept := map[string]bool{}
	for _, l := range LiteralFixes(pack, table) {
		if _, ok := literalsKept[l.Record.ID]; ok {
			kept[l.Record.ID] = true
			continue
		}
		t.Errorf("%s", l)
	}
	for id := range literalsKept {
		if !kept[id] {
			t.Errorf("%s keeps no literal value any more: take it off literalsKept", id)
		}
	}
}

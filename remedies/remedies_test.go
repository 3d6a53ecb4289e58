package remedies

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
	"github.com/tailfix/tailfix/pyrepr"
)

func TestFormatRanks(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"TP0"}, "TP0"},
		{[]string{"TP0", "TP1"}, "TP0, TP1"},
		{[]string{"TP0", "TP1", "TP2", "TP3", "TP4", "TP5", "TP6", "TP7"}, "TP0–TP7"},
		{[]string{"TP0", "TP1", "TP2", "TP5"}, "TP0–TP2, TP5"},
		{[]string{"DP0 TP0", "DP0 TP1", "DP0 TP2", "DP1 TP3"}, "DP0 TP0–DP0 TP2, DP1 TP3"},
		{[]string{"PP0 TP0", "PP1 TP0"}, "PP0 TP0, PP1 TP0"},
	}
	for _, tt := range tests {
		if got := FormatRanks(tt.in); got != tt.want {
			t.Errorf("FormatRanks(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFlagGroups(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"--tp-size 4 --pp-size 2", []string{"--tp-size 4", "--pp-size 2"}},
		{"--enable-dp-attention --dp-size 2", []string{"--enable-dp-attention", "--dp-size 2"}},
		{"prefill: --tp-size 8   decode: --tp-size 4", []string{"prefill:", "--tp-size 8", "decode:", "--tp-size 4"}},
		{"--model-path a b", []string{"--model-path a b"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := flagGroups(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("flagGroups(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDiffFlagsMarksOnlyChanges(t *testing.T) {
	var buf bytes.Buffer
	st := newStyles(&buf, true)
	before, after := diffFlags("--mode prefill --tp-size 4 --pp-size 2", "--mode prefill --tp-size 8 --pp-size 1", &st)
	if !strings.Contains(before, st.kept.Render("--mode prefill")) || !strings.Contains(before, st.removed.Render("--pp-size 2")) {
		t.Errorf("before = %q", before)
	}
	if !strings.Contains(after, st.added.Render("--tp-size 8")) || strings.Contains(after, st.added.Render("--mode prefill")) {
		t.Errorf("after = %q", after)
	}
}

// A remark after a command line is neither a flag nor a change.
func TestDiffFlagsKeepsARemarkApart(t *testing.T) {
	var buf bytes.Buffer
	st := newStyles(&buf, true)
	before, after := diffFlags("--tp-size 8", "--tp-size 4 --pp-size 2   (check the head counts)", &st)
	if want := st.added.Render("--pp-size 2") + "   " + st.meta.Render("(check the head counts)"); !strings.HasSuffix(after, want) {
		t.Errorf("after = %q, want it to end %q", after, want)
	}
	if before != st.removed.Render("--tp-size 8") {
		t.Errorf("before = %q", before)
	}
	for _, tt := range []struct{ in, cmd, remark string }{
		{"--tp-size 4   (a note)", "--tp-size 4", "(a note)"},
		{"--tp-size 4 (not set off)", "--tp-size 4 (not set off)", ""},
		{"--x 1   (a (nested) note)", "--x 1   (a (nested) note)", ""},
		{"(only a note)", "(only a note)", ""},
	} {
		if cmd, remark := splitRemark(tt.in); cmd != tt.cmd || remark != tt.remark {
			t.Errorf("splitRemark(%q) = %q, %q; want %q, %q", tt.in, cmd, remark, tt.cmd, tt.remark)
		}
	}
}

func TestWrapWords(t *testing.T) {
	got := wrapWords("aaa bbb ccc --a-long-flag-name dd", 10)
	want := []string{"aaa bbb", "ccc", "--a-long-flag-name", "dd"}
	if !slices.Equal(got, want) {
		t.Errorf("wrapWords = %q, want %q", got, want)
	}
}

// The JSON finding contract: every field present, nulls where DESIGN says.
func TestJSONContract(t *testing.T) {
	rec := &patterns.Record{ID: "sglang/x", Title: "X", Severity: patterns.SeverityError,
		Cause: "because", Fix: patterns.Fix{Steps: []string{"do"}, Before: "--a 1", After: "--a 2"},
		Where: &patterns.Site{Repo: "sgl-project/sglang", File: "f.py", Line: 3}}
	fs := []*diagnose.Finding{
		{ID: rec.ID, Title: rec.Title, Severity: rec.Severity, Record: rec, Exception: "RuntimeError", Message: "m",
			Source: "a.log", Line: 2, EndLine: 9, Count: 2, Ranks: []string{"TP0", "TP1"},
			FirstSeen: "2026-08-28 10:00:00", LastSeen: "2026-08-28 10:00:01", RootCause: true},
		{ID: matcher.UnknownTraceback, Title: "Unrecognised traceback", Severity: patterns.SeverityError,
			Message: "boom", Source: "-", Line: 1, EndLine: 1, Count: 1},
	}
	var buf bytes.Buffer
	if err := NewPrinter(&buf, Options{Format: JSON}).Report(fs, Summary{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2", len(lines))
	}
	fields := []string{"id", "title", "severity", "exception", "message", "source", "line", "end_line",
		"count", "ranks", "first_seen", "last_seen", "root_cause", "symptom_of", "remedy", "site"}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		for _, f := range fields {
			if _, ok := m[f]; !ok {
				t.Errorf("line %d lacks %q", i+1, f)
			}
		}
	}
	var unknown map[string]any
	json.Unmarshal([]byte(lines[1]), &unknown)
	for _, f := range []string{"exception", "first_seen", "symptom_of", "site"} {
		if unknown[f] != nil {
			t.Errorf("unknown finding: %s = %v, want null", f, unknown[f])
		}
	}
	if r, ok := unknown["ranks"].([]any); !ok || len(r) != 0 {
		t.Errorf("ranks = %v, want []", unknown["ranks"])
	}
	rem := unknown["remedy"].(map[string]any)
	if steps := rem["steps"].([]any); len(steps) == 0 {
		t.Errorf("unknown finding has no remedy steps")
	}
	if !strings.Contains(lines[0], `"remedy":{"cause":"because","steps":["do"],"before":"--a 1","after":"--a 2","example":true}`) ||
		!strings.Contains(lines[0], `"site":{"repo":"sgl-project/sglang","file":"f.py","line":3}`) {
		t.Errorf("first line = %s", lines[0])
	}
}

func TestTextNoColorHasNoEscapes(t *testing.T) {
	f := &diagnose.Finding{ID: "unknown/error", Title: "T", Severity: patterns.SeverityError, Message: "m", Source: "s", Line: 1, Count: 1, RootCause: true}
	var buf bytes.Buffer
	NewPrinter(&buf, Options{Format: Text, Color: false}).Report([]*diagnose.Finding{f}, Summary{Sources: []string{"s"}, Lines: 1})
	if strings.Contains(buf.String(), "\x1b") {
		t.Errorf("escape in plain output: %q", buf.String())
	}
	buf.Reset()
	NewPrinter(&buf, Options{Format: Text, Color: true}).Report([]*diagnose.Finding{f}, Summary{Sources: []string{"s"}, Lines: 1})
	if !strings.Contains(buf.String(), "\x1b[") {
		t.Errorf("no escape in coloured output")
	}
}

// A generated record says which sglang releases print its message, and
// for one a later release dropped, which release and commit did.
func TestReleasesSentence(t *testing.T) {
	tests := []struct {
		g    patterns.Generated
		want string
	}{
		{patterns.Generated{}, ""},
		{patterns.Generated{FirstRelease: "0.4.1"}, " sglang prints it since 0.4.1."},
		{patterns.Generated{FirstRelease: "0.4.4.post2", LastRelease: "main 2026-02", RemovedIn: "main 2026-03", RemovedBy: "346a4131c [Spec] Refactor NaN/OOB checks (#19899)"},
			` sglang printed it from 0.4.4.post2 to main 2026-02; main 2026-03 no longer does (commit 346a4131c, "[Spec] Refactor NaN/OOB checks (#19899)"): this server runs an older release, and upgrading changes this check.`},
		{patterns.Generated{FirstRelease: "0.3.1", LastRelease: "0.3.4", RemovedIn: "0.3.5"},
			" sglang printed it from 0.3.1 to 0.3.4; 0.3.5 no longer does: this server runs an older release, and upgrading changes this check."},
	}
	for _, tt := range tests {
		if got := releases(&tt.g); got != tt.want {
			t.Errorf("releases(%+v)\n got %q\nwant %q", tt.g, got, tt.want)
		}
	}
}

// A fix is labelled an example unless every value in it is the user's: from
// the log's configuration or message, or the launch command check read.
func TestRemedyExampleLabel(t *testing.T) {
	rec := &patterns.Record{ID: "t/port", Title: "t", Severity: patterns.SeverityError,
		Fix: patterns.Fix{Steps: []string{"Free :{port|30000}"}, Before: "--port {port|30000}", After: "--port {port+10|30010}"}}
	literal := &patterns.Record{ID: "t/lit", Title: "t", Severity: patterns.SeverityError,
		Fix: patterns.Fix{Steps: []string{"s"}, Before: "--a 1", After: "--a 2"}}
	partly := &patterns.Record{ID: "t/partly", Title: "t", Severity: patterns.SeverityError,
		Fix: patterns.Fix{Steps: []string{"s"}, Before: "--model-path {model_path|M} --mem-fraction-static 0.9",
			After: "--model-path {model_path|M} --mem-fraction-static 0.8"}}
	switches := &patterns.Record{ID: "t/sw", Title: "t", Severity: patterns.SeverityError,
		Fix: patterns.Fix{Steps: []string{"s"}, Before: "--enable-mixed-chunk --tp-size 4", After: "--tp-size 4"}}
	addOnly := &patterns.Record{ID: "t/add", Title: "t", Severity: patterns.SeverityError,
		Fix: patterns.Fix{Steps: []string{"s"}, After: "--enable-metrics"}}
	pip := &patterns.Record{ID: "t/pip", Title: "t", Severity: patterns.SeverityError,
		Fix: patterns.Fix{Steps: []string{"s"}, Before: "pip install sglang==0.4.3", After: "pip install -U sglang"}}
	tests := []struct {
		name    string
		f       *diagnose.Finding
		after   string
		step    string
		example bool
	}{
		{"the message's port", &diagnose.Finding{Record: rec, Line: 3, Captures: map[string]string{"port": "31000"}}, "--port 31010", "Free :31000", false},
		{"no value of the user's", &diagnose.Finding{Record: rec, Line: 3}, "--port 30010", "Free :30000", true},
		{"a literal example", &diagnose.Finding{Record: literal, Line: 3}, "--a 2", "s", true},
		{"a literal value the server does not run with", &diagnose.Finding{Record: partly, Line: 3,
			Config: mapConfig{"model_path": "/m", "mem_fraction_static": 0.7}}, "--model-path /m --mem-fraction-static 0.8", "s", true},
		{"a literal value the server runs with", &diagnose.Finding{Record: partly, Line: 3,
			Config: mapConfig{"model_path": "/m", "mem_fraction_static": 0.9}}, "--model-path /m --mem-fraction-static 0.8", "s", false},
		{"a launch command's own flags", &diagnose.Finding{Record: literal, Captures: map[string]string{"before": "--a 1", "after": "--a 2"}}, "--a 2", "s", false},
		{"a literal before the server runs", &diagnose.Finding{Record: switches, Line: 3,
			Config: mapConfig{"enable_mixed_chunk": true, "tp_size": int64(4)}}, "--tp-size 4", "s", false},
		{"a literal before the server does not run", &diagnose.Finding{Record: switches, Line: 3,
			Config: mapConfig{"enable_mixed_chunk": false, "tp_size": int64(4)}}, "--tp-size 4", "s", true},
		{"a literal before of another value", &diagnose.Finding{Record: switches, Line: 3,
			Config: mapConfig{"enable_mixed_chunk": true, "tp_size": int64(8)}}, "--tp-size 4", "s", true},
		{"a literal change with nothing before it", &diagnose.Finding{Record: addOnly, Line: 3, Config: mapConfig{"tp_size": int64(8)}},
			"--enable-metrics", "s", false},
		{"a literal change, no configuration", &diagnose.Finding{Record: addOnly, Line: 3}, "--enable-metrics", "s", true},
		{"another program's command", &diagnose.Finding{Record: pip, Line: 3, Config: mapConfig{"tp_size": int64(8)}},
			"pip install -U sglang", "s", true},
		{"argparse's rejection judged again", &diagnose.Finding{ID: "sglang/unrecognized-arguments", Record: literal, Line: 7,
			Captures: map[string]string{"args": "--tp-szie 2 --enable_metrics"}}, "--tp-size 2 --enable-metrics", "s", false},
		{"an invalid choice judged again", &diagnose.Finding{ID: "sglang/invalid-choice", Record: literal, Line: 7,
			Captures: map[string]string{"flag": "--kv-cache-dtype", "value": "'fp8-e4m3'"}}, "--kv-cache-dtype fp8_e4m3", "s", false},
	}
	for _, tt := range tests {
		r := For(tt.f)
		if r.After != tt.after || r.Steps[0] != tt.step || r.Example != tt.example {
			t.Errorf("%s: after %q step %q example %v; want %q %q %v", tt.name, r.After, r.Steps[0], r.Example, tt.after, tt.step, tt.example)
		}
	}
}

// An unknown traceback's remedy says where it was raised: sglang's own code,
// with a link to it, or a library beside it.
func TestRaisedIn(t *testing.T) {
	tests := []struct{ frame, where, code string }{
		{`File "/usr/local/lib/python3.10/dist-packages/sglang/srt/mem_cache/radix_cache.py", line 412, in evict`,
			"in sglang's evict (sglang/srt/mem_cache/radix_cache.py:412)",
			"https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/mem_cache/radix_cache.py#L412"},
		{`File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2631, in run_scheduler_process`,
			"in sglang's run_scheduler_process (sglang/srt/managers/scheduler.py:2631)",
			"https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/managers/scheduler.py#L2631"},
		{`File "/opt/venv/lib/python3.12/site-packages/transformers/tokenization_utils_base.py", line 1785, in get_chat_template`,
			"inside the transformers package (in get_chat_template), not in sglang's own code: its version, and whether it is the one your sglang release pins, is the first thing to check", ""},
		{`File "/home/me/sglang/tools/bench.py", line 3, in main`, "in main (/home/me/sglang/tools/bench.py:3)", ""},
		{"", "", ""},
		{"scheduler = Scheduler(...)", "", ""},
	}
	for _, tt := range tests {
		if where, code := raisedIn(tt.frame); where != tt.where || code != tt.code {
			t.Errorf("raisedIn(%q) = %q, %q; want %q, %q", tt.frame, where, code, tt.where, tt.code)
		}
	}
}

func TestClipWords(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"cut at a space, not in a word", 20, "cut at a space, not…"},
		{"averyveryverylongwordwithoutspaces", 10, "averyveryv…"},
		{"héllo wörld ünïcode", 9, "héllo…"},
		{"ééééééé", 5, "éé…"},
	}
	for _, tt := range tests {
		if got := clipWords(tt.in, tt.n); got != tt.want {
			t.Errorf("clipWords(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// A cause names the message's own figures where it has placeholders, its
// defaults where the message gave none, and braces that are no placeholder
// as they are.
func TestCauseRendersCaptures(t *testing.T) {
	rec := &patterns.Record{ID: "t/shape", Title: "t", Severity: patterns.SeverityError,
		Cause: `K = {k|K} in groups of {group_size|G}; a body {"object": "error"} stays.`, Fix: patterns.Fix{Steps: []string{"s"}}}
	tests := []struct {
		name string
		caps map[string]string
		want string
	}{
		{"captured", map[string]string{"k": "2880", "group_size": "64"}, `K = 2880 in groups of 64; a body {"object": "error"} stays.`},
		{"not captured", nil, `K = K in groups of G; a body {"object": "error"} stays.`},
	}
	for _, tt := range tests {
		if got := For(&diagnose.Finding{Record: rec, Line: 1, Captures: tt.caps}).Cause; got != tt.want {
			t.Errorf("%s: cause %q; want %q", tt.name, got, tt.want)
		}
	}
}

// A fix rendered in a server's own values is judged by the check rules on
// that server's settings: a change that alone would make sglang stop at
// launch says so.
func TestRemedySaysWhatTheChangeAloneBreaks(t *testing.T) {
	rec := &patterns.Record{ID: "t/tp", Title: "t", Severity: patterns.SeverityError,
		Fix: patterns.Fix{Steps: []string{"s"}, Before: "--tp-size {tp_size|8}", After: "--tp-size {tp_size/2|4}"}}
	tests := []struct {
		name string
		cfg  mapConfig
		note string
	}{
		{"plain TP", mapConfig{"tp_size": int64(8), "dp_size": int64(1)}, ""},
		{"DP attention over 8", mapConfig{"tp_size": int64(8), "dp_size": int64(8), "enable_dp_attention": true},
			"This change alone is not enough: tp-size 4 is not divisible by dp-size 8"},
		{"DP attention over 4", mapConfig{"tp_size": int64(8), "dp_size": int64(4), "enable_dp_attention": true}, ""},
	}
	for _, tt := range tests {
		r := For(&diagnose.Finding{Record: rec, Line: 3, Config: tt.cfg})
		notes := strings.Join(r.Worked, " ")
		if r.After != "--tp-size 4" || r.Example || tt.note == "" && notes != "" || tt.note != "" && !strings.Contains(notes, tt.note) {
			t.Errorf("%s: after %q example %v notes %q; want a note %q", tt.name, r.After, r.Example, notes, tt.note)
		}
	}
}

// A server's flags that are not sglang's defaults, as an issue report
// shows them: switches bare, values quoted when they need it, sglang's own
// choices (a seed, a port) and the model path repeated left out.
func TestNonDefaultFlags(t *testing.T) {
	sa := pyrepr.ParseServerArgs(`ServerArgs(model_path='/m/Qwen3 32B', tokenizer_path='/m/Qwen3 32B', tp_size=4, dp_size=1, ` +
		`mem_fraction_static=0.88, enable_dp_attention=False, disable_radix_cache=True, random_seed=77, nccl_port=31999, ` +
		`chunked_prefill_size=None, kv_cache_dtype='auto', attention_backend='fa3', cuda_graph_config=CudaGraphConfig(max_bs=8))`)
	got := strings.Join(nonDefaultFlags(sa), " ")
	want := "--model-path '/m/Qwen3 32B' --tp-size 4 --mem-fraction-static 0.88 --disable-radix-cache --attention-backend fa3"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if nonDefaultFlags(nil) != nil {
		t.Error("flags of no configuration")
	}
}

func TestMdSpan(t *testing.T) {
	tests := map[string]string{
		"plain":          "`plain`",
		"a `b` c":        "``a `b` c``",
		"x ``y`` z":      "```x ``y`` z```",
		"`starts":        "`` `starts ``",
		"ends with `":    "`` ends with ` ``",
		"no backtick at": "`no backtick at`",
	}
	for in, want := range tests {
		if got := mdSpan(in); got != want {
			t.Errorf("mdSpan(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFlagStep(t *testing.T) {
	tests := []struct {
		fl   patterns.Flag
		want string
	}{
		{patterns.Flag{Names: []string{"--max-total-tokens"}, Help: "The maximum number of tokens in the memory pool."}, "`--max-total-tokens`: The maximum number of tokens in the memory pool."},
		{patterns.Flag{Names: []string{"--dtype"}, Help: "Data type.", Default: "auto", Choices: []string{"auto", "half"}}, "`--dtype`: Data type; default auto; one of auto, half."},
		{patterns.Flag{Names: []string{"--max-total-tokens"}, Default: "null"}, ""},
		{patterns.Flag{Names: []string{"--page-size"}, Default: "1"}, "`--page-size`: default 1."},
	}
	for _, tt := range tests {
		if got := flagStep(&tt.fl); got != tt.want {
			t.Errorf("flagStep(%s) = %q, want %q", tt.fl.Names[0], got, tt.want)
		}
	}
}

// The summary of a family of folded errors says how many distinct
// messages it holds, an estimate marked as such, in every format.
func TestFoldedFamilyIsSaid(t *testing.T) {
	cases := []struct {
		folded int
		format Format
		want   []string
	}{
		{12, Text, []string{"12 distinct messages folded", "; 12 distinct unrecognised errors folded by family"}},
		{98216, Text, []string{"about 98216 distinct messages folded", "; about 98216 distinct unrecognised errors folded by family"}},
		{98216, JSON, []string{`"folded":98216`}},
		{98216, Markdown, []string{"about 98216 distinct messages folded"}},
		{0, JSON, nil},
	}
	for _, c := range cases {
		f := &diagnose.Finding{ID: "unknown/error", Title: "Unrecognised errors, folded", Severity: patterns.SeverityError,
			Message: "failed to open shard", Source: "s", Line: 3, EndLine: 3, Count: c.folded + 5, Folded: c.folded, RootCause: true}
		var buf bytes.Buffer
		if err := NewPrinter(&buf, Options{Format: c.format}).Report([]*diagnose.Finding{f}, Summary{Sources: []string{"s"}, Lines: 9, Folded: c.folded}); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("folded %d, format %d: no %q in\n%s", c.folded, c.format, w, buf.String())
			}
		}
		if c.folded == 0 && strings.Contains(buf.String(), `"folded"`) {
			t.Errorf("a finding that folds nothing says it does:\n%s", buf.String())
		}
	}
}

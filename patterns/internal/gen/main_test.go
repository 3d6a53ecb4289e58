package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gen builds the table from the history's messages: the newest release's
// first, so that a message both an older and the newest release print is
// the newest's, and one only older releases print carries the release
// that dropped it and its last release's commit.
func TestRunFromHistory(t *testing.T) {
	dir := t.TempDir()
	hist := "#release\t0.4.6\taaaaaaaaaaaa\t2025-01-01\n#release\t0.5.0\tbbbbbbbbbbbb\t2025-06-01\n" +
		"# kind\tclass\tregex\ttemplate\tfirst\tlast\tremoved_in\tremoved_by\tfile\tline\tfunction\tguard\tsites\n" +
		"raise\tValueError\ttp_size .*? must divide the heads\ttp_size {n} must divide the heads\t0.4.6\t0.4.6\t0.5.0\tRefactor checks\tpython/sglang/srt/old.py\t10\tcheck\t\t1\n" +
		"raise\tValueError\ttp_size .*? must divide the heads\ttp_size {n}  must divide the heads\t0.5.0\t\t\t\tpython/sglang/srt/new.py\t20\tServerArgs.check\t\t2\n" +
		"logger.warning\t\tThe old scheduler is deprecated now\tThe old scheduler is deprecated now\t0.4.6\t0.4.6\t0.5.0\tDrop it\tpython/sglang/srt/s.py\t5\tf\t\t1\n"
	args := `{"flag": ["--tp-size", "--tp"], "action": "store", "nargs": null, "dest": "tp_size", "type": "int", "default": 1, "choices": null, "help": "TP.", "deprecated": false, "defined_at": "python/sglang/srt/server_args.py:1"}` + "\n"
	for name, data := range map[string]string{"history.tsv": hist, "args.jsonl": args} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	if err := run(filepath.Join(dir, "args.jsonl"), filepath.Join(dir, "history.tsv"), out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "sites.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Split(line, "\t"); line[0] != '#' {
			rows = append(rows, strings.Join([]string{f[0], f[1], f[6] + ":" + f[7], "sites=" + f[10], "flags=" + f[11], f[13], f[18], f[19], f[20], f[21]}, " "))
		}
	}
	want := []string{
		"sglang-src/srt.new/tp-size-must-divide-the-heads error python/sglang/srt/new.py:20 sites=3 flags=--tp-size bbbbbbbbbbbb 0.5.0   ",
		"sglang-src/srt.s/the-old-scheduler-is-deprecated-now info python/sglang/srt/s.py:5 sites=1 flags= aaaaaaaaaaaa 0.4.6 0.4.6 0.5.0 Drop it",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil || !strings.Contains(string(readme), "- records: 2, of which 1 are of messages only older releases print (logger.warning 1, raise 1)") {
		t.Errorf("README: %v\n%s", err, readme)
	}
}

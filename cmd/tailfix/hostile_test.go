package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log of hostile text under a hostile file name: no control byte of the
// input reaches the terminal's streams as it is, in text or Markdown, and
// the diagnostics on stderr name the file escaped.
func TestHostileInputNeverReachesTheTerminal(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "srv\x1b]0;TITLE\x07.log")
	log := "[2026-11-29 10:15:02] server_args=ServerArgs(model_path='/m/\\x1b]0;OWNED\\x07', tp_size=2, port=30000)\n" +
		"Traceback (most recent call last):\n" +
		"  File \"/x/sglang/srt/managers/scheduler.py\", line 1, in f\n" +
		"ValueError: bad value \x07\x08\x0e\x0f\x7f\xc2\x9b31m \xe2\x80\xae done\n" +
		"[2026-11-29 10:15:03] ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 30000): address already in use\n"
	if err := os.WriteFile(name, []byte(log), 0o644); err != nil {
		t.Skip("this file system does not take such a name:", err)
	}
	for _, format := range []string{"text", "markdown", "brief"} {
		var stdout, stderr bytes.Buffer
		run([]string{"scan", "--color", "never", "--format", format, name, filepath.Join(dir, "missing\x1b[2J.log")},
			strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
		out := stdout.String() + stderr.String()
		for _, bad := range []string{"\x1b", "\x07", "\x08", "\x0e", "\x0f", "\x7f", "\u009b", "\u202e"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: output holds %q:\n%s", format, bad, out)
			}
		}
		if !strings.Contains(out, `\x1b]0;TITLE\x07`) {
			t.Errorf("%s: the file name is not shown escaped:\n%s", format, out)
		}
	}
}

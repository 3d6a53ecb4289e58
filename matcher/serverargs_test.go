package matcher

import (
	"testing"

	"github.com/tailfix/tailfix/pyrepr"
)

var _ Config = (*pyrepr.ServerArgs)(nil)

// The config line is found in the normalized view of a line: colour
// escapes around sglang's header do not hide it.
func TestFindServerArgsNormalized(t *testing.T) {
	const repr = "ServerArgs(tp_size=2, model_path='Qwen/Qwen3-8B')"
	line := Normalize(nil, []byte("\x1b[32m[2026-11-29 10:15:02]\x1b[0m server_args="+repr+"\x1b[0m"))
	got, ok := pyrepr.FindServerArgs(line)
	if !ok || got != repr {
		t.Fatalf("FindServerArgs = %q, %v, want %q", got, ok, repr)
	}
	if n, _ := pyrepr.ParseServerArgs(got).Int("tp_size"); n != 2 {
		t.Errorf("tp_size = %d, want 2", n)
	}
}

package matcher

import (
	"strings"
	"testing"
)

func TestNativeSource(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"E0423 16:34:48.911491 217200 client.cpp:347] Transfer failed for task1", true},
		{"W1129 10:01:06.229113 31411 rdma_context.cpp:481] User-specified GID index 3", true},
		{"[E1129 10:15:02.123456789 ProcessGroupNCCL.cpp:630] [Rank 6] Watchdog caught", true},
		{"E1129 10:15:02.1 1 kernel.cu:12] an error", true},
		{"I1129 10:15:02.1 1 tracing.h:40] a line", true},
		{"W1129 10:29:40.552000 3391 torch/distributed/run.py:774] a warning", false},
		{"[2026-04-23 16:34:48 TP0] Transfer failed", false},
		{"ERROR 12-05 20:24:46 engine.py:366] boom", false},
	}
	for _, tt := range tests {
		if got := ParseLine([]byte(tt.line)).native; got != tt.want {
			t.Errorf("%q: native = %v, want %v", tt.line, got, tt.want)
		}
	}
}

// A line of native code is never explained by a record generated from
// sglang's Python source, however its words agree: the same words logged
// by Python are.
func TestNativeLinesLeaveOutPythonRecords(t *testing.T) {
	m := builtinMatcher(t)
	ids := func(log string) string {
		var got []string
		if err := m.NewEngine("x", func(o Occurrence) { got = append(got, o.ID) }).Scan(strings.NewReader(log)); err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	py := ids("[2026-04-23 16:34:48 TP0] Transfer failed\n")
	if !strings.HasPrefix(py, "sglang-src/") {
		t.Fatalf("the Python line is %q, not sglang's generated record", py)
	}
	if native := ids("E0423 16:34:48.911491 217200 client.cpp:347] Transfer failed\n"); strings.HasPrefix(native, "sglang-src/") || native == "" {
		t.Errorf("the native line is %q, want an error no Python record explains", native)
	}
}

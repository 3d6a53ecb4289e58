package main

import (
	"slices"
	"strings"
	"testing"
)

func TestSimilarIDs(t *testing.T) {
	ids := []string{
		"net/address-in-use",
		"net/cannot-assign-address",
		"sglang/npu-hccl-port-in-use",
		"sglang/port-args-in-use",
		"sglang/port-wait-timeout",
		"sglang/pd-minimax-sparse-pp",
		"sglang/pd-minimax-sparse-hetero-tp",
		"sglang/minicpm-sparse-pd",
		"torch/cuda-oom",
		"torch/npu-oom",
		"llamacpp/cuda-oom",
		"torch/nccl-watchdog-timeout",
	}
	tests := []struct {
		name, id string
		want     []string
	}{
		{"typo in the name", "sglang/pd-minimax-sparse-p",
			[]string{"sglang/pd-minimax-sparse-pp", "sglang/pd-minimax-sparse-hetero-tp"}},
		{"typo in the family", "torhc/cuda-oom", []string{"torch/cuda-oom", "llamacpp/cuda-oom"}},
		{"missing letter", "net/adress-in-use", []string{"net/address-in-use"}},
		// The last segment finds the same words under another family,
		// and words outweigh shared letters (port-wait-timeout).
		{"other family", "sglang/port-in-use",
			[]string{"sglang/port-args-in-use", "sglang/npu-hccl-port-in-use", "net/address-in-use"}},
		{"no family", "pd-minimax-sparse-pp",
			[]string{"sglang/pd-minimax-sparse-pp", "sglang/pd-minimax-sparse-hetero-tp"}},
		{"same last segment, the nearer family first", "sglang/cuda-oom", []string{"torch/cuda-oom", "llamacpp/cuda-oom"}},
		{"a shorter name", "torch/oom", []string{"torch/npu-oom", "torch/cuda-oom"}},
		{"nothing near", "foo/bar", nil},
		{"nothing near, long", "sglang/widget-frobnication-failed", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := similarIDs(ids, tt.id); !slices.Equal(got, tt.want) {
				t.Errorf("similarIDs(%q) = %q, want %q", tt.id, got, tt.want)
			}
		})
	}
}

func TestSimilarIDsLimit(t *testing.T) {
	ids := []string{"a/oom-1", "a/oom-2", "a/oom-3", "a/oom-4", "a/oom-5"}
	if got := similarIDs(ids, "a/oom-0"); len(got) != maxSuggestions {
		t.Errorf("similarIDs named %d ids, want at most %d: %q", len(got), maxSuggestions, got)
	}
}

func TestIDLike(t *testing.T) {
	for text, want := range map[string]bool{
		"sglang/port-in-use":               true,
		"port-in-use":                      true,
		"sglang-src/srt.utils/cuda-error":  true,
		"Killed":                           false,
		"KeyError: 'x'":                    false,
		"RuntimeError: CUDA out of memory": false,
		"/usr/lib/x.so":                    false,
		"a/":                               false,
	} {
		if got := idLike.MatchString(text); got != want {
			t.Errorf("idLike(%q) = %v, want %v", text, got, want)
		}
	}
}

// An unknown id is a usage error: exit status 2, the ids near it on
// stderr, nothing on stdout.
func TestExplainUnknownIDStatus(t *testing.T) {
	var stdout, stderr strings.Builder
	code := run([]string{"explain", "sglang/port-in-use"}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	if code != exitUsageErr {
		t.Errorf("exit status %d, want %d", code, exitUsageErr)
	}
	if want := `tailfix: error: no record named "sglang/port-in-use"; did you mean: `; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr = %q, want it to start with %q", stderr.String(), want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

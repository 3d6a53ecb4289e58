package matcher

import (
	"regexp"
	"testing"
)

// bareExcSpec is what bareExc says, as a regex.
var bareExcSpec = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z0-9_]*(?:Error|Exception): \S`)

func TestBareExc(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"KeyError: 'x'", true},
		{"torch.OutOfMemoryError: CUDA out of memory.", true},
		{"torch._C._distributed_c10d.DistBackendError: NCCL error", true},
		{"Error: boom", true}, // the regex's own answer; bareException refuses it apart
		{"RuntimeError:  x", false},
		{"RuntimeError: ", false},
		{"RuntimeError:\tx", false},
		{"RuntimeError x", false},
		{"Runtime Error: x", false},
		{"1torch.Error: x", false},
		{"torch.1Error: x", true},
		{"a..Error: x", false},
		{".Error: x", false},
		{"ValueErrors: x", false},
		{"MyException: x", true},
		{"[rank0]: RuntimeError: x", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := bareExc([]byte(tt.line)); got != tt.want {
			t.Errorf("bareExc(%q) = %v, want %v", tt.line, got, tt.want)
		}
		if spec := bareExcSpec.MatchString(tt.line); spec != tt.want {
			t.Errorf("the regex on %q says %v, the table %v", tt.line, spec, tt.want)
		}
	}
}

func FuzzBareExc(f *testing.F) {
	for _, s := range []string{"KeyError: 'x'", "torch.cuda.OutOfMemoryError: CUDA", "a..Error: x", "_x.Error: \x00", "1a.Exception: y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := bareExc([]byte(s)), bareExcSpec.MatchString(s); got != want {
			t.Errorf("bareExc(%q) = %v, the regex %v", s, got, want)
		}
	})
}

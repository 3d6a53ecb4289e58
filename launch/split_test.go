package launch

import (
	"errors"
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"plain", "python -m sglang.launch_server --tp 2", []string{"python", "-m", "sglang.launch_server", "--tp", "2"}},
		{"runs of blanks", "  a \t b  ", []string{"a", "b"}},
		{"empty", "", nil},
		{"single quotes keep everything", `--json-model-override-args '{"a": "b c"}' 'it''s'`, []string{"--json-model-override-args", `{"a": "b c"}`, "its"}},
		{"double quotes with escapes", `"a \"b\" \\ \$HOME \x"`, []string{`a "b" \ $HOME \x`}},
		{"quotes inside a word", `--served-model-name=my" "model`, []string{"--served-model-name=my model"}},
		{"empty quoted word", `--api-key ''`, []string{"--api-key", ""}},
		{"backslash outside quotes", `a\ b \$x`, []string{"a b", "$x"}},
		{"line continuation", "python -m sglang.launch_server \\\n  --tp 2 \\\n  --pp 2", []string{"python", "-m", "sglang.launch_server", "--tp", "2", "--pp", "2"}},
		{"continuation in double quotes", "\"a\\\nb\"", []string{"ab"}},
		{"comment", "a b # c d", []string{"a", "b"}},
		{"hash inside a word", "a#b", []string{"a#b"}},
		{"leading comment and blank lines", "# launch it\n\n  python x.py --a 1", []string{"python", "x.py", "--a", "1"}},
		{"stops at a newline", "a b\nc d", []string{"a", "b"}},
		{"stops at a pipe", "sglang serve --tp 2 2>&1 | tee log", []string{"sglang", "serve", "--tp", "2"}},
		{"stops at semicolon", "a; b", []string{"a"}},
		{"stops at &&", "a && b", []string{"a"}},
		{"stops at &", "a --b 1 &", []string{"a", "--b", "1"}},
		{"drops redirections", "a > out.log b 2> err.log c < in >>x d", []string{"a", "b", "c", "d"}},
		{"drops &> redirection", "a &> log b", []string{"a", "b"}},
		{"quoted operators are words", `a '|' ";" \&`, []string{"a", "|", ";", "&"}},
		{"env assignment is a word", "CUDA_VISIBLE_DEVICES=0,1 python", []string{"CUDA_VISIBLE_DEVICES=0,1", "python"}},
		{"trailing backslash", `a\`, []string{`a\`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Split(tt.in)
			if err != nil {
				t.Fatalf("Split(%q): %v", tt.in, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSplitUnterminated(t *testing.T) {
	for _, in := range []string{`a 'b`, `a "b`, `a "b\"`, `'`} {
		if _, err := Split(in); !errors.Is(err, ErrQuote) {
			t.Errorf("Split(%q) error = %v, want ErrQuote", in, err)
		}
	}
}

func TestQuoteRoundTrip(t *testing.T) {
	for _, s := range []string{"plain", "", "two words", `{"a": 1}`, "it's", `back\slash`, "$HOME"} {
		got, err := Split(Quote(s))
		if err != nil || len(got) != 1 || got[0] != s {
			t.Errorf("Split(Quote(%q)) = %q, %v", s, got, err)
		}
	}
}

package launch

import (
	"errors"
	"testing"
)

func TestParseText(t *testing.T) {
	tests := []struct {
		name, text string
		nilCmd     bool
		model, err string
		sentinel   error
	}{
		{name: "a command", text: "python -m sglang.launch_server --model-path 'A B'", model: "A B"},
		{name: "a script line with a comment before it", text: "# prefill\nsglang serve --model-path m \\\n  --tp 2", model: "m"},
		{name: "blank", text: "  \n", nilCmd: true},
		{name: "comments only", text: "# nothing yet", nilCmd: true},
		{name: "unclosed quote", text: "sglang serve --model-path 'x", err: "cannot split the prefill command: unterminated quote: ' opened at byte 27", sentinel: ErrQuote},
		{name: "not sglang", text: "vllm serve m", err: `prefill command: not an sglang launch command: "vllm" is not python -m sglang.launch_server, sglang serve or launch_server.py`, sentinel: ErrNotLaunch},
	}
	table := flagTable(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseText(tt.text, "prefill command", table)
			switch {
			case tt.err != "":
				if err == nil || err.Error() != tt.err || !errors.Is(err, tt.sentinel) {
					t.Errorf("error = %v, want %s (is %v)", err, tt.err, tt.sentinel)
				}
			case err != nil:
				t.Errorf("error = %v", err)
			case tt.nilCmd != (c == nil):
				t.Errorf("command = %v", c)
			case c != nil && (c.Str("model_path") != tt.model || c.Source != "prefill command"):
				t.Errorf("model %q, source %q", c.Str("model_path"), c.Source)
			}
		})
	}
}

func TestParseWords(t *testing.T) {
	tests := []struct {
		name     string
		words    []string
		model    string
		sentinel error
	}{
		{name: "words", words: []string{"sglang", "serve", "--model-path", "A B"}, model: "A B"},
		{name: "one quoted word is split", words: []string{"sglang serve --model-path 'A B'"}, model: "A B"},
		{name: "one word without blanks is a word", words: []string{"sglang"}, sentinel: ErrNotLaunch},
		{name: "one word of blanks is no command", words: []string{"  "}, sentinel: ErrNotLaunch},
		{name: "no words", words: nil, sentinel: ErrNotLaunch},
		{name: "one word with an unclosed quote", words: []string{`sglang serve --model-path "x`}, sentinel: ErrQuote},
	}
	table := flagTable(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseWords(tt.words, "command line", table)
			switch {
			case tt.sentinel != nil:
				if !errors.Is(err, tt.sentinel) {
					t.Errorf("error = %v, want %v", err, tt.sentinel)
				}
			case err != nil:
				t.Errorf("error = %v", err)
			case c.Str("model_path") != tt.model:
				t.Errorf("model %q, want %q", c.Str("model_path"), tt.model)
			}
		})
	}
}

func TestParseWrapped(t *testing.T) {
	tests := []struct {
		name  string
		words []string
		model string // "" when the words are no launch command
	}{
		{"a launch command", []string{"python3", "-m", "sglang.launch_server", "--model-path", "m"}, "m"},
		{"a wrapper passing flags on", []string{"./serve.sh", "--model-path", "m", "--tp", "2"}, "m"},
		{"a wrapper without flags", []string{"./serve.sh", "m"}, ""},
		{"another program", []string{"sleep", "1"}, ""},
		{"nothing", nil, ""},
	}
	table := flagTable(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseWrapped(tt.words, "command line", table)
			switch {
			case tt.model == "" && (err == nil || !errors.Is(err, ErrNotLaunch)):
				t.Errorf("ParseWrapped = %v, %v; want ErrNotLaunch", c, err)
			case tt.model != "" && err != nil:
				t.Errorf("error = %v", err)
			case tt.model != "" && c.Str("model_path") != tt.model:
				t.Errorf("model %q, want %q", c.Str("model_path"), tt.model)
			}
		})
	}
}

func TestHubCache(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		home string
		want string
	}{
		{"HF_HUB_CACHE first", map[string]string{"HF_HUB_CACHE": "/c", "HF_HOME": "/h"}, "/home/u", "/c"},
		{"then HF_HOME/hub", map[string]string{"HF_HOME": "/h"}, "/home/u", "/h/hub"},
		{"then the home directory", nil, "/home/u", "/home/u/.cache/huggingface/hub"},
		{"empty values are unset", map[string]string{"HF_HUB_CACHE": "", "HF_HOME": ""}, "/home/u", "/home/u/.cache/huggingface/hub"},
		{"none", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HubCache(func(k string) string { return tt.env[k] }, tt.home); got != tt.want {
				t.Errorf("HubCache = %q, want %q", got, tt.want)
			}
		})
	}
}

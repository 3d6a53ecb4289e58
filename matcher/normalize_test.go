package matcher

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello world", "hello world"},
		{"crlf", "line\r", "line"},
		{"progress bar redrawn", "Loading:  10%\rLoading:  50%\rLoading: 100%", "Loading: 100%"},
		{"bar then trailing cr", "a\rb\r", "b"},
		{"a collector's prefix before the bar", "0: Loading:  10%\rLoading: 100%", "0: Loading: 100%"},
		{"a prefix, then a line glued to the bar", "host python[7]: Capturing:   0%| 0/4\rCapturing: 100%| 4/4[2026-01-01 00:00:00 TP1] x", "host python[7]: Capturing: 100%| 4/4[2026-01-01 00:00:00 TP1] x"},
		{"a redraw of other text", "0: Loading:  10%\rdone", "done"},
		{"a prefix, then the bar right after a CR", "0: \rLoading: 100%", "0: Loading: 100%"},
		{"a bar's first state ending in a space", "Loading:  10% \rLoading: 100%", "Loading: 100%"},
		{"sgr colour", "\x1b[31mRuntimeError\x1b[0m: boom", "RuntimeError: boom"},
		{"escape inside a word", "Runtime\x1b[1mError: boom", "RuntimeError: boom"},
		{"osc title", "\x1b]0;title\x07text", "text"},
		{"osc with st", "\x1b]8;;http://x\x1b\\link", "link"},
		{"charset", "\x1b(Btext", "text"},
		{"dangling escape", "text\x1b", "text"},
		{"dangling csi", "text\x1b[31", "text"},
		{"rsyslog's escaped colour", "#033[1;36m(SGLangEngine pid=140301)#033[0;0m ValueError: boom", "(SGLangEngine pid=140301) ValueError: boom"},
		{"cat -v's caret notation", "^[[32mINFO^[[0m: started", "INFO: started"},
		{"a colour spelt as a string escape", `\x1b[31mRuntimeError\x1b[0m: boom`, "RuntimeError: boom"},
		{"octal and unicode spellings", `\033[1mA\u001b[0m B\u001B[K`, "A B"},
		{"an erase to end of line", "#033[Kdone", "done"},
		{"text that only looks like one", "#033[1;36 is a colour, ^[[x not, issue #033[", "#033[1;36 is a colour, ^[[x not, issue #033["},
		{"a hash and a bracket in a batch line", "Prefill batch. #new-seq: 1, [x]", "Prefill batch. #new-seq: 1, [x]"},
		{"invalid utf8 kept", "bad \xff\xfe bytes", "bad \xff\xfe bytes"},
		{"nul kept", "a\x00b", "a\x00b"},
		{"typographic quotes", "ImportError: cannot import name ‘x’ from “y”", "ImportError: cannot import name 'x' from \"y\""},
		{"a dash and an ellipsis stay", "a – b … c ‘", "a – b … c '"},
		{"a quote cut at the end", "x \xe2\x80", "x \xe2\x80"},
		{"a line set in bold", "**TypeError: f() got an unexpected keyword argument 'idx'**", "TypeError: f() got an unexpected keyword argument 'idx'"},
		{"bold inside a line stays", "**Note**: see **this**", "**Note**: see **this**"},
		{"a rule of stars stays", "*****", "*****"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Normalize(nil, []byte(tt.in))); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSplitHeader(t *testing.T) {
	tests := []struct {
		in                   string
		time, ranks, message string
	}{
		{"[2026-08-28 10:15:20 TP3] Load weight begin.", "2026-08-28 10:15:20", "TP3", "Load weight begin."},
		{"[2026-08-28 10:15:20 DP1 TP1 EP1] msg", "2026-08-28 10:15:20", "DP1 TP1 EP1", "msg"},
		{"[2026-08-28 10:15:20 PP1 TP0] msg", "2026-08-28 10:15:20", "PP1 TP0", "msg"},
		{"[2026-08-28 10:15:20 ATTN_CP1 MOE_DP1 TP12] msg", "2026-08-28 10:15:20", "ATTN_CP1 MOE_DP1 TP12", "msg"},
		{"[2026-08-28 10:15:20 TP0 PP1] any order", "2026-08-28 10:15:20", "TP0 PP1", "any order"},
		{"[2026-08-28 10:15:20.123 TP0] ms", "2026-08-28 10:15:20.123", "TP0", "ms"},
		{"[2026-08-28 10:15:20] main process", "2026-08-28 10:15:20", "", "main process"},
		{"[2026-08-28 10:15:20] INFO:     Uvicorn running", "2026-08-28 10:15:20", "", "INFO:     Uvicorn running"},
		{"[2026-08-28 10:15:20]", "2026-08-28 10:15:20", "", ""},
		// sglang's diffusion server: month and day.
		{"[12-11 17:52:54] Exit code: -9", "12-11 17:52:54", "", "Exit code: -9"},
		// Not sglang headers: kept whole.
		{"[rank3]:[E227 16:30:43.526306740 ProcessGroupNCCL.cpp:630] x", "", "", "[rank3]:[E227 16:30:43.526306740 ProcessGroupNCCL.cpp:630] x"},
		{"[2026-08-28 10:15:20 GPU0] msg", "", "", "[2026-08-28 10:15:20 GPU0] msg"},
		{"[2026-08-28 10:15:20 TP] msg", "", "", "[2026-08-28 10:15:20 TP] msg"},
		{"[2026-08-28 10:15:20 TP0 msg", "", "", "[2026-08-28 10:15:20 TP0 msg"},
		{"Traceback (most recent call last):", "", "", "Traceback (most recent call last):"},
		{"[", "", "", "["},
		{"[12-1 17:52:54] x", "", "", "[12-1 17:52:54] x"},
		{"[12-11 17:52] x", "", "", "[12-11 17:52] x"},
	}
	for _, tt := range tests {
		h, msg := SplitHeader([]byte(tt.in))
		if string(h.Time) != tt.time || string(h.Ranks) != tt.ranks || string(msg) != tt.message {
			t.Errorf("SplitHeader(%q) = (%q, %q, %q), want (%q, %q, %q)",
				tt.in, h.Time, h.Ranks, msg, tt.time, tt.ranks, tt.message)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"[2026-08-28 10:15:20 TP3] \x1b[31mRuntimeError\x1b[0m: boom\r",
		"Capturing batches (bs=8 avail_mem=10.05 GB):  50%|█████     | 4/8\rCapturing batches (bs=4 avail_mem=10.01 GB): 100%|██████████| 8/8",
		"\x1b]0;t\x07\x1b[", "\xff\x00\r\r", "[2026-08-28 10:15:20.123 DP1 TP1 EP1] x",
	} {
		f.Add([]byte(s))
	}
	for _, log := range realShapedSeeds(f) {
		for line := range bytes.Lines(log) {
			f.Add(bytes.TrimSuffix(line, []byte{'\n'}))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := Normalize(nil, raw)
		if len(got) > len(raw) {
			t.Fatalf("normalized view longer than the line: %q -> %q", raw, got)
		}
		for _, c := range got {
			if c == '\r' {
				t.Fatalf("CR left in %q -> %q", raw, got)
			}
		}
		if again := Normalize(nil, got); string(again) != string(got) && !containsEsc(raw) {
			t.Fatalf("not idempotent: %q -> %q -> %q", raw, got, again)
		}
		h, msg := SplitHeader(got)
		if len(h.Time) > 0 && len(msg) > len(got) {
			t.Fatalf("message longer than line")
		}
	})
}

func containsEsc(b []byte) bool {
	for _, c := range b {
		if c == 0x1b {
			return true
		}
	}
	return false
}

// textEscapeIndex finds the first escape spelt out in text, as a search
// of every position for every spelling does.
func TestTextEscapeIndex(t *testing.T) {
	naive := func(b []byte) int {
		for i := range b {
			for _, e := range textEscapes {
				if bytes.HasPrefix(b[i:], []byte(e)) {
					return i
				}
			}
		}
		return -1
	}
	cases := []string{
		"", "[2026-03-04 09:11:08 TP1] plain", "#033[1;36mINFO#033[0m", `x ^[[0m y \x1b[31m`,
		`\u001b[0m first`, `33[ 1b[ 1B[ ^[ [[ no spelling`, `\x1B[\u001B[`, "[[[^[[",
	}
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = `#0x13bBu[\^ `
	for range 20000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		if got, want := textEscapeIndex([]byte(c)), naive([]byte(c)); got != want {
			t.Fatalf("textEscapeIndex(%q) = %d, want %d", c, got, want)
		}
	}
}

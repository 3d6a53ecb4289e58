package diagnose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
	"time"
)

// A shape is how a collector, a logger or a paste rewrites a log: the same
// lines with a prefix of its own, escaped, quoted, spaced or reversed.
type shape struct {
	name string
	// line rewrites the i-th line of the log (0-based, without its '\n');
	// the result holds its own line ends.
	line func(i int, s string) string
	// reverse writes the rewritten lines newest first, as cloud consoles
	// export them.
	reverse bool
}

// stamp is the time of the i-th line, one millisecond apart.
func stamp(i int) time.Time {
	return time.Date(2026, 3, 20, 11, 42, 9, 0, time.UTC).Add(time.Duration(i) * time.Millisecond)
}

var shapes = []shape{
	{name: "journald", line: func(i int, s string) string {
		return stamp(i).Format("Jan 02 15:04:05") + " gpu-node-3 python3[41231]: " + s + "\n"
	}},
	{name: "kubectl-prefix", line: func(_ int, s string) string {
		return "[pod/sglang-0/server] " + s + "\n"
	}},
	{name: "kubectl-timestamps", line: func(i int, s string) string {
		return stamp(i).Format(time.RFC3339Nano) + " " + s + "\n"
	}},
	{name: "stern", line: func(_ int, s string) string {
		return "sglang-decode-7d9f server " + s + "\n"
	}},
	{name: "compose", line: func(_ int, s string) string {
		return "sglang-1  | " + s + "\n"
	}},
	{name: "cri", line: func(i int, s string) string {
		return stamp(i).Format(time.RFC3339Nano) + " stderr F " + s + "\n"
	}},
	{name: "docker-json", line: func(i int, s string) string {
		b, _ := json.Marshal(struct {
			Log    string `json:"log"`
			Stream string `json:"stream"`
			Time   string `json:"time"`
		}{s + "\n", "stderr", stamp(i).Format(time.RFC3339Nano)})
		return string(b) + "\n"
	}},
	{name: "cloud-newest-first", reverse: true, line: func(i int, s string) string {
		return "ERROR " + stamp(i).Format("2006-01-02T15:04:05.000Z") + " {} " + s + "\n"
	}},
	{name: "srun", line: func(_ int, s string) string {
		return "0: " + s + "\n"
	}},
	{name: "quoted", line: func(_ int, s string) string {
		if s == "" {
			return ">\n"
		}
		return "> " + s + "\n"
	}},
	{name: "indented", line: func(_ int, s string) string {
		return "    " + s + "\n"
	}},
	{name: "ray-actor", line: func(_ int, s string) string {
		return "(SGLangEngine pid=2271, ip=10.0.3.7) " + s + "\n"
	}},
	{name: "quoted-double-spaced", line: func(_ int, s string) string {
		if s == "" {
			return ">\n>\n"
		}
		return "> " + s + "\n>\n"
	}},
	{name: "double-spaced", line: func(_ int, s string) string {
		return s + "\n\n"
	}},
	{name: "crlf", line: func(_ int, s string) string {
		return s + "\r\n"
	}},
	{name: "ansi", line: func(_ int, s string) string {
		return "\x1b[2m" + s + "\x1b[0m\n"
	}},
}

// reshape writes log in shape sh.
func reshape(log []byte, sh shape) []byte {
	lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = sh.line(i, strings.TrimSuffix(l, "\r"))
	}
	if sh.reverse {
		slices.Reverse(out)
	}
	return []byte(strings.Join(out, ""))
}

// diagnosis is what a shape must keep of a log's findings: each finding at
// error level or above, in report order, with its role, count, ranks and
// message, but not its line numbers, which a shape may move.
func diagnosis(fs []*Finding) string {
	var b strings.Builder
	for _, f := range fs {
		if f.Severity < patterns.SeverityError {
			continue
		}
		fmt.Fprintf(&b, "%s ×%d %s root=%v %s: %s\n", f.ID, f.Count, strings.Join(f.Ranks, ","), f.RootCause, f.Exception, f.Message)
	}
	return b.String()
}

// scanBytes diagnoses one log with the built-in pack.
func scanBytes(t *testing.T, m *matcher.Matcher, name string, log []byte) []*Finding {
	t.Helper()
	s := New(m, Options{})
	if err := s.Add(name, SourceOptions{}).Scan(bytes.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	return s.Findings()
}

// The fixtures written as they come from a server give the same diagnosis
// when a collector, a logger or a paste has rewritten every line: a header
// that repeats line after line is learnt and set aside, an escaped line is
// read as its text, a paste's spacing and a console's order are undone.
func TestShapesKeepTheDiagnosis(t *testing.T) {
	logs, err := filepath.Glob("../testdata/logs/*.log")
	if err != nil || len(logs) == 0 {
		t.Fatalf("no fixture logs: %v", err)
	}
	m := builtinMatcher(t)
	for _, path := range logs {
		log, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(path), ".log")
		if alreadyShaped[name] {
			continue
		}
		want := diagnosis(scanBytes(t, m, name, log))
		for _, sh := range shapes {
			t.Run(name+"/"+sh.name, func(t *testing.T) {
				got := diagnosis(scanBytes(t, m, name, reshape(log, sh)))
				if got != want {
					t.Errorf("written %s, the diagnosis changed:\n--- got\n%s--- want\n%s", sh.name, got, want)
				}
			})
		}
	}
}

// alreadyShaped are the fixtures that come in a shape of their own (a
// collector's prefix, a paste, a terminal's carriage returns), which
// another shape would nest.
var alreadyShaped = map[string]bool{
	"cloud-logging-newest-first": true,
	"compose-pd-1p1d":            true,
	"issue-quoted-double-spaced": true,
	"journald-oom-tp2":           true,
	"k8s-timestamps":             true,
	"ray-actors-interleaved":     true,
	"tqdm-glued-wrapped":         true,
}

package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// --output sends findings to a file in every mode; the streams keep what
// is theirs: the pipe's stdout the server's bytes, and no findings.
func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		args  []string
		stdin string
	}{
		{"scan", []string{"scan", "-"}, dyingServer},
		{"pipe", nil, dyingServer},
		{"explain", []string{"explain", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, tt.name+".txt")
			var stdout, stderr bytes.Buffer
			run(append([]string{"--output", out, "--color", "never"}, tt.args...), strings.NewReader(tt.stdin), &stdout, &stderr, func(string) string { return "" })
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), "torch/cuda-oom") {
				t.Errorf("the file lacks the finding:\n%s", got)
			}
			if strings.Contains(stdout.String()+stderr.String(), "torch/cuda-oom") {
				t.Errorf("findings still reached the streams:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			}
			if tt.args == nil && stdout.String() != tt.stdin {
				t.Errorf("the pipe's stdout is not its input: %q", stdout.String())
			}
		})
	}
	var stderr bytes.Buffer
	code := run([]string{"--output", filepath.Join(dir, "no", "such", "dir", "x"), "scan", "-"}, strings.NewReader(""), &bytes.Buffer{}, &stderr, func(string) string { return "" })
	if code != exitUsageErr || !strings.Contains(stderr.String(), "tailfix: error: cannot write findings to") {
		t.Errorf("an unwritable --output: status %d, %q", code, stderr.String())
	}
}

// COLUMNS sets the width text is wrapped at, the lines of a command
// aside.
func TestColumnsSetsTheWidth(t *testing.T) {
	widest := func(cols string) int {
		var stdout bytes.Buffer
		run([]string{"--color", "never", "scan", "-"}, strings.NewReader(dyingServer), &stdout, &bytes.Buffer{},
			func(k string) string {
				if k == "COLUMNS" {
					return cols
				}
				return ""
			})
		w := 0
		for _, l := range strings.Split(stdout.String(), "\n") {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "+ ") {
				continue // a command line is not wrapped, so that it can be copied
			}
			w = max(w, len([]rune(l)))
		}
		return w
	}
	if w := widest("60"); w > 60 {
		t.Errorf("COLUMNS=60: a line of %d columns", w)
	}
	if w := widest(""); w <= 60 {
		t.Errorf("no COLUMNS: the widest line has %d columns, as if it were set", w)
	}
}

// follow --format json writes JSON Lines to stdout, one finding a line,
// and nothing else there.
func TestFollowJSONOnStdout(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	log := filepath.Join(t.TempDir(), "server.log")
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"--format", "json", "follow", "--poll", "20ms", log}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	}()
	waitFor(t, "follow to start", func() bool { return strings.Contains(stderr.String(), "waiting for") })
	appendTo(t, log, dyingServer) // a file that appears is read from its start
	waitFor(t, "the finding", func() bool { return strings.Contains(stdout.String(), "torch/cuda-oom") })
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitExit(t, code, exitFound, "follow did not stop on Ctrl-C")
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var f map[string]any
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Errorf("not a JSON line: %q", line)
		}
	}
}

// The pipe fed line by line at a real, uneven pace ends with the summary a
// scan of the same bytes gives: ids, counts, ranks, lines, causes, order.
func TestPipeAtRealPaceEndsAsScan(t *testing.T) {
	if testing.Short() {
		t.Skip("paced in real time")
	}
	for _, name := range []string{"py-chained-scheduler", "py-multiprocess-ranks"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "logs", name+".log"))
			if err != nil {
				t.Fatal(err)
			}
			var scan bytes.Buffer
			run([]string{"--format", "json", "scan", "-"}, bytes.NewReader(data), &scan, &bytes.Buffer{}, func(string) string { return "" })
			var want []string
			for _, line := range strings.Split(strings.TrimSpace(scan.String()), "\n") {
				var f struct {
					ID        string   `json:"id"`
					Count     int      `json:"count"`
					Ranks     []string `json:"ranks"`
					Line      int64    `json:"line"`
					SymptomOf *string  `json:"symptom_of"`
				}
				if err := json.Unmarshal([]byte(line), &f); err != nil {
					t.Fatal(err)
				}
				b := fmt.Sprintf("%s ×%d %v line %d", f.ID, f.Count, f.Ranks, f.Line)
				if f.SymptomOf != nil {
					b += " symptom of " + *f.SymptomOf
				}
				want = append(want, b)
			}

			pr, pw := io.Pipe()
			var stdout, stderr syncBuffer
			code := make(chan int, 1)
			go func() {
				code <- run([]string{"--color", "never"}, pr, &stdout, &stderr, func(string) string { return "" })
			}()
			r := rand.New(rand.NewPCG(1, 2))
			for i, line := range strings.SplitAfter(string(data), "\n") {
				io.WriteString(pw, line)
				d := time.Duration(r.IntN(30)) * time.Millisecond
				if i%9 == 4 {
					d = 300 * time.Millisecond // a pause, mid-traceback or not
				}
				time.Sleep(d)
			}
			pw.Close()
			waitExit(t, code, exitFound, "the pipe did not end")
			var got []string
			brief := regexp.MustCompile(`  (\S+/\S+)(?: ×(\d+)(?: on (.+?))?)? · line (\d+)(?: · symptom of (\S+))?$`)
			for _, l := range strings.Split(stderr.String(), "\n") {
				m := brief.FindStringSubmatch(l)
				if m == nil {
					continue
				}
				count := cmp.Or(m[2], "1")
				ranks := "[]"
				if m[3] != "" {
					ranks = m[3]
				}
				b := fmt.Sprintf("%s ×%s %s line %s", m[1], count, ranks, m[4])
				if m[5] != "" {
					b += " symptom of " + m[5]
				}
				got = append(got, b)
			}
			// The brief line shows ranks as a range; compare the rest.
			norm := func(s []string) string {
				out := make([]string, len(s))
				for i, x := range s {
					out[i] = ranksRE.ReplaceAllString(x, "R")
				}
				return strings.Join(out, "\n")
			}
			if len(want) == 0 || len(got) != len(want) || norm(got) != norm(want) {
				t.Errorf("the pipe ended with\n%s\nscan says\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), stderr.String())
			}
		})
	}
}

// ranksRE is a rank list, as JSON or as a brief line shows it.
var ranksRE = regexp.MustCompile(`\[.*?\]|TP\S+`)

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/patterns"
)

// follow --on-finding runs a command per new finding with the finding's
// JSON on its stdin, and --webhook posts it, while the file is read.
func TestFollowTellsOfNewFindings(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "tp0.log")
	told := filepath.Join(dir, "told.json")
	var mu sync.Mutex
	var posts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		posts = append(posts, string(b))
		mu.Unlock()
	}))
	defer srv.Close()
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"follow", "--color", "never", "--poll", "20ms", "--on-finding", "sh -c 'cat >> " + told + "'",
			"--webhook", srv.URL, filepath.Join(dir, "*.log")}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	}()
	waitFor(t, "follow to wait for the file", func() bool { return strings.Contains(stderr.String(), "no file matches") })
	appendTo(t, log, dyingServer)
	waitFor(t, "the command and the post", func() bool {
		b, _ := os.ReadFile(told)
		mu.Lock()
		defer mu.Unlock()
		return len(b) > 0 && len(posts) == 1
	})
	b, _ := os.ReadFile(told)
	var f struct {
		ID       string `json:"id"`
		Severity string `json:"severity"`
		Source   string `json:"source"`
	}
	if err := json.Unmarshal(b, &f); err != nil || f.ID != "torch/cuda-oom" || f.Severity != "error" {
		t.Errorf("the command got %q (%v)", b, err)
	}
	mu.Lock()
	post := posts[0]
	mu.Unlock()
	var slack map[string]string
	if err := json.Unmarshal([]byte(post), &slack); err != nil || !strings.Contains(slack["text"], "error torch/cuda-oom: torch.OutOfMemoryError: CUDA out of memory") {
		t.Errorf("the webhook got %q (%v)", post, err)
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitExit(t, code, exitFound, "follow did not stop on Ctrl-C")
	if strings.Contains(stderr.String(), "warning") {
		t.Errorf("warnings: %s", stderr.String())
	}
}

// The webhook's formats: Slack's text, and an Alertmanager alert with the
// finding's id and severity as labels and the fix's first step.
func TestWebhookBody(t *testing.T) {
	pack, err := patterns.Curated()
	if err != nil {
		t.Fatal(err)
	}
	f := &diagnose.Finding{ID: "torch/cuda-oom", Severity: patterns.SeverityError, Record: pack.Lookup("torch/cuda-oom"),
		Message: "CUDA out of memory. Tried to allocate 2.00 GiB.", Exception: "torch.OutOfMemoryError", Source: "tp0.log", Line: 7, Count: 3}
	now := time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)
	b, err := webhookBody(f, "alertmanager", now)
	if err != nil {
		t.Fatal(err)
	}
	var alerts []struct {
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
		StartsAt    string            `json:"startsAt"`
	}
	if err := json.Unmarshal(b, &alerts); err != nil || len(alerts) != 1 {
		t.Fatalf("%s: %v", b, err)
	}
	a := alerts[0]
	if a.Labels["alertname"] != "SglangFinding" || a.Labels["tailfix_id"] != "torch/cuda-oom" || a.Labels["severity"] != "error" ||
		a.Labels["source"] != "tp0.log" || a.StartsAt != "2026-12-01T07:00:00Z" ||
		!strings.HasPrefix(a.Annotations["summary"], "tp0.log:7: error torch/cuda-oom:") || a.Annotations["description"] == "" || a.Annotations["fix"] == "" {
		t.Errorf("alert %+v", a)
	}
	b, err = webhookBody(f, "slack", now)
	if err != nil || !strings.Contains(string(b), `"text":"tp0.log:7: error torch/cuda-oom:`) {
		t.Errorf("slack: %s %v", b, err)
	}
}

// A command that fails or hangs is warned of, and stopped at the timeout;
// the flags are checked before anything is read.
func TestOnFindingFailures(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	var mu sync.Mutex
	var warned []string
	warn := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		warned = append(warned, strings.TrimSpace(sprintf(format, args...)))
	}
	n, err := newNotifier(NotifyFlags{OnFinding: "sh -c 'echo nope >&2; exit 3'", NotifyTimeout: time.Second}, warn)
	if err != nil {
		t.Fatal(err)
	}
	f := &diagnose.Finding{ID: "t/x", Severity: patterns.SeverityError, Message: "m"}
	n.update(diagnose.Update{Kind: diagnose.Found, Finding: f})
	n.update(diagnose.Update{Kind: diagnose.Provisional, Finding: f}) // not told
	n.close()
	if len(warned) != 1 || !strings.Contains(warned[0], "--on-finding sh for t/x: exit status 3: nope") {
		t.Errorf("warnings %q", warned)
	}
	warned = nil
	n, _ = newNotifier(NotifyFlags{OnFinding: "sleep 30", NotifyTimeout: 100 * time.Millisecond}, warn)
	start := time.Now()
	n.update(diagnose.Update{Kind: diagnose.Found, Finding: f})
	n.close()
	if time.Since(start) > 10*time.Second || len(warned) != 1 || !strings.Contains(warned[0], "stopped after 100ms") {
		t.Errorf("a hanging command: %q after %v", warned, time.Since(start))
	}
	for _, flags := range []NotifyFlags{{OnFinding: "no-such-command-here"}, {OnFinding: "'unterminated"}, {Webhook: "ftp://x"}, {Webhook: "not a url"}} {
		if _, err := newNotifier(flags, warn); err == nil {
			t.Errorf("%+v: no error", flags)
		}
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// metricsAddr waits for the note that says where --metrics serves.
func metricsAddr(t *testing.T, stderr *syncBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`tailfix: note: metrics at (http://\S+)`)
	var addr string
	waitFor(t, "the metrics address", func() bool {
		m := re.FindStringSubmatch(stderr.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	})
	return addr
}

func scrape(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// follow --metrics serves what it reads and finds, by source: each
// finding's occurrences with its id and severity, root causes, lines and
// bytes, files followed, the last finding's time.
func TestFollowMetrics(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "tp0.log")
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"follow", "--color", "never", "--poll", "20ms", "--metrics", "127.0.0.1:0", filepath.Join(dir, "*.log")},
			strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	}()
	addr := metricsAddr(t, &stderr)
	if got := scrape(t, addr); !strings.Contains(got, "tailfix_files_followed 0\n") || !strings.Contains(got, "tailfix_last_finding_timestamp_seconds 0\n") {
		t.Errorf("before any file:\n%s", got)
	}
	appendTo(t, log, dyingServer)
	appendTo(t, log, dyingServer)
	want := []string{
		fmt.Sprintf(`tailfix_finding_occurrences{id="torch/cuda-oom",severity="error",source=%q} 2`, log),
		fmt.Sprintf(`tailfix_findings{severity="error",source=%q} 1`, log),
		fmt.Sprintf(`tailfix_root_cause{id="torch/cuda-oom",source=%q} 1`, log),
		fmt.Sprintf(`tailfix_lines_read_total{source=%q} 8`, log),
		fmt.Sprintf(`tailfix_bytes_read_total{source=%q} %d`, log, 2*len(dyingServer)),
		"tailfix_files_followed 1",
	}
	var got string
	defer func() {
		if t.Failed() {
			t.Logf("last scrape:\n%s", got)
		}
	}()
	waitFor(t, "the metrics of the file", func() bool {
		got = scrape(t, addr)
		for _, w := range want {
			if !strings.Contains(got, w+"\n") {
				return false
			}
		}
		return true
	})
	if strings.Contains(got, "tailfix_last_finding_timestamp_seconds 0\n") {
		t.Errorf("no time of the last finding:\n%s", got)
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitExit(t, code, exitFound, "follow did not stop on Ctrl-C")
	if _, err := http.Get(addr); err == nil {
		t.Error("the metrics are still served after follow ended")
	}
}

// An address that cannot be served is an error that names it.
func TestMetricsAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var stdout, stderr syncBuffer
	got := run([]string{"follow", "--metrics", ln.Addr().String(), filepath.Join(t.TempDir(), "*.log")},
		strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	if got != 2 || !strings.Contains(stderr.String(), "--metrics "+ln.Addr().String()+": ") || !strings.Contains(stderr.String(), "address already in use") {
		t.Errorf("exit %d, stderr %q", got, stderr.String())
	}
}

// A real Prometheus server scrapes follow's metrics, and its query API
// answers with the finding. It is skipped without Debian's prometheus
// package, unless TAILFIX_REQUIRE_PROMETHEUS is set (CI installs it).
func TestPrometheusScrapesFollow(t *testing.T) {
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("TAILFIX_REQUIRE_PROMETHEUS") != "" {
			t.Fatal("prometheus is not installed")
		}
		t.Skip("prometheus is not installed")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "decode.log")
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"follow", "--color", "never", "--poll", "20ms", "--metrics", "127.0.0.1:0", filepath.Join(dir, "*.log")},
			strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	}()
	target := strings.TrimSuffix(strings.TrimPrefix(metricsAddr(t, &stderr), "http://"), "/metrics")
	appendTo(t, log, dyingServer)

	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	web := free.Addr().String()
	free.Close()
	config := filepath.Join(dir, "prometheus.yml")
	rules, err := filepath.Abs("../../deploy/prometheus/tailfix-alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(config, []byte(fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\nrule_files: [%q]\n"+
		"scrape_configs:\n  - job_name: tailfix\n    static_configs: [{targets: [%q]}]\n", rules, target)), 0o644)
	cmd := exec.Command(prom, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+web)
	var promOut syncBuffer
	cmd.Stdout, cmd.Stderr = &promOut, &promOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	query := func(q string) string {
		resp, err := http.Get("http://" + web + "/api/v1/query?query=" + url.QueryEscape(q))
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		var r struct {
			Data struct {
				Result []struct {
					Metric map[string]string `json:"metric"`
					Value  []any             `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		if json.NewDecoder(resp.Body).Decode(&r) != nil || len(r.Data.Result) == 0 {
			return ""
		}
		x := r.Data.Result[0]
		return fmt.Sprintf("%s %s %v", x.Metric["id"], x.Metric["source"], x.Value[1])
	}
	want := "torch/cuda-oom " + log + " 1"
	for deadline := time.Now().Add(60 * time.Second); query(`tailfix_finding_occurrences{job="tailfix"}`) != want; {
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus never had the finding: %q\nprometheus said:\n%s", query(`tailfix_finding_occurrences`), promOut.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The example alert fires on a new root cause.
	for deadline := time.Now().Add(60 * time.Second); query(`ALERTS{alertname="SglangRootCause",alertstate="firing"}`) == ""; {
		if time.Now().After(deadline) {
			t.Fatalf("the example alert did not fire\nprometheus said:\n%s", promOut.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitExit(t, code, exitFound, "follow did not stop on Ctrl-C")
}

// The example alerting rules are valid, as Prometheus's own checker says.
func TestAlertRulesAreValid(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("TAILFIX_REQUIRE_PROMETHEUS") != "" {
			t.Fatal("promtool is not installed")
		}
		t.Skip("promtool is not installed")
	}
	out, err := exec.Command(promtool, "check", "rules", "../../deploy/prometheus/tailfix-alerts.yml").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SUCCESS: 3 rules found") {
		t.Errorf("promtool check rules: %v\n%s", err, out)
	}
}

// run --metrics serves the child's findings while it runs, by stream.
func TestRunMetrics(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	script := filepath.Join(t.TempDir(), "server.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' \"$1\" >&2\nsleep 30\n"), 0o755)
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"run", "--color", "never", "--metrics", "127.0.0.1:0", "--", script, dyingServer},
			strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	}()
	addr := metricsAddr(t, &stderr)
	want := `tailfix_finding_occurrences{id="torch/cuda-oom",severity="error",source="stderr"} 1`
	waitFor(t, "the child's finding in the metrics", func() bool { return strings.Contains(scrape(t, addr), want+"\n") })
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitExit(t, code, 128+int(syscall.SIGINT), "run did not stop on Ctrl-C")
}

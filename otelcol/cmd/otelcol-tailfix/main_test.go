package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/tailfix/tailfix/otelcol/tailfixprocessor"
)

// capture is an exporter that keeps what it is sent, for a test to read.
type capture struct {
	component.StartFunc
	component.ShutdownFunc
	*consumertest.LogsSink
}

// captureFactory makes the capture exporter, type "capture", every
// instance keeping its logs in sink.
func captureFactory(sink *consumertest.LogsSink) exporter.Factory {
	return exporter.NewFactory(component.MustNewType("capture"),
		func() component.Config { return &struct{}{} },
		exporter.WithLogs(func(context.Context, exporter.Settings, component.Config) (exporter.Logs, error) {
			return capture{LogsSink: sink}, nil
		}, component.StabilityLevelDevelopment))
}

const e2eConfig = `
receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
processors:
  tailfix:
    min_severity: error
    idle_timeout: 5m
exporters:
  capture: {}
service:
  telemetry:
    logs:
      level: warn
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [otlp]
      processors: [tailfix]
      exporters: [capture]
`

// Two pods' logs sent over OTLP/HTTP to the distribution, built from its
// own components and a YAML configuration, come out of the pipeline
// whole and in order: the records of each pod's traceback annotated with
// its finding, a pod's sigquit with the cause it follows from, and after
// them a finding record each, under the pod's resource. The tracebacks
// come in two requests, cut before their exception lines.
func TestCollectorEndToEnd(t *testing.T) {
	sink := new(consumertest.LogsSink)
	addr := freeAddr(t)
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgPath, fmt.Appendf(nil, e2eConfig, addr), 0o644); err != nil {
		t.Fatal(err)
	}
	set := settings(func() (otelcol.Factories, error) {
		f, err := components()
		if err != nil {
			return f, err
		}
		f.Exporters[component.MustNewType("capture")] = captureFactory(sink)
		return f, nil
	})
	set.ConfigProviderSettings.ResolverSettings.URIs = []string{"file:" + cfgPath}
	set.DisableGracefulShutdown = true
	col, err := otelcol.NewCollector(set)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- col.Run(context.Background()) }()
	defer func() {
		col.Shutdown()
		if err := <-done; err != nil {
			t.Errorf("collector: %v", err)
		}
	}()
	waitFor(t, "the collector to run", func() bool { return col.GetState() == otelcol.StateRunning }, done)

	a := []string{
		"[2026-11-29 10:15:02 TP0] Load weight begin. avail mem=78.52 GB",
		"[2026-11-29 10:15:03 TP0] Scheduler hit an exception: Traceback (most recent call last):",
		`  File "/x/model_runner.py", line 1090, in load_model`,
		"    self.model = get_model()",
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
		"[2026-11-29 10:15:04] Received sigquit from a child process. It usually means the child failed.",
	}
	b := []string{
		"[2026-11-29 10:15:02 TP0] Load weight end. elapsed=38.64 s, avail mem=40.87 GB",
		"[2026-11-29 10:15:03 TP0] Scheduler hit an exception: Traceback (most recent call last):",
		`  File "/x/scheduler.py", line 421, in __init__`,
		"    self.init_memory_pool()",
		"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
		"[2026-11-29 10:15:04 TP0] Shutting down.",
	}
	post(t, addr, interleaved(a[:3], b[:3]))
	post(t, addr, interleaved(a[3:], b[3:]))
	const records = 12 + 3 // the pods' lines, a finding each and a sigquit
	waitFor(t, "the records to come out", func() bool { return sink.LogRecordCount() >= records }, done)
	time.Sleep(100 * time.Millisecond) // nothing more comes
	if n := sink.LogRecordCount(); n != records {
		t.Fatalf("%d records came out; want %d", n, records)
	}

	var got []string
	findings := map[string]map[string]any{}
	for _, ld := range sink.AllLogs() {
		for _, rl := range ld.ResourceLogs().All() {
			pod := attr(rl.Resource().Attributes(), "k8s.pod.name")
			for _, sl := range rl.ScopeLogs().All() {
				for _, lr := range sl.LogRecords().All() {
					at := lr.Attributes()
					id, sev, of := attr(at, tailfixprocessor.AttrID), attr(at, tailfixprocessor.AttrSeverity), attr(at, tailfixprocessor.AttrSymptomOf)
					if lr.EventName() == tailfixprocessor.EventName {
						var j map[string]any
						if err := json.Unmarshal([]byte(lr.Body().Str()), &j); err != nil {
							t.Fatalf("finding record's body: %v: %s", err, lr.Body().Str())
						}
						findings[pod+" "+id] = j
						got = append(got, fmt.Sprintf("%s finding %s %s %s %v", pod, id, sev, of, lr.SeverityNumber()))
						continue
					}
					got = append(got, fmt.Sprintf("%s %q %s %s %s", pod, lr.Body().Str(), id, sev, of))
				}
			}
		}
	}
	oom, kv, sig := "torch/cuda-oom error ", "sglang/not-enough-memory-kv-pool fatal ", "sglang/child-failed-sigquit error torch/cuda-oom"
	want := []string{
		line("a", a[0], "  "), line("b", b[0], "  "),
		line("a", a[1], "  "), line("b", b[1], "  "), // the start of a traceback: its records went on before its exception line came
		line("a", a[2], "  "), line("b", b[2], "  "),
		line("a", a[3], oom), line("b", b[3], kv),
		line("a", a[4], oom), line("b", b[4], kv),
		line("a", a[5], sig), line("b", b[5], "  "),
		"a finding torch/cuda-oom error  Error",
		"a finding sglang/child-failed-sigquit error torch/cuda-oom Error",
		"b finding sglang/not-enough-memory-kv-pool fatal  Fatal",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("came out:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if j := findings["a torch/cuda-oom"]; j == nil || j["line"] != 2.0 || j["end_line"] != 5.0 || j["remedy"] == nil {
		t.Errorf("pod a's finding: %v", j)
	}
	if j := findings["b sglang/not-enough-memory-kv-pool"]; j == nil || j["line"] != 2.0 || j["source"] != "default b" {
		t.Errorf("pod b's finding: %v", j)
	}
}

// The configuration shown in the README is the one beside main.go, and
// the distribution accepts it.
func TestExampleConfig(t *testing.T) {
	cfg, err := os.ReadFile("config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, cfg) {
		t.Errorf("README.md does not show otelcol/cmd/otelcol-tailfix/config.yaml as it is")
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"validate", "--config", "config.yaml"}, &stdout, &stderr); code != 0 {
		t.Errorf("validate: exit %d: %s", code, stderr.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, bytes.Replace(cfg, []byte("min_severity: error"), []byte("min_severity: loud"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run([]string{"validate", "--config", bad}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), `min_severity: invalid severity "loud" (valid: info, warning, error, fatal)`) {
		t.Errorf("validate of a bad severity: exit %d: %s", code, stderr.String())
	}
}

func line(pod, body, annotation string) string {
	return fmt.Sprintf("%s %q %s", pod, body, annotation)
}

// interleaved is one request's logs: a line of pod a, then of pod b, in
// turn, each in a resource of its own.
func interleaved(a, b []string) plog.Logs {
	ld := plog.NewLogs()
	for i := range a {
		for _, l := range []struct{ pod, body string }{{"a", a[i]}, {"b", b[i]}} {
			rl := ld.ResourceLogs().AppendEmpty()
			rl.Resource().Attributes().PutStr("k8s.namespace.name", "default")
			rl.Resource().Attributes().PutStr("k8s.pod.name", l.pod)
			lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
			lr.Body().SetStr(l.body)
			lr.SetTimestamp(pcommon.NewTimestampFromTime(time.Now()))
		}
	}
	return ld
}

// post sends logs to the OTLP/HTTP receiver as JSON.
func post(t *testing.T, addr string, ld plog.Logs) {
	t.Helper()
	var m plog.JSONMarshaler
	body, err := m.MarshalLogs(ld)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post("http://"+addr+"/v1/logs", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/logs: %s", resp.Status)
	}
}

func attr(m pcommon.Map, k string) string {
	if v, ok := m.Get(k); ok {
		return v.AsString()
	}
	return ""
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitFor waits up to 30 s for ok, failing early if the collector stops.
func waitFor(t *testing.T, what string, ok func() bool, done chan error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		select {
		case err := <-done:
			done <- err
			t.Fatalf("the collector stopped while waiting for %s: %v", what, err)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

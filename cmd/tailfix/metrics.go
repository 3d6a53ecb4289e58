package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tailfix/tailfix/diagnose"
)

// metricsPath is where --metrics serves.
const metricsPath = "/metrics"

// metrics is what a live mode tells Prometheus: what it read and what it
// found, by source. The findings are read from the session when scraped,
// so the counts are the report's own.
type metrics struct {
	l      *live
	bytes  *prometheus.CounterVec
	last   prometheus.Gauge
	files  func() int
	server *http.Server
	done   chan struct{}
}

var (
	occurrencesDesc = prometheus.NewDesc("tailfix_finding_occurrences",
		"Occurrences of each finding so far (lines or events), by finding id, severity and source.",
		[]string{"id", "severity", "source"}, nil)
	findingsDesc = prometheus.NewDesc("tailfix_findings",
		"Distinct findings so far, by severity and source.",
		[]string{"severity", "source"}, nil)
	rootCauseDesc = prometheus.NewDesc("tailfix_root_cause",
		"1 for each finding that is a root cause (not a symptom of another), by finding id and source.",
		[]string{"id", "source"}, nil)
	linesDesc = prometheus.NewDesc("tailfix_lines_read_total",
		"Lines read, by source.", []string{"source"}, nil)
	filesDesc = prometheus.NewDesc("tailfix_files_followed",
		"Files followed now.", nil, nil)
)

// serveMetrics starts serving the metrics of l at addr (host:port or
// :port) and says where on stderr. files, when not nil, counts the files
// followed.
func serveMetrics(e *env, addr string, l *live, files func() int) (*metrics, error) {
	m := &metrics{l: l, files: files, done: make(chan struct{}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tailfix_bytes_read_total",
			Help: "Bytes read, by source."}, []string{"source"}),
		last: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tailfix_last_finding_timestamp_seconds",
			Help: "When the last new finding at error level or above was made, in seconds since the epoch; 0 before the first."}),
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(m, m.bytes, m.last,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics %s: %w", addr, errors.Unwrap(err))
	}
	mux := http.NewServeMux()
	mux.Handle(metricsPath, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	m.server = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(m.done)
		m.server.Serve(ln)
	}()
	fmt.Fprintf(e.stderr, "tailfix: note: metrics at http://%s%s\n", ln.Addr(), metricsPath)
	return m, nil
}

// found notes a new finding, for the last finding's time.
func (m *metrics) found(u diagnose.Update) {
	if m != nil && u.Kind == diagnose.Found {
		m.last.SetToCurrentTime()
	}
}

// read counts bytes read from a source.
func (m *metrics) read(source string, n int) {
	if m != nil {
		m.bytes.WithLabelValues(source).Add(float64(n))
	}
}

// close stops serving.
func (m *metrics) close() {
	if m == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	m.server.Shutdown(ctx)
	<-m.done
}

// Describe and Collect make the session's findings and sources metrics.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{occurrencesDesc, findingsDesc, rootCauseDesc, linesDesc, filesDesc} {
		ch <- d
	}
}

func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	type key struct{ id, severity, source string }
	occurrences := map[key]int{}
	distinct := map[[2]string]int{}
	roots := map[[2]string]bool{}
	for _, f := range m.l.sess.Current() {
		source := sourceName(f.Source)
		sev := f.Severity.String()
		occurrences[key{f.ID, sev, source}] += max(f.Count, 1)
		distinct[[2]string{sev, source}]++
		if f.RootCause {
			roots[[2]string{f.ID, source}] = true
		}
	}
	for k, n := range occurrences {
		ch <- prometheus.MustNewConstMetric(occurrencesDesc, prometheus.GaugeValue, float64(n), k.id, k.severity, k.source)
	}
	for k, n := range distinct {
		ch <- prometheus.MustNewConstMetric(findingsDesc, prometheus.GaugeValue, float64(n), k[0], k[1])
	}
	for k := range roots {
		ch <- prometheus.MustNewConstMetric(rootCauseDesc, prometheus.GaugeValue, 1, k[0], k[1])
	}
	for _, src := range m.l.inputs() {
		ch <- prometheus.MustNewConstMetric(linesDesc, prometheus.CounterValue, float64(src.Lines()), sourceName(src.Name()))
	}
	if m.files != nil {
		ch <- prometheus.MustNewConstMetric(filesDesc, prometheus.GaugeValue, float64(m.files()))
	}
}

// sourceName is a source as a label: stdin for "-".
func sourceName(s string) string {
	if s == "-" {
		return "stdin"
	}
	return s
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/tailfix/tailfix/diagnose"
	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/remedies"
)

// NotifyFlags are the live modes' ways to tell something else of a new
// finding.
type NotifyFlags struct {
	OnFinding     string        `name:"on-finding" placeholder:"CMD" help:"Run CMD for each new finding at error level or above, the finding as JSON on its stdin. CMD is split into words as a shell would, and run without a shell (write sh -c '…' for one). It runs beside the reading, never in its way; findings beyond what waits in line are dropped with a warning."`
	Webhook       string        `placeholder:"URL" help:"POST each new finding at error level or above to URL, in the --webhook-format."`
	WebhookFormat string        `name:"webhook-format" default:"slack" enum:"slack,alertmanager" help:"How --webhook posts a finding: slack (an incoming webhook's {\"text\": …}) or alertmanager (an alert for Alertmanager's /api/v2/alerts)."`
	NotifyTimeout time.Duration `name:"notify-timeout" default:"10s" help:"How long --on-finding's command, or --webhook's request, may take before it is stopped."`
}

// notifyQueue bounds the findings waiting to be told: a burst beyond it
// is dropped rather than held.
const notifyQueue = 64

// notifier tells commands and webhooks of new findings, one at a time, on
// a goroutine of its own.
type notifier struct {
	f       NotifyFlags
	argv    []string
	warn    func(format string, args ...any)
	queue   chan *diagnose.Finding
	done    chan struct{}
	mu      sync.Mutex
	dropped int
	client  *http.Client
}

// newNotifier checks the flags and starts telling; nil when none is set.
func newNotifier(f NotifyFlags, warn func(string, ...any)) (*notifier, error) {
	if f.OnFinding == "" && f.Webhook == "" {
		return nil, nil
	}
	n := &notifier{f: f, warn: warn, queue: make(chan *diagnose.Finding, notifyQueue), done: make(chan struct{}),
		client: &http.Client{Timeout: f.NotifyTimeout}}
	if f.OnFinding != "" {
		argv, err := launch.Split(f.OnFinding)
		if err != nil || len(argv) == 0 {
			return nil, fmt.Errorf("--on-finding %q: cannot split it into words: %v", f.OnFinding, err)
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			return nil, fmt.Errorf("--on-finding: %w", err)
		}
		n.argv = argv
	}
	if f.Webhook != "" {
		u, err := url.Parse(f.Webhook)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--webhook %q: not an http or https URL", f.Webhook)
		}
	}
	go n.run()
	return n, nil
}

// update queues a new finding; it never waits.
func (n *notifier) update(u diagnose.Update) {
	if n == nil || u.Kind != diagnose.Found {
		return
	}
	select {
	case n.queue <- u.Finding:
	default:
		n.mu.Lock()
		n.dropped++
		n.mu.Unlock()
	}
}

// close tells what is queued and stops.
func (n *notifier) close() {
	if n == nil {
		return
	}
	close(n.queue)
	<-n.done
	if n.dropped > 0 {
		n.warn("tailfix: warning: %d new findings were not told to --on-finding or --webhook: more came than wait in line (%d)\n", n.dropped, notifyQueue)
	}
}

func (n *notifier) run() {
	defer close(n.done)
	for f := range n.queue {
		var buf bytes.Buffer
		if err := remedies.NewPrinter(&buf, remedies.Options{Format: remedies.JSON}).Finding(f); err != nil {
			n.warn("tailfix: warning: %s: %v\n", f.ID, err)
			continue
		}
		if n.argv != nil {
			if err := n.command(buf.Bytes()); err != nil {
				n.warn("tailfix: warning: --on-finding %s for %s: %v\n", n.argv[0], f.ID, err)
			}
		}
		if n.f.Webhook != "" {
			if err := n.post(f); err != nil {
				n.warn("tailfix: warning: --webhook for %s: %v\n", f.ID, err)
			}
		}
	}
}

// command runs --on-finding's command with the finding on its stdin.
func (n *notifier) command(finding []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), n.f.NotifyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, n.argv[0], n.argv[1:]...)
	cmd.Stdin = bytes.NewReader(finding)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("stopped after %s", n.f.NotifyTimeout)
	}
	if err != nil {
		return fmt.Errorf("%w: %s", err, remedies.Safe(ansi.Truncate(strings.TrimSpace(out.String()), 200, "…")))
	}
	return nil
}

// post sends a finding to --webhook.
func (n *notifier) post(f *diagnose.Finding) error {
	body, err := webhookBody(f, n.f.WebhookFormat, time.Now())
	if err != nil {
		return err
	}
	resp, err := n.client.Post(n.f.Webhook, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s answered %s", n.f.Webhook, resp.Status)
	}
	return nil
}

// webhookBody is a finding in a webhook's format: Slack's incoming webhook
// ({"text": …}, one line as the brief format writes it, and the first
// step of the fix), or Alertmanager's alert list.
func webhookBody(f *diagnose.Finding, format string, now time.Time) ([]byte, error) {
	var line bytes.Buffer
	if err := remedies.NewPrinter(&line, remedies.Options{Format: remedies.Brief, Width: 1 << 20}).Finding(f); err != nil {
		return nil, err
	}
	summary := strings.TrimSpace(line.String())
	rem := remedies.For(f)
	switch format {
	case "slack":
		return json.Marshal(map[string]string{"text": summary})
	case "alertmanager":
		labels := map[string]string{"alertname": "SglangFinding", "tailfix_id": f.ID, "severity": f.Severity.String()}
		if f.Source != "" {
			labels["source"] = f.Source
		}
		annotations := map[string]string{"summary": summary, "description": rem.Cause}
		if len(rem.Steps) > 0 {
			annotations["fix"] = rem.Steps[0]
		}
		return json.Marshal([]map[string]any{{"labels": labels, "annotations": annotations, "startsAt": now.UTC().Format(time.RFC3339)}})
	}
	return nil, errors.New("unknown webhook format " + format)
}

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.yaml.in/yaml/v3"
)

// daemonSet is what the test reads of the Kubernetes example.
type daemonSet struct {
	Kind string `yaml:"kind"`
	Spec struct {
		Template struct {
			Metadata struct {
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"metadata"`
			Spec struct {
				Containers []struct {
					Args  []string `yaml:"args"`
					Ports []struct {
						ContainerPort int `yaml:"containerPort"`
					} `yaml:"ports"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
						ReadOnly  bool   `yaml:"readOnly"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name     string `yaml:"name"`
					HostPath struct {
						Path string `yaml:"path"`
					} `yaml:"hostPath"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// The Kubernetes example is one that works: its DaemonSet follows the
// kubelet's pod logs through a read-only host mount, serves the metrics on
// the port its annotations and container name, and tailfix accepts its
// arguments and finds an error in a pod's log written as the kubelet
// writes it; the scrape job's relabelling turns the finding's file into
// the pod's namespace, name and container.
func TestKubernetesExample(t *testing.T) {
	data, err := os.ReadFile("../../deploy/kubernetes/tailfix-daemonset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ds *daemonSet
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc daemonSet
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if doc.Kind == "DaemonSet" {
			ds = &doc
		}
	}
	if ds == nil || len(ds.Spec.Template.Spec.Containers) != 1 {
		t.Fatal("no DaemonSet with one container")
	}
	pod := ds.Spec.Template.Spec
	c := pod.Containers[0]
	args := c.Args
	i := slices.Index(args, "--metrics")
	if len(args) < 3 || args[0] != "follow" || i < 0 || i+1 >= len(args) {
		t.Fatalf("args %q", args)
	}
	port := strings.TrimPrefix(args[i+1], ":")
	annotated := ds.Spec.Template.Metadata.Annotations["prometheus.io/port"]
	if len(c.Ports) != 1 || port != strconv.Itoa(c.Ports[0].ContainerPort) || annotated != port {
		t.Errorf("metrics on %q, container port %v, annotation %q", args[i+1], c.Ports, annotated)
	}
	glob := args[len(args)-1]
	mounted := false
	for _, m := range c.VolumeMounts {
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.HostPath.Path == m.MountPath && m.ReadOnly && strings.HasPrefix(glob, m.MountPath+"/") {
				mounted = true
			}
		}
	}
	if !mounted || glob != "/var/log/pods/*/*/*.log" {
		t.Errorf("%s is not under a read-only mount of the same host path: %+v %+v", glob, c.VolumeMounts, pod.Volumes)
	}

	// The same arguments, on a directory of this machine laid out as the
	// kubelet lays out /var/log/pods.
	root := t.TempDir()
	local := slices.Clone(args)
	local[i+1] = "127.0.0.1:0"
	local[len(local)-1] = strings.Replace(glob, "/var/log/pods", root, 1)
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(local, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	}()
	addr := metricsAddr(t, &stderr)
	dir := filepath.Join(root, "llm_sglang-decode-7c9f5_0b6e1a2c-93d1-4c1e-b0a4-5c3c0e6f7a21", "sglang")
	os.MkdirAll(dir, 0o755)
	var cri strings.Builder
	for _, line := range strings.SplitAfter(dyingServer, "\n") {
		if line != "" {
			cri.WriteString("2026-12-01T07:00:00.123456789Z stderr F " + line)
		}
	}
	appendTo(t, filepath.Join(dir, "0.log"), cri.String())
	waitFor(t, "the pod's finding as JSON", func() bool { return strings.Contains(stdout.String(), `"id":"torch/cuda-oom"`) })
	var source string
	re := regexp.MustCompile(`tailfix_root_cause\{id="torch/cuda-oom",source="([^"]+)"\} 1`)
	waitFor(t, "the finding in the metrics", func() bool {
		m := re.FindStringSubmatch(scrape(t, addr))
		if m != nil {
			source = strings.Replace(m[1], root, "/var/log/pods", 1)
		}
		return m != nil
	})
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	waitExit(t, code, exitFound, "follow did not stop on Ctrl-C")

	labels := relabel(t, source)
	if labels["namespace"] != "llm" || labels["pod"] != "sglang-decode-7c9f5" || labels["container"] != "sglang" {
		t.Errorf("labels of %s: %v", source, labels)
	}
}

// relabel applies the example scrape job's metric relabelling to a
// finding's source, as Prometheus does: each regex anchored at both ends,
// its replacement into the target label.
func relabel(t *testing.T, source string) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../deploy/kubernetes/prometheus-scrape.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		ScrapeConfigs []struct {
			MetricRelabel []struct {
				SourceLabels []string `yaml:"source_labels"`
				Regex        string   `yaml:"regex"`
				TargetLabel  string   `yaml:"target_label"`
				Replacement  string   `yaml:"replacement"`
			} `yaml:"metric_relabel_configs"`
		} `yaml:"scrape_configs"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil || len(cfg.ScrapeConfigs) != 1 {
		t.Fatalf("%v", err)
	}
	out := map[string]string{}
	for _, r := range cfg.ScrapeConfigs[0].MetricRelabel {
		if !slices.Equal(r.SourceLabels, []string{"source"}) {
			t.Fatalf("relabelling from %v", r.SourceLabels)
		}
		re := regexp.MustCompile("^(?:" + r.Regex + ")$")
		if m := re.FindStringSubmatchIndex(source); m != nil {
			out[r.TargetLabel] = string(re.ExpandString(nil, r.Replacement, source, m))
		}
	}
	return out
}

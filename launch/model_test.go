package launch

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// writeConfig writes a config.json into a new directory named name.
func writeConfig(t *testing.T, name, config string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestDetectModelFromConfig(t *testing.T) {
	tests := []struct {
		name   string
		dir    string
		config string
		want   Model
	}{
		{"MiniMax sparse, K-only index", "m3", `{"architectures": ["MiniMaxM3SparseForCausalLM"], "model_type": "minimax_m3",
			"text_config": {"sparse_attention_config": {"sparse_attention_freq": [0, 1, 1], "sparse_disable_index_value": [0, 1, 1]}}}`,
			Model{Arch: "MiniMaxM3SparseForCausalLM", Type: "minimax_m3", MiniMaxSparse: true}},
		{"MiniMax sparse with index values", "m3", `{"architectures": ["MiniMaxM3SparseForConditionalGeneration"],
			"sparse_attention_config": {"sparse_attention_freq": [0, 1, true], "sparse_disable_index_value": [0, 1]}}`,
			Model{Arch: "MiniMaxM3SparseForConditionalGeneration", MiniMaxSparse: true, MiniMaxIndexValue: true}},
		{"a dense model in a MiniMax-named directory", "MiniMax-M3-Sparse", `{"architectures": ["LlamaForCausalLM"], "model_type": "llama"}`,
			Model{Arch: "LlamaForCausalLM", Type: "llama"}},
		{"MiniCPM-SALA", "sala", `{"architectures": ["MiniCPMSALAForCausalLM"], "sparse_config": {"topk": 64}, "mixer_types": ["minicpm4", "lightning-attn"]}`,
			Model{Arch: "MiniCPMSALAForCausalLM", MiniCPM: true, MiniCPMSparse: true, MiniCPMHybrid: true}},
		{"MiniCPM with lightning layers only", "x", `{"architectures": ["MiniCPMSALAForCausalLM"], "sparse_config": {"topk": 64}, "mixer_types": ["lightning-attn"]}`,
			Model{Arch: "MiniCPMSALAForCausalLM", MiniCPM: true, MiniCPMHybrid: true}},
		{"MiniCPM with sparse config and no mixers", "x", `{"architectures": ["MiniCPMForCausalLM"], "sparse_config": {"topk": 64}}`,
			Model{Arch: "MiniCPMForCausalLM", MiniCPM: true, MiniCPMSparse: true, MiniCPMHybrid: true}},
		{"dense MiniCPM", "MiniCPM-SALA", `{"architectures": ["MiniCPMForCausalLM"], "sparse_config": null}`,
			Model{Arch: "MiniCPMForCausalLM", MiniCPM: true}},
		{"DeepSeek V3.2", "x", `{"architectures": ["DeepseekV32ForCausalLM"], "index_topk": 2048}`,
			Model{Arch: "DeepseekV32ForCausalLM", DSA: true}},
		{"DeepSeek V3 without an indexer", "DeepSeek-V3.2", `{"architectures": ["DeepseekV3ForCausalLM"]}`,
			Model{Arch: "DeepseekV3ForCausalLM"}},
		{"gpt-oss", "x", `{"architectures": ["GptOssForCausalLM"]}`, Model{Arch: "GptOssForCausalLM", HybridState: "SWA"}},
		{"Nemotron-H", "x", `{"architectures": ["NemotronHForCausalLM"]}`, Model{Arch: "NemotronHForCausalLM", HybridState: "MAMBA", NoTriton: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeConfig(t, tt.dir, tt.config)
			got := DetectModel(dir, "")
			tt.want.Path, tt.want.Config = dir, filepath.Join(dir, "config.json")
			if *got != tt.want {
				t.Errorf("DetectModel = %+v\nwant          %+v", *got, tt.want)
			}
			if got.Assumed() {
				t.Error("Assumed() = true for a model read from config.json")
			}
		})
	}
}

func TestDetectModelByName(t *testing.T) {
	tests := []struct {
		path string
		want Model
	}{
		{"/models/MiniMax-M3-Sparse", Model{MiniMaxSparse: true}},
		{"MiniMaxAI/MiniMax-M3", Model{MiniMaxSparse: true}},
		{"/data/minimax", Model{MiniMaxSparse: true}},
		{"MiniMaxAI/MiniMax-M2.5", Model{}},
		{"MiniMaxAI/MiniMax-M1-80k", Model{}},
		{"MiniMaxAI/MiniMax-Text-01", Model{}},
		{"openbmb/MiniCPM-SALA", Model{MiniCPM: true, MiniCPMSparse: true, MiniCPMHybrid: true}},
		{"/models/minicpm_sala/", Model{MiniCPM: true, MiniCPMSparse: true, MiniCPMHybrid: true}},
		{"openbmb/MiniCPM4-8B", Model{MiniCPM: true}},
		{"openbmb/MiniCPM-V-4_5", Model{}},
		{"deepseek-ai/DeepSeek-V3.2-Exp", Model{DSA: true}},
		{"openai/gpt-oss-120b", Model{HybridState: "SWA"}},
		{"Qwen/Qwen3-Next-80B-A3B-Instruct", Model{HybridState: "MAMBA"}},
		{"nvidia/NVIDIA-Nemotron-Nano-9B-v2", Model{HybridState: "MAMBA", NoTriton: true}},
		{"Qwen/Qwen3-8B", Model{}},
		{"/no/such/dir/Llama-3.1-8B", Model{}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := DetectModel(tt.path, "")
			tt.want.Path = tt.path
			if *got != tt.want {
				t.Errorf("DetectModel(%q) = %+v, want %+v", tt.path, *got, tt.want)
			}
			if !got.Assumed() {
				t.Error("Assumed() = false for a model known by name")
			}
		})
	}
}

func TestDetectModelHFCache(t *testing.T) {
	cache := t.TempDir()
	repo := filepath.Join(cache, "models--acme--Widget-7B")
	snap := filepath.Join(repo, "snapshots", "0123abcd")
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(repo, "refs", "main"), []byte("0123abcd\n"), 0o644)
	os.WriteFile(filepath.Join(snap, "config.json"), []byte(`{"architectures": ["MiniMaxM3SparseForCausalLM"]}`), 0o644)
	m := DetectModel("acme/Widget-7B", cache)
	if !m.MiniMaxSparse || m.Assumed() || m.Config != filepath.Join(snap, "config.json") {
		t.Errorf("DetectModel from the HF cache = %+v", *m)
	}
	if m := DetectModel("acme/Widget-7B", ""); m.MiniMaxSparse {
		t.Errorf("without the cache the name says nothing, got %+v", *m)
	}
}

func TestDetectModelBadConfig(t *testing.T) {
	dir := writeConfig(t, "MiniMax-M3", `{not json`)
	if m := DetectModel(dir, ""); !m.MiniMaxSparse || !m.Assumed() {
		t.Errorf("an unreadable config.json falls back to the name, got %+v", *m)
	}
}

// A config.json that is a named pipe or a device is not read: detection
// goes on from the path's name and never blocks.
func TestDetectModelSkipsSpecialConfigs(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "Qwen3-8B")
	os.Mkdir(model, 0o755)
	if err := syscall.Mkfifo(filepath.Join(model, "config.json"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	zero := filepath.Join(dir, "zero-model")
	os.Mkdir(zero, 0o755)
	if err := os.Symlink("/dev/zero", filepath.Join(zero, "config.json")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{model, zero} {
		done := make(chan *Model, 1)
		go func() { done <- DetectModel(p, "") }()
		select {
		case m := <-done:
			if m.Config != "" {
				t.Errorf("%s: read the config %q", p, m.Config)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: DetectModel blocked on a special config.json", p)
		}
	}
}

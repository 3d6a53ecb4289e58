package launch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/tailfix/tailfix/internal/regular"
)

// Model is what the check knows about the model a command serves: read
// from its config.json when the model is a local directory (or in the
// Hugging Face cache), else assumed from its name.
type Model struct {
	// Path is the --model-path value.
	Path string
	// Config is the config.json read, or "" when the family was assumed
	// from the name.
	Config string
	// Arch and Type are the config's first architecture and model_type.
	Arch, Type string

	// MiniMaxSparse: a MiniMax sparse-attention (M3) model, whose KV
	// transfer carries a sparse index pool.
	MiniMaxSparse bool
	// MiniMaxIndexValue: its sparse layers keep index values, not only
	// index keys (known from config.json only).
	MiniMaxIndexValue bool
	// MiniCPM: a MiniCPM causal LM (MiniCPMForCausalLM,
	// MiniCPMSALAForCausalLM); MiniCPMSparse: with MiniCPM sparse
	// attention; MiniCPMHybrid: with sparse or lightning layers.
	MiniCPM, MiniCPMSparse, MiniCPMHybrid bool
	// DSA: a DeepSeek sparse-attention model (DeepSeek V3.2 and kin).
	DSA bool
	// HybridState names the per-request state of a hybrid model without
	// MLA ("SWA", "MAMBA"), which cannot be resharded between TP sizes.
	HybridState string
	// NoTriton: a hybrid model whose first layer may not be attention,
	// which the triton attention backend cannot run.
	NoTriton bool
}

// Model families a setting can be limited to (PDSetting.Family).
const (
	// FamilyMiniMaxSparse: MiniMax sparse-attention models (Model.MiniMaxSparse).
	FamilyMiniMaxSparse = "MiniMax sparse attention"
)

// In reports whether the model is of a family, one of the Family
// constants.
func (m *Model) In(family string) bool {
	switch family {
	case FamilyMiniMaxSparse:
		return m.MiniMaxSparse
	}
	return false
}

// Assumed reports whether the family was guessed from the model's name.
func (m *Model) Assumed() bool { return m.Config == "" }

// Known reports whether any rule cares about the model.
func (m *Model) Known() bool {
	return m.MiniMaxSparse || m.MiniCPM || m.DSA || m.HybridState != "" || m.NoTriton
}

// how says how the family was found, for messages.
func (m *Model) how() string {
	if m.Assumed() {
		return "family assumed from the name; no config.json was found"
	}
	if m.Arch != "" {
		return m.Arch + " in " + m.Config
	}
	return "from " + m.Config
}

// hfConfig holds the fields of a Hugging Face config.json the rules read.
type hfConfig struct {
	Architectures         []string        `json:"architectures"`
	ModelType             string          `json:"model_type"`
	TextConfig            *hfConfig       `json:"text_config"`
	SparseAttentionConfig *minimaxSparse  `json:"sparse_attention_config"`
	SparseConfig          json.RawMessage `json:"sparse_config"`
	MixerTypes            []string        `json:"mixer_types"`
	IndexTopk             json.RawMessage `json:"index_topk"`
}

type minimaxSparse struct {
	Freq         []any `json:"sparse_attention_freq"`
	DisableValue []any `json:"sparse_disable_index_value"`
}

var (
	minimaxSparseArchs = []string{"MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration"}
	minicpmArchs       = []string{"MiniCPMForCausalLM", "MiniCPMSALAForCausalLM"}
	dsaArchs           = []string{"DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN",
		"MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM"}
	hybridArchs = map[string]string{
		"GptOssForCausalLM":          "SWA",
		"Qwen3NextForCausalLM":       "MAMBA",
		"NemotronHForCausalLM":       "MAMBA",
		"NemotronHPuzzleForCausalLM": "MAMBA",
		"FalconH1ForCausalLM":        "MAMBA",
	}
	noTritonArchs = []string{"NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "Lfm2ForCausalLM", "Lfm2MoeForCausalLM"}
)

// maxConfigBytes bounds a model's config.json: real ones are kilobytes.
const maxConfigBytes = 16 << 20

// DetectModel finds out what a --model-path is. hfCache is the Hugging
// Face hub cache directory ("" for none), where a repo id's config.json
// may already be.
func DetectModel(modelPath, hfCache string) *Model {
	m := &Model{Path: modelPath}
	for _, file := range configCandidates(modelPath, hfCache) {
		data, err := regular.ReadFile(file, maxConfigBytes)
		if err != nil {
			continue // absent, not a regular file, or too large to be a config
		}
		var cfg hfConfig
		if json.Unmarshal(data, &cfg) != nil {
			continue
		}
		m.Config = file
		m.fromConfig(&cfg)
		return m
	}
	m.fromName()
	return m
}

// HubCache is the Hugging Face hub cache directory, as the hub library
// settles it: $HF_HUB_CACHE, else $HF_HOME/hub, else
// ~/.cache/huggingface/hub under home; "" when none of them is known.
// getenv looks a variable up (the package reads no environment itself).
func HubCache(getenv func(string) string, home string) string {
	if dir := getenv("HF_HUB_CACHE"); dir != "" {
		return dir
	}
	if dir := getenv("HF_HOME"); dir != "" {
		return filepath.Join(dir, "hub")
	}
	if home != "" {
		return filepath.Join(home, ".cache", "huggingface", "hub")
	}
	return ""
}

var repoIDRE = regexp.MustCompile(`^[\w.-]+/[\w.-]+$`)

func configCandidates(modelPath, hfCache string) []string {
	if modelPath == "" {
		return nil
	}
	files := []string{filepath.Join(modelPath, "config.json")}
	if hfCache == "" || !repoIDRE.MatchString(modelPath) {
		return files
	}
	repo := filepath.Join(hfCache, "models--"+strings.ReplaceAll(modelPath, "/", "--"))
	if ref, err := regular.ReadFile(filepath.Join(repo, "refs", "main"), 4096); err == nil {
		files = append(files, filepath.Join(repo, "snapshots", strings.TrimSpace(string(ref)), "config.json"))
	}
	if snaps, err := os.ReadDir(filepath.Join(repo, "snapshots")); err == nil {
		for _, s := range snaps {
			files = append(files, filepath.Join(repo, "snapshots", s.Name(), "config.json"))
		}
	}
	return files
}

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case float64:
		return x != 0
	}
	return false
}

func (m *Model) fromConfig(cfg *hfConfig) {
	if len(cfg.Architectures) > 0 {
		m.Arch = cfg.Architectures[0]
	}
	m.Type = cfg.ModelType
	text := cfg
	if cfg.TextConfig != nil {
		text = cfg.TextConfig
	}
	sparse := cfg.SparseAttentionConfig
	if sparse == nil {
		sparse = text.SparseAttentionConfig
	}
	if slices.Contains(minimaxSparseArchs, m.Arch) {
		m.MiniMaxSparse = true
		if sparse != nil {
			for i, f := range sparse.Freq {
				if truthy(f) && (i >= len(sparse.DisableValue) || !truthy(sparse.DisableValue[i])) {
					m.MiniMaxIndexValue = true
				}
			}
		}
	}
	if slices.Contains(minicpmArchs, m.Arch) {
		m.MiniCPM = true
		hasSparse := len(cfg.SparseConfig) > 0 && string(cfg.SparseConfig) != "null"
		mixers := cfg.MixerTypes
		attn := len(mixers) == 0 || slices.ContainsFunc(mixers, func(t string) bool { return t == "minicpm4" || t == "minicpm" })
		lightning := slices.ContainsFunc(mixers, func(t string) bool {
			return t == "lightning" || t == "lightning_attn" || t == "lightning-attn"
		})
		m.MiniCPMSparse = hasSparse && attn
		m.MiniCPMHybrid = m.MiniCPMSparse || lightning
	}
	hasTopk := len(text.IndexTopk) > 0 && string(text.IndexTopk) != "null"
	m.DSA = slices.Contains(dsaArchs, m.Arch) && hasTopk
	m.HybridState = hybridArchs[m.Arch]
	m.NoTriton = slices.Contains(noTritonArchs, m.Arch)
}

// ModelFromName is what the name of a model path tells of the model,
// without looking for its config.json: for a path a log names, which may
// be on another machine.
func ModelFromName(modelPath string) *Model {
	m := &Model{Path: modelPath}
	m.fromName()
	return m
}

// fromName guesses the family from the model's name: the last two path
// elements, so that org/name repo ids and local directories both work.
func (m *Model) fromName() {
	name := strings.ToLower(strings.TrimRight(m.Path, "/"))
	if i := strings.LastIndex(name, "/"); i >= 0 {
		if j := strings.LastIndex(name[:i], "/"); j >= 0 {
			name = name[j+1:]
		}
	}
	flat := strings.NewReplacer("-", "", "_", "", ".", "").Replace(name)
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(flat, x) {
				return true
			}
		}
		return false
	}
	switch {
	case has("minimax"):
		// M1 (lightning attention), M2 and Text-01/VL-01 are dense; the
		// sparse-index family is M3.
		m.MiniMaxSparse = has("m3", "sparse") || !has("minimaxm1", "minimaxm2", "minimaxtext", "minimaxvl", "abab")
	case has("minicpm"):
		if has("minicpmv", "minicpmo") {
			break // the multimodal MiniCPM-V / MiniCPM-o models
		}
		m.MiniCPM = true
		m.MiniCPMSparse = has("sala")
		m.MiniCPMHybrid = m.MiniCPMSparse
	case has("deepseekv32", "deepseekv3.2"):
		m.DSA = true
	case has("gptoss"):
		m.HybridState = "SWA"
	case has("qwen3next"):
		m.HybridState = "MAMBA"
	case has("nemotronh") || has("nemotronnano") && strings.HasSuffix(flat, "v2"):
		m.HybridState, m.NoTriton = "MAMBA", true
	case has("lfm2"):
		m.NoTriton = true
	}
}

// describe names the model, its family and how the family is known, for
// messages: "/models/X, a MiniMax sparse-attention model (…)".
func (m *Model) describe(family string) string {
	return fmt.Sprintf("%s, a %s (%s)", Quote(m.Path), family, m.how())
}

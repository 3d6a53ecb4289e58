package tailfixprocessor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/confmap"
)

// A configuration as a collector's YAML gives it is read into Config;
// what it leaves out keeps the default.
func TestConfigUnmarshal(t *testing.T) {
	dir := t.TempDir()
	conf := confmap.NewFromStringMap(map[string]any{
		"patterns":     []any{dir},
		"min_severity": "warning",
		"idle_timeout": "90s",
		"stream_keys":  []any{"k8s.pod.name"},
	})
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	if err := conf.Unmarshal(cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Patterns) != 1 || cfg.Patterns[0] != dir || cfg.MinSeverity != "warning" ||
		cfg.IdleTimeout != 90*time.Second || strings.Join(cfg.StreamKeys, ",") != "k8s.pod.name" || cfg.MaxStreams != 1000 {
		t.Errorf("read %+v", cfg)
	}
	bad := confmap.NewFromStringMap(map[string]any{"min_severty": "warning"})
	if err := bad.Unmarshal(NewFactory().CreateDefaultConfig()); err == nil || !strings.Contains(err.Error(), "min_severty") {
		t.Errorf("a misspelt key: %v; want an error naming it", err)
	}
}

// Each bad value is refused with an error that names its key and says
// what would do.
func TestConfigValidate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string // in the error; "" for none
	}{
		{"default", func(*Config) {}, ""},
		{"severity", func(c *Config) { c.MinSeverity = "critical" }, `min_severity: invalid severity "critical" (valid: info, warning, error, fatal)`},
		{"no severity", func(c *Config) { c.MinSeverity = "" }, `min_severity: invalid severity ""`},
		{"idle timeout", func(c *Config) { c.IdleTimeout = 0 }, "idle_timeout: must be more than 0, such as 10m"},
		{"max streams", func(c *Config) { c.MaxStreams = -1 }, "max_streams: must be at least 1 (is -1)"},
		{"empty key", func(c *Config) { c.StreamKeys = []string{"k8s.pod.name", ""} }, "stream_keys[1]: empty attribute name"},
		{"no keys", func(c *Config) { c.StreamKeys = nil }, ""},
		{"missing patterns", func(c *Config) { c.Patterns = []string{"/nonexistent/tailfix"} }, "patterns: stat /nonexistent/tailfix: no such file or directory"},
		{"patterns file", func(c *Config) { c.Patterns = []string{file} }, "is not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := createDefaultConfig()
			tc.set(cfg)
			err := cfg.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v; want one with %q", err, tc.want)
			}
		})
	}
}

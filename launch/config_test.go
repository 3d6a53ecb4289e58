package launch

import (
	"testing"

	"github.com/tailfix/tailfix/patterns"
)

// A parsed command answers like a server configuration: given values,
// sglang's defaults, typed integers and switches.
func TestCommandAsConfig(t *testing.T) {
	table, err := patterns.Flags()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse([]string{"python", "-m", "sglang.launch_server", "--model-path", "M", "--tp", "4",
		"--pp-size=2", "--disaggregation-mode", "prefill", "--enable-dp-attention"}, "command line", table)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		dest string
		want any
	}{
		{"tp_size", int64(4)}, {"pp_size", int64(2)}, {"disaggregation_mode", "prefill"},
		{"enable_dp_attention", true}, {"model_path", "M"}, {"dp_size", int64(1)},
	} {
		if got, ok := c.Lookup(tt.dest); !ok || got != tt.want {
			t.Errorf("Lookup(%q) = %#v, %v; want %#v", tt.dest, got, ok, tt.want)
		}
	}
	if _, ok := c.Lookup("no_such_setting"); ok {
		t.Error("an unknown setting was found")
	}
	if _, ok := c.Lookup("--tp-size"); ok {
		t.Error("a flag name is not a setting's name")
	}
}

package patterns

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLearnFlags(t *testing.T) {
	src := `
BACKENDS = ["triton", "flashinfer"]

class ServerArgs:
    tp_size: A[int, Arg(help="Tensor parallel size.", aliases=["--tensor-parallel-size", "--tp"]), NS("parallel")] = 1
    log_level: A[Optional[Literal["info", "debug"]], "The logging level."] = "info"
    enable_metrics: A[bool, "Export metrics."] = False
    strict: A[bool, Arg(help="Strict loading.", action=argparse.BooleanOptionalAction)] = False
    ep_join_mode: A[Optional[str], Arg(cli_name="--elastic-ep-join-mode", choices=["scale", "recover"])] = None
    hook: A[Optional[Callable], Arg(no_cli=True)] = None
    plain: int = 3

    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--attention-backend", type=str, choices=BACKENDS, default=None, help="The backend.")
        parser.add_argument("--disable-flashinfer", action=DeprecatedAction, help="Deprecated: use --attention-backend.")
        parser.add_argument("-q", "--quiet", action="store_true")
        parser.add_argument("--model-path", "--model", dest="model_path", required=True)
`
	fs, err := LearnFlags("server_args.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s dest=%s choices=%s switch=%v deprecated=%v line=%d",
			strings.Join(f.Names, ","), f.Dest, strings.Join(f.Choices, "|"), f.Switch(), f.Deprecated, f.Line))
	}
	want := []string{
		"--tp-size,--tensor-parallel-size,--tp dest=tp_size choices= switch=false deprecated=false line=5",
		"--log-level dest=log_level choices=info|debug switch=false deprecated=false line=6",
		"--enable-metrics dest=enable_metrics choices= switch=true deprecated=false line=7",
		"--strict,--no-strict dest=strict choices= switch=true deprecated=false line=8",
		"--elastic-ep-join-mode dest=ep_join_mode choices=scale|recover switch=false deprecated=false line=9",
		"--attention-backend dest=attention_backend choices=triton|flashinfer switch=false deprecated=false line=15",
		"--disable-flashinfer dest=disable_flashinfer choices= switch=true deprecated=true line=16",
		"--quiet,-q dest=quiet choices= switch=true deprecated=false line=17",
		"--model-path,--model dest=model_path choices= switch=false deprecated=false line=18",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// What a flag table needs of each flag: the type its value is read as,
// nargs, the default and the help.
func TestLearnFlagFields(t *testing.T) {
	src := `class ServerArgs:
    cuda_graph_bs: A[Optional[List[int]], "Batch sizes to capture. More text."] = None
    ports: A[Optional[List[int]], Arg(help="Group ports.", type_parser=json_list_type)] = None
    mode: A[Literal[1, 2], "The mode."] = 2
    paths: A[Optional[Union[List[str], dict]], Arg(action=PathAction, action_kwargs={"type": str, "nargs": "*"})] = None
    quant: A[Optional[Union[str, Dict]], ("The quantization. " "Supported: fp8.")] = None
    ratio: A[float, "A ratio."] = 0.9
    name: A[str, "The name."] = "auto"
    old: A[bool, "Deprecated. Use --new."] = False

    def add(parser):
        parser.add_argument("--legacy", action=DeprecatedStoreTrueAction, help="Old switch.")
        parser.add_argument("--size", type=int, nargs="+", default=[1, 2])
`
	fs, err := LearnFlags("server_args.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s type=%s nargs=%s default=%s switch=%v deprecated=%v help=%q choices=%s",
			f.Names[0], f.Type, f.Nargs, f.Default, f.Switch(), f.Deprecated, FirstSentence(f.Help), strings.Join(f.Choices, "|")))
	}
	want := []string{
		`--cuda-graph-bs type=int nargs=+ default=null switch=false deprecated=false help="Batch sizes to capture." choices=`,
		`--ports type=json_list_type nargs= default=null switch=false deprecated=false help="Group ports." choices=`,
		`--mode type=int nargs= default=2 switch=false deprecated=false help="The mode." choices=1|2`,
		`--paths type=str nargs=* default=null switch=false deprecated=false help="" choices=`,
		`--quant type=str nargs= default=null switch=false deprecated=false help="The quantization." choices=`,
		`--ratio type=float nargs= default=0.9 switch=false deprecated=false help="A ratio." choices=`,
		`--name type=str nargs= default="auto" switch=false deprecated=false help="The name." choices=`,
		`--old type= nargs= default=false switch=true deprecated=true help="Deprecated." choices=`,
		`--legacy type= nargs= default= switch=true deprecated=true help="Old switch." choices=`,
		`--size type=int nargs=+ default=[1, 2] switch=false deprecated=false help="" choices=`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A flag table read from an installed sglang: the ServerArgs module and its
// argument groups, each flag once, with the table's lookups by spelling and
// by dest, and defaults written as the generator writes them.
func TestLearnFlagTable(t *testing.T) {
	fsys := fstest.MapFS{
		"srt/server_args.py": {Data: []byte(`class ServerArgs:
    tp_size: A[int, Arg(help="Tensor parallel size. More.", aliases=["--tp"])] = 1
    mem_fraction_static: A[Optional[float], "The fraction."] = None
    schedule_conservativeness: A[float, "How conservative."] = 1.0

    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--radix-eviction-policy", choices=["lru", "lfu", "tlru"], default="lru")
        parser.add_argument("--tp-size", type=int)
`)},
		"srt/arg_groups/pd.py":  {Data: []byte(`parser.add_argument("--enable-pd-role-switch", action="store_true")` + "\n")},
		"srt/arg_groups/README": {Data: []byte("parser.add_argument(\"--not-python\")\n")},
	}
	tab, err := LearnFlagTable(fsys, "0.5.99")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Release != "0.5.99" || len(tab.Flags) != 5 {
		t.Fatalf("release %q, %d flags: %v", tab.Release, len(tab.Flags), tab.Flags)
	}
	tests := []struct {
		name, dest, def, nargs, choices string
	}{
		{"--tp", "tp_size", "1", "", ""},
		{"mem_fraction_static", "mem_fraction_static", "", "", ""},
		{"--schedule-conservativeness", "schedule_conservativeness", "1", "", ""},
		{"--radix-eviction-policy", "radix_eviction_policy", `"lru"`, "", "lru|lfu|tlru"},
		{"--enable-pd-role-switch", "enable_pd_role_switch", "", "0", ""},
	}
	for _, tt := range tests {
		fl := tab.Lookup(tt.name)
		if fl == nil {
			t.Errorf("%s: not in the table", tt.name)
			continue
		}
		if fl.Dest != tt.dest || fl.Default != tt.def || fl.Nargs != tt.nargs || strings.Join(fl.Choices, "|") != tt.choices {
			t.Errorf("%s: dest %q default %q nargs %q choices %v", tt.name, fl.Dest, fl.Default, fl.Nargs, fl.Choices)
		}
	}
	if fl := tab.Lookup("--tp-size"); fl == nil || fl.Help != "Tensor parallel size." || fl.DefinedAt != "python/sglang/srt/server_args.py:2" {
		t.Errorf("--tp-size: the first definition wins: %+v", fl)
	}
	if tab.Lookup("--not-python") != nil {
		t.Error("a file that is not Python was read")
	}
	if _, err := LearnFlagTable(fstest.MapFS{"x.py": {Data: []byte("x = 1\n")}}, ""); !errors.Is(err, ErrNoFlagFiles) {
		t.Errorf("a tree without server_args.py: %v", err)
	}
}

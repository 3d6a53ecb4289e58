package patterns

import (
	"fmt"
	"strings"
	"testing"
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

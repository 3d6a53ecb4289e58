package pyrepr_test

import (
	"fmt"

	"github.com/tailfix/tailfix/pyrepr"
)

func ExampleParseServerArgs() {
	line := []byte(`[2026-09-03 14:20:58] server_args=ServerArgs(model_path='/models/MiniMax-M3-Sparse', ` +
		`tp_size=4, mem_fraction_static=0.82, cuda_graph_config=CudaGraphConfig(decode=PhaseConfig(backend='full', ` +
		`max_bs=256, bs=[1, 2, 4])), json_model_override_args='{}', ib_device='mlx5_0,mlx5_1', disable_radix_cache=Fal`)
	text, ok := pyrepr.FindServerArgs(line)
	if !ok {
		return
	}
	a := pyrepr.ParseServerArgs(text)
	tp, _ := a.Int("tp_size")
	model, _ := a.String("model_path")
	fmt.Println(tp, model, a.Flag("cuda_graph_config.decode.bs"), a.Flag("ib_device"))
	fmt.Println(len(a.Order), "fields, complete:", a.Complete)
	// Output:
	// 4 /models/MiniMax-M3-Sparse 1 2 4 mlx5_0,mlx5_1
	// 6 fields, complete: false
}

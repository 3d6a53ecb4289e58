package launch_test

import (
	"fmt"

	"github.com/tailfix/tailfix/launch"
	"github.com/tailfix/tailfix/patterns"
)

func ExampleParseText() {
	table, _ := patterns.Flags()
	c, err := launch.ParseText(`CUDA_VISIBLE_DEVICES=0,1 python -m sglang.launch_server \
  --model-path Qwen/Qwen3-8B --tp 2 --tp-szie 2`, "command line", table)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Str("model_path"), c.IntOr("tp_size", 1))
	for _, is := range launch.Check(c, launch.Options{}) {
		fmt.Println(is.ID)
	}
	_, err = launch.ParseText(`sglang serve --model-path "Qwen/Qwen3-8B`, "prefill command", table)
	fmt.Println(err)
	// Output:
	// Qwen/Qwen3-8B 2
	// sglang/unrecognized-arguments
	// cannot split the prefill command: unterminated quote: " opened at byte 27
}

func ExampleParseWrapped() {
	table, _ := patterns.Flags()
	c, err := launch.ParseWrapped([]string{"./serve.sh", "--model-path", "/models/m", "--page-size", "64"}, "command line", table)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Str("model_path"), c.Str("page_size"))
	// Output:
	// /models/m 64
}

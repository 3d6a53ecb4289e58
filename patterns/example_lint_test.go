package patterns_test

import (
	"fmt"

	"github.com/tailfix/tailfix/patterns"
)

func ExamplePack_Lint() {
	pack, _ := patterns.Builtin()
	fmt.Println(len(pack.Lint()), "problems")
	// Output:
	// 0 problems
}

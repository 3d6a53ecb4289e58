package matcher_test

import (
	"fmt"
	"strings"

	"github.com/tailfix/tailfix/matcher"
	"github.com/tailfix/tailfix/patterns"
)

func ExampleMatcher_LintHealthy() {
	pack, _ := patterns.Builtin()
	m, _ := matcher.Compile(pack)
	healthy := "[2026-11-29 10:15:02 TP0] Load weight begin. avail mem=78.52 GB\n"
	problems, lines, err := m.LintHealthy(strings.NewReader(healthy), "healthy.log", nil)
	fmt.Println(len(problems), "problems in", lines, "lines", err)
	failures, _ := m.TestRecords()
	fmt.Println(len(failures), "record tests failed")
	// Output:
	// 0 problems in 1 lines <nil>
	// 0 record tests failed
}

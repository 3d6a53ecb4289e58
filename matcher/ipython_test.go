package matcher

import (
	"fmt"
	"testing"
)

// TestIPythonTraceback reads tracebacks as IPython and Colab print them:
// a rule, the class before the head, frames as file or cell and
// function, numbered lines of code, blank lines between frames.
func TestIPythonTraceback(t *testing.T) {
	m := testMatcher(t)
	const want = `unknown/traceback 2-14 rank="" time="" exc="KeyError" msg="'lm_head.weight_scale'"` + "\n"
	for _, tt := range ipythonLogs {
		for _, piece := range []int{0, 1, 7} {
			t.Run(fmt.Sprintf("%s/piece=%d", tt.name, piece), func(t *testing.T) {
				if got := withTime(occurrences(t, m, tt.log, piece)); got != want {
					t.Errorf("got:\n%s\nwant:\n%s", got, want)
				}
			})
		}
	}
}

// ipythonLogs are one traceback as each IPython release and Colab print
// it, their frame lines told apart; they seed FuzzEngine too.
var ipythonLogs = []struct{ name, log string }{
	{"colab", ipythonTB("[<ipython-input-4-1f2e3d4c5b6a>](https://localhost:8080/#) in <cell line: 3>()", "[/opt/app/loader.py](https://localhost:8080/#) in load_weights(model)")},
	{"classic", ipythonTB("<ipython-input-4-1f2e3d4c5b6a> in <module>", "/opt/app/loader.py in load_weights(model)")},
	{"ipython 8", ipythonTB("Cell In[4], line 3", "File /opt/app/loader.py:88, in load_weights(model)")},
}

// ipythonTB is IPython's traceback of a KeyError raised in a file's
// function that a notebook cell called, with the frame lines given.
func ipythonTB(cell, file string) string {
	return lines(
		"---------------------------------------------------------------------------",
		"KeyError                                  Traceback (most recent call last)",
		cell,
		"      1 import loader",
		"      2 ",
		"----> 3 loader.load_weights(model)",
		"",
		file,
		"     86     for name, w in weights:",
		"     87 ",
		"---> 88         param = params_dict[name]",
		"     89         param.copy_(w)",
		"",
		"KeyError: 'lm_head.weight_scale'",
	)
}

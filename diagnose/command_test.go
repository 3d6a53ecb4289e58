package diagnose

import (
	"fmt"
	"testing"
)

// A launch command the log shows stands for the server's configuration
// where sglang logged none: before the error or after it, on one line or
// continued over several, behind a prompt, a script's trace or a shell's
// job report. sglang's own server_args line wins over it.
func TestLaunchCommandInTheLog(t *testing.T) {
	const oom = "[2026-01-25 01:19:08 TP0] Scheduler hit an exception: Traceback (most recent call last):\n" +
		"  File \"/x/model_runner.py\", line 1090, in load_model\n" +
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
	const serverArgs = "[2026-01-25 01:19:00] server_args=ServerArgs(model_path='/models/from-server-args', tp_size=8, mem_fraction_static=0.7)\n"
	tests := []struct {
		name, log string
		want      map[string]any // field: value; nil: the field is not known
	}{
		{
			name: "a prompt before the error",
			log:  "$ python3 -m sglang.launch_server --model-path /models/q --tp-size 4 --mem-fraction-static 0.85\n" + oom,
			want: map[string]any{"model_path": "/models/q", "tp_size": int64(4), "mem_fraction_static": "0.85"},
		},
		{
			name: "continued over lines that end in a backslash",
			log: "+ python -m sglang.launch_server \\\n" +
				"    --model-path Qwen/Qwen3-8B \\\n" +
				"    --tp-size 2 \\\n" +
				"    --port 31000\n" + oom,
			want: map[string]any{"model_path": "Qwen/Qwen3-8B", "tp_size": int64(2), "port": int64(31000)},
		},
		{
			name: "a shell's job report after the crash",
			log:  oom + "./run.sh: line 7: 2502678 Killed                  python3 -m sglang.launch_server --model-path M --tp-size 2\n",
			want: map[string]any{"model_path": "M", "tp_size": int64(2)},
		},
		{
			name: "sglang serve",
			log:  "root@gpu-3:~# sglang serve --model-path /m --tp 8\n" + oom,
			want: map[string]any{"model_path": "/m", "tp_size": int64(8)},
		},
		{
			name: "the server's own configuration wins",
			log:  "$ python3 -m sglang.launch_server --model-path /models/q --tp-size 4\n" + serverArgs + oom,
			want: map[string]any{"model_path": "/models/from-server-args", "tp_size": int64(8)},
		},
		{
			name: "a warning that names the module is no command",
			log:  "/x/launch_server.py:56: UserWarning: 'python -m sglang.launch_server ' is still supported\n" + oom,
			want: map[string]any{"model_path": nil},
		},
		{
			name: "no command",
			log:  oom,
			want: map[string]any{"model_path": nil},
		},
	}
	m := testMatcher(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f *Finding
			for _, x := range scanText(t, m, tt.log).Findings() {
				if x.ID == "t/oom" {
					f = x
				}
			}
			if f == nil {
				t.Fatal("no t/oom finding")
			}
			for field, want := range tt.want {
				var got any
				if f.Config != nil {
					if v, ok := f.Config.Lookup(field); ok {
						got = v
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s = %v, want %v", field, got, want)
				}
			}
		})
	}
}

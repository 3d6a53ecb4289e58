package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"tailfix": main})
}

// TestScripts runs the end-to-end scripts in testdata/script. Each script
// finds the sample logs in logs/. Set UPDATE_GOLDEN=1 to rewrite the golden
// files inside the scripts from the actual output.
func TestScripts(t *testing.T) {
	logs, err := filepath.Abs("../../testdata/logs")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "../../testdata/script",
		UpdateScripts: os.Getenv("UPDATE_GOLDEN") != "",
		Setup: func(env *testscript.Env) error {
			return os.CopyFS(filepath.Join(env.WorkDir, "logs"), os.DirFS(logs))
		},
	})
}

// TAILFIX_CPUPROFILE names a file the run's CPU profile is written to; an
// unwritable one is reported and the run goes on.
func TestProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.out")
	var stderr strings.Builder
	stop := profile(path, &stderr)
	stop()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 || stderr.Len() != 0 {
		t.Errorf("profile(%q): %v, stderr %q; want a profile written", path, err, stderr.String())
	}
	profile(filepath.Join(t.TempDir(), "no", "such", "dir"), &stderr)()
	if !strings.Contains(stderr.String(), "TAILFIX_CPUPROFILE") {
		t.Errorf("unwritable profile: stderr %q, want it named", stderr.String())
	}
	profile("", &stderr)() // nothing to do
}

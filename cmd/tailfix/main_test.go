package main

import (
	"os"
	"path/filepath"
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

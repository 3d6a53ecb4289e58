// Command deps reads the Python sources of the libraries sglang runs on
// and writes, for each, a table of the errors its code raises, in the
// form of the built-in table of sglang's own (generated/sites.tsv):
//
//	go run ./internal/deps -mirrors DIR -out generated/deps
//
// DIR holds a git directory of each library as owner+name/repo (a clone
// or a snapshot); its newest commit is read. Only raise and assert sites
// are kept: a library's exception reaches sglang's log in a traceback,
// while its log calls are its own business. Each table's ids are the
// library's ("flashinfer-src/jit.core/…"), and its records name the
// library's repository and commit, so that a finding links to the code.
//
// The output is committed: the binary embeds it, and neither go generate
// nor the tests need the libraries.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing/fstest"

	"github.com/tailfix/tailfix/patterns"
)

// A lib is a library whose raise sites are read: its repository, and the
// directory in it that holds the package sglang imports.
type lib struct {
	name, repo, dir string
}

var libs = []lib{
	{"flashinfer", "flashinfer-ai/flashinfer", "flashinfer"},
	{"huggingface_hub", "huggingface/huggingface_hub", "src/huggingface_hub"},
	{"xgrammar", "mlc-ai/xgrammar", "python/xgrammar"},
	{"deep_gemm", "deepseek-ai/DeepGEMM", "deep_gemm"},
	{"mooncake", "kvcache-ai/Mooncake", "mooncake-wheel/mooncake"},
	{"nixl", "ai-dynamo/nixl", "src/api/python"},
	{"aiter", "ROCm/aiter", "aiter"},
}

func main() {
	mirrors := flag.String("mirrors", "", "directory holding owner+name/repo git directories")
	out := flag.String("out", "generated/deps", "output directory")
	flag.Parse()
	if *mirrors == "" {
		fmt.Fprintln(os.Stderr, "deps: -mirrors is required")
		os.Exit(2)
	}
	for _, l := range libs {
		n, err := build(l, filepath.Join(*mirrors, strings.Replace(l.repo, "/", "+", 1), "repo"), *out)
		if err != nil {
			fmt.Fprintf(os.Stderr, "deps: %s: %v\n", l.name, err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "deps: %s: %d records\n", l.name, n)
	}
}

// build writes the table of one library from the newest commit of its
// git directory, and returns how many records it holds.
func build(l lib, gitDir, out string) (int, error) {
	commit, err := exec.Command("git", "--git-dir", gitDir, "rev-parse", "HEAD").Output()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", gitDir, err)
	}
	fsys, err := tree(gitDir, string(bytes.TrimSpace(commit)), l.dir)
	if err != nil {
		return 0, err
	}
	sites, _, err := patterns.LearnSites(fsys)
	if err != nil {
		return 0, err
	}
	all, _ := patterns.Messages(sites, l.dir+"/")
	var msgs []patterns.Message
	for _, m := range all {
		if m.Kind == "raise" || m.Kind == "assert" {
			m.Commit = string(bytes.TrimSpace(commit))
			msgs = append(msgs, m)
		}
	}
	table, st := patterns.BuildTable(msgs, nil, patterns.TableSource{Repo: l.repo, Prefix: l.dir + "/", Family: l.name + "-src"})
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, err
	}
	return st.Records, os.WriteFile(filepath.Join(out, l.name+".tsv"), table, 0o644)
}

// tree reads the Python files under dir at commit into memory.
func tree(gitDir, commit, dir string) (fstest.MapFS, error) {
	cmd := exec.Command("git", "--git-dir", gitDir, "archive", commit, dir)
	var buf bytes.Buffer
	cmd.Stdout = &buf
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git archive %s: %w", dir, err)
	}
	fsys := fstest.MapFS{}
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fsys, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg || path.Ext(h.Name) != ".py" {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		fsys[strings.TrimPrefix(h.Name, dir+"/")] = &fstest.MapFile{Data: data}
	}
}

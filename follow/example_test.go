package follow_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailfix/tailfix/follow"
)

// New takes each file's end at once; what is written before Run, while
// the caller gets ready, is still read.
func ExampleNew() {
	dir, err := os.MkdirTemp("", "follow")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "server.log")
	os.WriteFile(path, []byte("written before New\n"), 0o644)

	f, err := follow.New([]string{path, filepath.Join(dir, "decode-*.log")}, follow.Options{
		Notice: func(_, msg string) { fmt.Println("note:", strings.ReplaceAll(msg, dir, "DIR")) },
	})
	if err != nil {
		log.Fatal(err)
	}
	w, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	w.WriteString("written after New\n")
	w.Close()

	ctx, cancel := context.WithCancel(context.Background())
	f.Run(ctx, func(c follow.Chunk) {
		fmt.Printf("%s break=%v restart=%v %q\n", filepath.Base(c.Path), c.Break, c.Restart, c.Data)
		cancel()
	})
	// Output:
	// note: no file matches DIR/decode-*.log yet; waiting
	// server.log break=true restart=false "written after New\n"
}

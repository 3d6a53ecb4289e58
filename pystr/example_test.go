package pystr_test

import (
	"fmt"

	"github.com/tailfix/tailfix/pystr"
)

func ExampleRead() {
	src := `raise ValueError(f"tp_size={tp_size} must divide {n!r}\n")`
	lit, err := pystr.Read(src, 17)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q ends at %d\n", src[lit.Start:lit.End], lit.End)
	for _, p := range lit.Parts {
		if p.Field != "" {
			fmt.Printf("field %s\n", p.Field)
		} else {
			fmt.Printf("text  %q\n", p.Text)
		}
	}
	_, err = pystr.Read(`x = 'it\'s`, 4)
	fmt.Println(err)
	// Output:
	// "f\"tp_size={tp_size} must divide {n!r}\\n\"" ends at 57
	// text  "tp_size="
	// field {tp_size}
	// text  " must divide "
	// field {n!r}
	// text  "\n"
	// byte 4: unterminated string literal
}

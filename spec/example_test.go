package spec_test

import (
	"fmt"

	"github.com/macrokit/macrokit-go/spec"
)

// A spec with a typo in a role: LoadFiles reports it with the file, line
// and column, the path of the value in the document, and a suggestion.
func ExampleLoadFiles() {
	src := `macrokit: 1
name: open_menu
version: 1.0.0
intent: open the main menu
risk: read
steps:
  - goto: https://example.com/
  - click: {role: buton, name: Menu}
`
	_, diags := spec.LoadFiles([]spec.File{{Path: "macros.d/open_menu.yaml", Data: []byte(src)}}, spec.Options{})
	for _, d := range diags {
		fmt.Println(d)
	}
	// Output:
	// macros.d/open_menu.yaml:8:19: steps[1].click.role: unknown role "buton" (did you mean "button")
}

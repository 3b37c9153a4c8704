package gen_test

import (
	"fmt"
	"log"
	"slices"

	"github.com/macrokit/macrokit-go/gen"
	"github.com/macrokit/macrokit-go/spec"
)

// Generate turns a checked set into one file per macro plus the registry.
func ExampleGenerate() {
	src := `macrokit: 1
name: open_menu
version: 1.0.0
intent: open the main menu
risk: read
steps:
  - goto: https://example.com/
  - click: {role: button, name: Menu}
    expect: [{element_state: {target: {role: button, name: Menu}, state: expanded}}]
`
	set, diags := spec.LoadFiles([]spec.File{{Path: "macros.d/open_menu.yaml", Data: []byte(src)}}, spec.Options{})
	if len(diags) > 0 {
		log.Fatal(diags)
	}
	files, err := gen.Generate(set, gen.Options{Package: "macros"})
	if err != nil {
		log.Fatal(err)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Println(name, gen.IsGenerated(files[name]))
	}
	// Output:
	// open_menu.go true
	// registry.go true
}

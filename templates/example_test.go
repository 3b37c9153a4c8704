package templates_test

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/macrokit/macrokit-go/templates"
)

// The files `macrokit init` renders into a new deployment, and where each
// lands: the .tmpl suffix dropped, __name__ replaced by the binary's name
// (here "shop").
func Example() {
	err := fs.WalkDir(templates.Deploy, "deploy", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, "deploy/")
		out := strings.ReplaceAll(strings.TrimSuffix(rel, ".tmpl"), "__name__", "shop")
		fmt.Printf("%-40s -> %s\n", rel, out)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// .gitignore.tmpl                          -> .gitignore
	// Makefile.tmpl                            -> Makefile
	// README.md.tmpl                           -> README.md
	// cmd/__name__/main.go.tmpl                -> cmd/shop/main.go
	// fixtures/README.md.tmpl                  -> fixtures/README.md
	// generated/doc.go.tmpl                    -> generated/doc.go
	// go.mod.tmpl                              -> go.mod
	// macrokit.yaml.tmpl                       -> macrokit.yaml
	// macros.d/greet.yaml.tmpl                 -> macros.d/greet.yaml
	// primitives/doc.go.tmpl                   -> primitives/doc.go
	// primitives/primitives.go.tmpl            -> primitives/primitives.go
	// primitives/primitives_test.go.tmpl       -> primitives/primitives_test.go
}

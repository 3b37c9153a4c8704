package spec

import (
	"path/filepath"
	"testing"
)

// validDir holds the valid specs of the compiler's golden corpus (golden/,
// driven by package gen's TestGolden); spec's unit tests parse them too.
const validDir = "../golden/spec_valid/macros.d"

// corpusSpec is the path of spec file name.yaml in the golden corpus.
func corpusSpec(t testing.TB, name string) string {
	t.Helper()
	paths, err := filepath.Glob("../golden/*/macros.d/" + name + ".yaml")
	if err != nil || len(paths) != 1 {
		t.Fatalf("golden corpus: %d files %s.yaml (%v)", len(paths), name, err)
	}
	return paths[0]
}

// testPrimitives is the primitive registry the tests use.
var testPrimitives = map[string]Signature{
	"classify": {
		Params: []*Property{
			{Name: "text", Type: Scalar(KindString), Required: true},
			{Name: "labels", Type: ArrayOf(Scalar(KindString)), Required: true},
		},
		Result: Scalar(KindString),
		Doc:    "classify text into one of the labels",
	},
	"urgency": {
		Params: []*Property{{Name: "text", Type: Scalar(KindString), Required: true}},
		Result: Scalar(KindNumber),
	},
	"notify": {
		Params: []*Property{{Name: "message", Type: Scalar(KindString), Required: true}},
	},
}

// testOptions check lookup steps against the repository's bundles (refdata/).
var testOptions = Options{Primitives: testPrimitives, Refdata: "../refdata"}

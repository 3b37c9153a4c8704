package spec

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

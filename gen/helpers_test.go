package gen

import "github.com/macrokit/macrokit-go/spec"

// testPrimitives is the primitive registry of the golden cases (the same
// signatures as package spec's tests).
var testPrimitives = map[string]spec.Signature{
	"classify": {
		Params: []*spec.Property{
			{Name: "text", Type: spec.Scalar(spec.KindString), Required: true},
			{Name: "labels", Type: spec.ArrayOf(spec.Scalar(spec.KindString)), Required: true},
		},
		Result: spec.Scalar(spec.KindString),
		Doc:    "classify text into one of the labels",
	},
	"urgency": {
		Params: []*spec.Property{{Name: "text", Type: spec.Scalar(spec.KindString), Required: true}},
		Result: spec.Scalar(spec.KindNumber),
	},
	"multiply": {
		Params: []*spec.Property{
			{Name: "x", Type: spec.Scalar(spec.KindNumber), Required: true},
			{Name: "by", Type: spec.Scalar(spec.KindNumber), Required: true},
		},
		Result: spec.Scalar(spec.KindNumber),
	},
	"badge_text": {
		Params: []*spec.Property{{Name: "index", Type: spec.Scalar(spec.KindInteger), Required: true}},
		Result: spec.Scalar(spec.KindString),
		Doc:    "the name of a badged element (takes the call's page)",
		Page:   true,
	},
	"notify": {
		Params: []*spec.Property{{Name: "message", Type: spec.Scalar(spec.KindString), Required: true}},
	},
}

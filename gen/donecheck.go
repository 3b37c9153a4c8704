package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/macrokit/macrokit-go/spec"
)

// doneCheck renders a spec's done_check as the fields of a
// runtime.DoneCheck: the read macro, a function of the typed parameters
// building its arguments (only parameters are in scope, so it is a plain
// expression), and the result conditions.
func (g *generator) doneCheck(m *macroInfo, d *spec.DoneCheck) ([]jen.Code, error) {
	f := newFn(g, m)
	sc := &stepCtx{f: f, path: func() jen.Code { return jen.Lit("done_check") }, kind: "done_check"}
	args := f.args(d.Call.Args, sc)
	if len(sc.pre) > 0 {
		return nil, fmt.Errorf("done_check: arguments that need statements to build are not supported")
	}
	build := jen.Func().Params(jen.Id("p").Id(m.params)).Map(jen.String()).Any().Block(jen.Return(args))
	var wants []jen.Code
	for _, w := range d.Done {
		if !w.Op.Valid() {
			return nil, fmt.Errorf("done_check: unknown operator %q", w.Op)
		}
		arg, err := canonicalJSON(w.Arg)
		if err != nil {
			return nil, fmt.Errorf("done_check: done %s: %w", w.Field, err)
		}
		wants = append(wants, jen.Values(jen.Id("Field").Op(":").Lit(w.Field), jen.Id("Op").Op(":").Add(opConst(w.Op)),
			jen.Id("Arg").Op(":").Qual(pkgJSON, "RawMessage").Call(stringLit(string(arg)))))
	}
	return []jen.Code{
		jen.Id("Macro").Op(":").Lit(d.Call.Macro),
		jen.Id("Args").Op(":").Qual(pkgRuntime, "DoneArgs").Call(build),
		jen.Id("Done").Op(":").Index().Qual(pkgRuntime, "Want").Values(multiline(wants)...),
	}, nil
}

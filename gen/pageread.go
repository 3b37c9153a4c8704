package gen

import (
	"github.com/dave/jennifer/jen"
	"github.com/macrokit/macrokit-go/spec"
)

// pageRead compiles an action_menu or annotated_screenshot step: the
// runtime's read, converted into the variable's generated type (the value
// is JSON-shaped: runtime.MenuEntry, runtime.AnnotatedShot).
func (f *fn) pageRead(s *spec.Step, sc *stepCtx) []jen.Code {
	if a := s.ActionMenu; a != nil {
		req := []jen.Code{}
		if a.Within != nil {
			req = append(req, kv("Within", jen.Op("&").Add(f.target(a.Within, sc))))
		}
		if a.Limit > 0 {
			req = append(req, kv("Limit", jen.Lit(a.Limit)))
		}
		call := jen.Id("x").Dot("ActionMenu").Call(jen.Id("ctx"), sc.path(), jen.Qual(pkgRuntime, "MenuRequest").Values(req...), options(s))
		return f.assignCall(a.Into, call, spec.Scalar(spec.KindAny), sc)
	}
	a := s.Annotated
	name := a.Name
	if name == "" {
		name = "page"
	}
	call := jen.Id("x").Dot("AnnotatedScreenshot").Call(jen.Id("ctx"), sc.path(), jen.Lit(name), options(s))
	if a.Into == "" {
		return []jen.Code{jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(f.ret(jen.Err()))}
	}
	return f.assignCall(a.Into, call, spec.Scalar(spec.KindAny), sc)
}

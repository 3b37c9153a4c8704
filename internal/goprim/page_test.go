package goprim

import (
	"errors"
	"strings"
	"testing"
)

const pagePrims = `package primitives

import (
	"context"

	rt "github.com/macrokit/macrokit-go/runtime"
)

type A struct{ X string ` + "`json:\"x\"`" + ` }

type R struct{ Y string ` + "`json:\"y\"`" + ` }

// Read reads the page.
//macrokit:primitive
func Read(ctx context.Context, page *rt.Page, a A) (R, error) { return R{}, nil }

// Poke clicks.
//macrokit:primitive
func Poke(ctx context.Context, page *rt.Page, a A) error { return nil }

//macrokit:primitive
func Plain(ctx context.Context, a A) error { return nil }
`

// TestScanPage: a primitive whose second parameter is *runtime.Page (under
// any import name) takes the page: its signature says so, its parameters
// are still the struct's, and its registration passes the page.
func TestScanPage(t *testing.T) {
	pkg, err := Scan(writeModule(t, pagePrims))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Primitive{}
	for _, p := range pkg.Primitives {
		got[p.Name] = p
	}
	for name, want := range map[string]bool{"read": true, "poke": true, "plain": false} {
		p := got[name]
		if p.TakesPage != want || p.Signature.Page != want {
			t.Errorf("%s: TakesPage %v, Signature.Page %v, want %v", name, p.TakesPage, p.Signature.Page, want)
		}
		if len(p.Signature.Params) != 1 || p.Signature.Params[0].Name != "x" {
			t.Errorf("%s: params %+v", name, p.Signature.Params)
		}
	}
	if r := got["read"].Signature.Result; r == nil || r.Prop("y") == nil {
		t.Errorf("read result %+v", r)
	}
	reg, err := pkg.Registration("generated")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		`"read":  runtime.TypedPagePrimitive(primitives.Read),`,
		`"poke":  runtime.TypedPageAction(primitives.Poke),`,
		`"plain": runtime.TypedAction(primitives.Plain),`,
	} {
		if !strings.Contains(string(reg), w) {
			t.Errorf("registration lacks %q:\n%s", w, reg)
		}
	}
}

// TestScanPageErrors: the wrong shapes of a page primitive, each reported
// at the parameter (or the signature) with what to write instead.
func TestScanPageErrors(t *testing.T) {
	head := "package primitives\n\nimport (\n\t\"context\"\n\n\t\"github.com/macrokit/macrokit-go/engine\"\n\t\"github.com/macrokit/macrokit-go/runtime\"\n)\n\ntype A struct{ X string `json:\"x\"` }\n\nvar _ = engine.Page{}\n\n"
	cases := []struct {
		name, src, want, at string
	}{
		{"value, not pointer", "//macrokit:primitive\nfunc F(ctx context.Context, p runtime.Page, a A) error { return nil }\n", "take the page as *runtime.Page (a pointer), not runtime.Page", ":15:31:"},
		{"the engine's page", "//macrokit:primitive\nfunc F(ctx context.Context, p *engine.Page, a A) error { return nil }\n", "the page a primitive takes is *runtime.Page", ":15:31:"},
		{"page after the args", "//macrokit:primitive\nfunc F(ctx context.Context, a A, p *runtime.Page) error { return nil }\n", "the page comes right after the context", ":15:36:"},
		{"page first", "//macrokit:primitive\nfunc F(p *runtime.Page, ctx context.Context, a A) error { return nil }\n", "the page comes right after the context", ":15:10:"},
		{"no args", "//macrokit:primitive\nfunc F(ctx context.Context, p *runtime.Page) error { return nil }\n", "still takes its arguments", ":15:1:"},
		{"no context", "//macrokit:primitive\nfunc F(a A, p *runtime.Page, b A) error { return nil }\n", "with *runtime.Page after the context", ":15:1:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Scan(writeModule(t, head+tc.src))
			var es Errors
			if !errors.As(err, &es) || len(es) != 1 {
				t.Fatalf("err = %v, want one Error", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "p.go"+tc.at) {
				t.Errorf("err = %v, want %q at p.go%s", err, tc.want, tc.at)
			}
		})
	}
}

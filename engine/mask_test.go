package engine

import (
	"bytes"
	"image"
	"image/png"
	"testing"

	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// maskState is what a screenshot must leave alone in the page.
type maskState struct {
	HTML    string  `json:"html"`
	Active  string  `json:"active"`
	ScrollY float64 `json:"scrollY"`
	Values  string  `json:"values"`
	Events  int     `json:"events"`
}

const maskStateJS = `() => ({
  html: document.documentElement.outerHTML + '|' + document.getElementById('host').shadowRoot.innerHTML,
  active: document.activeElement ? document.activeElement.id : '',
  scrollY: window.scrollY,
  values: Array.from(document.querySelectorAll('input')).map((i) => i.value).join('|'),
  events: window.__events,
})`

// TestMaskedScreenshot: a password field, a field filled with a
// registered secret, text showing a secret (whole, split by markup, in an
// open shadow root) and a field of a same-origin iframe holding one are
// covered by the mask colour in the image; a field without a secret is
// not; the page itself (DOM, values, focus, scroll, its listeners and
// mutation observers) notices nothing.
func TestMaskedScreenshot(t *testing.T) {
	t.Parallel()
	p, ctx := groundOpen(t, "mask.html")
	p.AddSecret("tok-9f8e7d6c")
	if _, err := p.Do(ctx, Step{Action: vocab.ActFill, Target: &Target{CSS: "#secret"}, Value: "s3cret-Value-42", Sensitive: true}); err != nil {
		t.Fatal(err)
	}
	// Focus and scroll the page, and let their events land before counting.
	if err := p.evalJSON(ctx, nil, `() => new Promise((ok) => {
	  window.scrollTo(0, 30);
	  document.getElementById('plain').focus();
	  requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => { window.__events = 0; ok(true); }, 0)));
	})`); err != nil {
		t.Fatal(err)
	}
	var st0, st1 maskState
	if err := p.evalJSON(ctx, &st0, maskStateJS); err != nil {
		t.Fatal(err)
	}
	shot, err := p.MaskedScreenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.evalJSON(ctx, &st1, maskStateJS); err != nil {
		t.Fatal(err)
	}
	if st0.HTML != st1.HTML || st0.Values != st1.Values {
		t.Error("the page's DOM or values changed during the screenshot")
	}
	if st1.Active != "plain" || st0.ScrollY != 30 || st1.ScrollY != 30 {
		t.Errorf("focus %q scrollY %v -> %v, want plain and 30", st1.Active, st0.ScrollY, st1.ScrollY)
	}
	if st1.Events != 0 {
		t.Errorf("the page saw %d mutation or focus/scroll/pointer events during the screenshot", st1.Events)
	}

	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	plainShot, err := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng}.Call(p.rod.Context(ctx))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := png.Decode(bytes.NewReader(plainShot.Data))
	if err != nil {
		t.Fatal(err)
	}
	var boxes map[string]Box
	if err := p.evalJSON(ctx, &boxes, `() => {
	  const mk = window.__mk;
	  const r = (el) => mk.rect(el);
	  const deep = document.getElementById('host').shadowRoot.getElementById('deep').firstChild;
	  const rg = document.createRange();
	  rg.setStart(deep, 'shadow '.length);
	  rg.setEnd(deep, deep.data.length);
	  const d = rg.getBoundingClientRect();
	  const inner = document.getElementById('frame').contentDocument.getElementById('inner');
	  return {
	    password: r(document.getElementById('pw')),
	    filled: r(document.getElementById('secret')),
	    text: r(document.getElementById('tok')),
	    split: r(document.getElementById('splitb')),
	    shadow: { x: d.left, y: d.top, width: d.width, height: d.height },
	    iframe: r(inner),
	    plain: r(document.getElementById('plain')),
	  };
	}`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		masked bool
	}{
		{"password", true}, {"filled", true}, {"text", true}, {"split", true}, {"shadow", true}, {"iframe", true},
		{"plain", false},
	} {
		b, ok := boxes[tc.name]
		if !ok || b.Width < 4 || b.Height < 4 {
			t.Fatalf("%s: no box (%+v)", tc.name, b)
		}
		r := image.Rect(int(b.X)+1, int(b.Y)+1, int(b.X+b.Width)-1, int(b.Y+b.Height)-1)
		all, any := maskCover(img, r)
		switch {
		case tc.masked && !all:
			t.Errorf("%s at %v: not covered by the mask colour", tc.name, r)
		case !tc.masked && any:
			t.Errorf("%s at %v: masked, but it holds no secret", tc.name, r)
		}
		if _, inPlain := maskCover(plain, r); inPlain {
			t.Errorf("%s at %v: the mask colour is in a plain screenshot too, so the test proves nothing", tc.name, r)
		}
	}
}

// maskCover says whether every pixel of r is MaskColor, and whether any is.
func maskCover(img image.Image, r image.Rectangle) (all, any bool) {
	all = true
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c, g, b, a := img.At(x, y).RGBA()
			m := uint32(c>>8) == uint32(MaskColor.R) && uint32(g>>8) == uint32(MaskColor.G) && uint32(b>>8) == uint32(MaskColor.B) && uint32(a>>8) == 0xff
			all = all && m
			any = any || m
		}
	}
	return all, any
}

package engine

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"

	"github.com/go-rod/rod/lib/proto"
)

// MaskColor is the opaque colour MaskedScreenshot paints over secrets.
var MaskColor = color.RGBA{R: 0x3a, G: 0x10, B: 0x4e, A: 0xff}

// maskPad is how far (CSS pixels) a mask reaches past the box it covers:
// focus rings and anti-aliased glyph edges sit just outside a box.
const maskPad = 2

// maskMeasure is what js/22_mask.js reports: the boxes to cover and the
// viewport they were measured in.
type maskMeasure struct {
	Boxes   []Box   `json:"boxes"`
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	OffsetX float64 `json:"offsetX"`
	OffsetY float64 `json:"offsetY"`
	Scale   float64 `json:"scale"`
}

// MaskedScreenshot returns a PNG of the viewport in which every place the
// page shows a secret is covered by an opaque box of MaskColor: every
// input[type=password], every input, textarea or select whose current
// value contains one of p.Secrets(), and every text that contains one (the
// secret's own line boxes, or the smallest element holding it when markup
// splits it). The top document, its open shadow roots and its same-origin
// iframes are searched.
//
// The page is never written to: the boxes are measured in the page (read
// only, like a snapshot), the viewport is captured, the boxes are measured
// again, and both measurements are painted on the image. So no listener,
// mutation observer, focus or scroll position notices a screenshot, and an
// element that moved during the capture is covered where it was and where
// it is.
//
// Not masked, because the engine cannot see them: cross-origin iframes
// (their documents are not reachable from the page), closed shadow roots,
// secrets drawn in canvases or images, and values the engine was never
// told are secret. A measurement that fails fails the screenshot: an
// unmasked image is never returned.
func (p *Page) MaskedScreenshot(ctx context.Context) ([]byte, error) {
	secrets := p.Secrets()
	var before, after maskMeasure
	if err := p.call(ctx, &before, mkMaskBoxes, secrets); err != nil {
		return nil, err
	}
	shot, err := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng}.Call(p.rod.Context(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Code: CodeTimeout, Msg: "screenshot", Err: ctx.Err()}
		}
		return nil, &Error{Code: CodeBrowser, Msg: "screenshot", Err: err}
	}
	if err := p.call(ctx, &after, mkMaskBoxes, secrets); err != nil {
		return nil, err
	}
	if len(before.Boxes) == 0 && len(after.Boxes) == 0 {
		return shot.Data, nil
	}
	return paintMasks(shot.Data, before, after)
}

// paintMasks covers each measurement's boxes on a PNG and re-encodes it.
func paintMasks(pngData []byte, ms ...maskMeasure) ([]byte, error) {
	src, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "screenshot is not a PNG", Err: err}
	}
	b := src.Bounds()
	img := image.NewRGBA(b)
	draw.Draw(img, b, src, b.Min, draw.Src)
	fill := image.NewUniform(MaskColor)
	for _, m := range ms {
		// Device pixels per CSS pixel of the layout viewport; the capture
		// is the visual viewport (offset and zoomed when pinch-zoomed).
		k := 1.0
		if m.Width > 0 {
			scale := m.Scale
			if scale <= 0 {
				scale = 1
			}
			k = float64(b.Dx()) * scale / m.Width
		}
		for _, bx := range m.Boxes {
			r := image.Rect(
				int(math.Floor((bx.X-m.OffsetX-maskPad)*k)), int(math.Floor((bx.Y-m.OffsetY-maskPad)*k)),
				int(math.Ceil((bx.X+bx.Width-m.OffsetX+maskPad)*k)), int(math.Ceil((bx.Y+bx.Height-m.OffsetY+maskPad)*k)),
			).Add(b.Min).Intersect(b)
			if !r.Empty() {
				draw.Draw(img, r, fill, image.Point{}, draw.Src)
			}
		}
	}
	var out bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&out, img); err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "encode screenshot", Err: err}
	}
	return out.Bytes(), nil
}

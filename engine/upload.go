package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-rod/rod/lib/proto"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// Upload sets files (paths on this machine) on a file input with
// DOM.setFileInputFiles, which fires the input's input and change events.
// The target may be the <input type=file> itself — hidden inputs are fine —
// or a visible button or label standing for a hidden one: its label
// control, an aria-controls/for reference, a file input inside it, or the
// only file input in its nearest ancestor. When none is tied to it
// structurally, the target is clicked with file-chooser interception on and
// the input that opened the chooser is used. The input's files are then
// verified by name; when the page emptied or replaced the input after its
// change event carried the files, ActResult.Unsure says so and the step's
// post-conditions decide (Page.Do never uploads twice on that).
func (p *Page) Upload(ctx context.Context, el *Element, files []string, opt ActOptions) (*ActResult, error) {
	a := p.begin(ctx, vocab.ActUpload, el, opt)
	if el == nil {
		return a.end(errorf(CodeInvalid, "%s needs an element", a.res.Action))
	}
	a.res.Channel = ChannelCDP
	if len(files) == 0 {
		return a.end(errorf(CodeInvalid, "upload needs at least one file"))
	}
	abs := make([]string, len(files))
	names := make([]string, len(files))
	for i, f := range files {
		fa, err := filepath.Abs(f)
		if err == nil {
			_, err = os.Stat(fa)
		}
		if err != nil {
			return a.end(&Error{Code: CodeInvalid, Msg: "upload file " + f, Err: err})
		}
		abs[i], names[i] = fa, filepath.Base(fa)
	}
	w := a.watch(ctx)
	defer w.stop()
	var fi struct {
		Ref      int        `json:"ref"`
		How      string     `json:"how"`
		Multiple bool       `json:"multiple"`
		Disabled bool       `json:"disabled"`
		Reason   string     `json:"reason"`
		Target   *Candidate `json:"target"`
	}
	if err := p.call(ctx, &fi, mkActFileInput, el.Ref); err != nil {
		return a.end(err)
	}
	if fi.Reason == "detached" {
		return a.end(errorf(CodeNotFound, "element is detached"))
	}
	if fi.Ref == 0 {
		return a.end(a.uploadViaChooser(ctx, el, abs, names, w))
	}
	a.res.FileInput, a.res.FileVia = fi.Target, fi.How
	if fi.Disabled {
		return a.end(errorf(CodeNotInteractable, "the file input is disabled"))
	}
	if len(abs) > 1 && !fi.Multiple {
		return a.end(errorf(CodeInvalid, "%d files for a file input without multiple", len(abs)))
	}
	h, err := p.callObject(ctx, mkActDeref, fi.Ref)
	if err != nil {
		return a.end(err)
	}
	if h == nil {
		return a.end(errorf(CodeNotFound, "file input is detached"))
	}
	if err := (proto.DOMSetFileInputFiles{Files: abs, ObjectID: h.Object.ObjectID}).Call(p.rod.Context(ctx)); err != nil {
		return a.end(cdpErr(ctx, "set files", err))
	}
	var got struct {
		OK        bool     `json:"ok"`
		Names     []string `json:"names"`
		Connected bool     `json:"connected"`
		Changed   []string `json:"changed"`
	}
	if err := p.call(ctx, &got, mkActFiles, fi.Ref); err != nil {
		return a.end(err)
	}
	a.res.Files = got.Names
	switch {
	case slices.Equal(got.Names, names) && got.Connected:
	case slices.Equal(got.Changed, names):
		// The page took the files on change and then emptied or replaced
		// the input (antd's Upload does): the input can no longer show
		// whether the upload took, only the page's own effects can.
		a.res.Files = got.Changed
		a.res.Unsure = "the page emptied or replaced the file input after its change event carried the files"
		a.res.note("%s", a.res.Unsure)
	default:
		return a.end(errorf(CodeValueNotApplied, "file input holds %q, want %q", got.Names, names))
	}
	return a.end(w.settle(ctx, a.res, false, opt.NoWaitAfter))
}

func (a *actor) uploadViaChooser(ctx context.Context, el *Element, abs, names []string, w *actWatch) error {
	p := a.p
	rp := p.rod.Context(ctx)
	if err := (proto.PageSetInterceptFileChooserDialog{Enabled: true}).Call(rp); err != nil {
		return cdpErr(ctx, "intercept file chooser", err)
	}
	defer func() {
		_ = proto.PageSetInterceptFileChooserDialog{Enabled: false}.Call(p.rod.Context(context.WithoutCancel(ctx)))
	}()
	a.res.note("no file input tied to the element: clicking it and intercepting the file chooser")
	if err := a.clickRef(ctx, el.Ref, ChannelCDP, false); err != nil {
		return err
	}
	a.res.Channel = ChannelCDP
	var ok bool
	_ = p.call(ctx, &ok, mkActSettle)
	chooser := w.fileChooser()
	if chooser == nil {
		return errorf(CodeNotInteractable, "no file input is tied to the element and clicking it opened no file chooser")
	}
	if len(abs) > 1 && chooser.Mode != proto.PageFileChooserOpenedModeSelectMultiple {
		return errorf(CodeInvalid, "%d files for a file chooser that takes one", len(abs))
	}
	a.res.FileVia = "file chooser"
	if err := (proto.DOMSetFileInputFiles{Files: abs, BackendNodeID: chooser.BackendNodeID}).Call(rp); err != nil {
		return cdpErr(ctx, "set files", err)
	}
	node, err := proto.DOMResolveNode{BackendNodeID: chooser.BackendNodeID}.Call(rp)
	if err != nil {
		return cdpErr(ctx, "resolve file input", err)
	}
	res, err := proto.RuntimeCallFunctionOn{
		ObjectID:            node.Object.ObjectID,
		FunctionDeclaration: `function() { return {names: Array.from(this.files || []).map(f => f.name), input: window.__mk ? __mk.` + string(mkDescribe) + `(this) : null} }`,
		ReturnByValue:       true,
	}.Call(rp)
	if err != nil {
		return cdpErr(ctx, "read files", err)
	}
	var got struct {
		Names []string   `json:"names"`
		Input *Candidate `json:"input"`
	}
	if err := res.Result.Value.Unmarshal(&got); err != nil {
		return &Error{Code: CodeBrowser, Msg: "decode files", Err: err}
	}
	a.res.Files, a.res.FileInput = got.Names, got.Input
	if !slices.Equal(got.Names, names) {
		return errorf(CodeValueNotApplied, "file input holds %q, want %q", got.Names, names)
	}
	return nil
}

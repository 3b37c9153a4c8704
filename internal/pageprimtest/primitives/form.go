package primitives

import (
	"context"
	"fmt"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// OpenFormArgs are open_customer_form's arguments.
type OpenFormArgs struct {
	// Button is the accessible name of the button that opens the form.
	Button string `json:"button"`
}

// OpenedForm is what open_customer_form read.
type OpenedForm struct {
	// Summary is the customer list's summary line before the click.
	Summary string `json:"summary"`
	// Title is the opened dialog's heading.
	Title string `json:"title"`
	// Fields is how many text fields the dialog holds.
	Fields int `json:"fields"`
}

// OpenCustomerForm reads the customer list's summary, clicks the button
// that opens the new-customer dialog (checked: the dialog shows) and reads
// the dialog's title and fields.
//
//macrokit:primitive
func OpenCustomerForm(ctx context.Context, page *runtime.Page, a OpenFormArgs) (OpenedForm, error) {
	var out OpenedForm
	var err error
	if out.Summary, err = page.Text(ctx, engine.Target{TestID: "customers-summary"}); err != nil {
		return out, err
	}
	dialog := engine.Target{Role: "dialog", Name: "New customer"}
	if err := page.Click(ctx, engine.Target{Role: "button", Name: a.Button},
		engine.Condition{Kind: vocab.CondElementState, Target: &dialog, State: string(vocab.StateVisible)}); err != nil {
		return out, err
	}
	if out.Title, err = page.Text(ctx, engine.Target{Role: "heading", Within: &dialog}); err != nil {
		return out, err
	}
	if out.Fields, err = page.Count(ctx, engine.Target{Role: "textbox", Within: &dialog}); err != nil {
		return out, err
	}
	if out.Fields == 0 {
		return out, fmt.Errorf("the dialog has no text fields")
	}
	return out, nil
}

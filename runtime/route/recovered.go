package route

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/macrokit/macrokit-go/llm"
)

// recovered refines the detector's verdict on a text answer with
// llm.RecoverCall, the one parser of described calls: a tool call written
// as text or described in prose becomes the one candidate it names (with
// the arguments as the model wrote them, a cut-off object's complete
// members kept), an answer that names two registered macros keeps no
// candidate (one is never guessed), and a plain reply that turns out to
// describe one call with arguments is flagged as prose_tool_call. Salvage
// then decides whether the candidate may run (salvageable).
func (d *detector) recovered(b *BailOut) (*BailOut, error) {
	if b != nil && b.Code != BailToolCallAsText && b.Code != BailProseToolCall && b.Code != BailPlanWithoutCall {
		return b, nil // multiple calls, an uncheckable answer: as found
	}
	var names []string
	for _, m := range d.reg.Offered() {
		names = append(names, m.Name)
	}
	desc, err := llm.RecoverCall(d.ctx, d.raw, names)
	var re *llm.RecoverError
	switch {
	case errors.Is(err, llm.ErrAmbiguousTool) && errors.As(err, &re):
		if b == nil || b.Code == BailPlanWithoutCall {
			return b, nil // a reply that mentions macros by name is a reply
		}
		out := *b
		out.Candidates = nil
		out.Detail = fmt.Sprintf("%s; it names %s, so no one call is recovered", b.Detail, strings.Join(re.Names, " and "))
		return &out, nil
	case errors.Is(err, llm.ErrAmbiguousArgs):
		if b == nil || b.Code == BailPlanWithoutCall {
			return b, nil
		}
		out := *b
		out.Candidates = nil
		out.Detail += "; it gives the call two different sets of arguments, so none is recovered"
		return &out, nil
	case err != nil:
		if d.ctx.Err() != nil {
			return nil, d.ctx.Err()
		}
		return b, nil // nothing more to read (no call, too large, over budget)
	}
	args, merr := json.Marshal(desc.Args)
	if merr != nil {
		return b, nil
	}
	c := Candidate{Name: desc.Name, Args: args, Shape: desc.Shape, Truncated: desc.Truncated, Dropped: desc.Dropped}
	if b == nil || b.Code == BailPlanWithoutCall {
		if len(desc.Args) == 0 {
			return b, nil // a macro named without arguments is not a call
		}
		return &BailOut{Code: BailProseToolCall, Tool: desc.Name, Candidates: []Candidate{c},
			Detail: fmt.Sprintf("the answer describes calling %s (%s) instead of calling it", desc.Name, strings.ReplaceAll(desc.Shape, "_", " "))}, nil
	}
	out := *b
	out.Tool, out.Candidates = desc.Name, []Candidate{c}
	return &out, nil
}

// recoveredFromText reports whether a bail-out's candidates were read out
// of the model's text (not a native call under a wrong name).
func recoveredFromText(c BailOutCode) bool {
	return c == BailToolCallAsText || c == BailProseToolCall
}

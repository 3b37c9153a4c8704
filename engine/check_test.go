package engine

import (
	"testing"
)

func TestActCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, css   string
		check       bool
		before      string
		after       string
		noop        bool
		via         bool
		wantErrCode Code
	}{
		{"native check", "#subscribe", true, "false", "true", false, false, ""},
		{"native already checked", "#agree", true, "true", "true", true, false, ""},
		{"native uncheck", "#agree", false, "true", "false", false, false, ""},
		{"hidden input via label", "#terms", true, "false", "true", false, true, ""},
		{"label target", "#terms-label", true, "false", "true", false, false, ""},
		{"radio", "#size-m", true, "false", "true", false, false, ""},
		{"aria checkbox", "#news", true, "false", "true", false, false, ""},
		{"aria switch off", "#dark", false, "true", "false", false, false, ""},
		{"ignored click", "#stuck", true, "false", "false", false, false, CodeNoEffect},
		{"radio uncheck", "#size-s", false, "true", "", false, false, CodeInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_form.html")
			e := actEl(t, ctx, p, tc.css)
			var res *ActResult
			var err error
			if tc.check {
				res, err = p.Check(ctx, e, ActOptions{})
			} else {
				res, err = p.Uncheck(ctx, e, ActOptions{})
			}
			if tc.wantErrCode != "" {
				actWantCode(t, err, tc.wantErrCode)
			} else {
				actMust(t)(res, err)
			}
			if res.CheckedBefore != tc.before || res.CheckedAfter != tc.after || res.NoOp != tc.noop {
				t.Fatalf("evidence before=%s after=%s noop=%v", res.CheckedBefore, res.CheckedAfter, res.NoOp)
			}
			if tc.via && (res.Actionability == nil || res.Actionability.Via == nil || res.Actionability.Via.Tag != "label") {
				t.Fatalf("hidden checkbox not clicked through its label: %+v", res.Actionability)
			}
		})
	}
}

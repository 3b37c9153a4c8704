package engine

import (
	"context"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
)

var recordPosts atomic.Int64

func init() {
	route("/record/accounts", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			recordPosts.Add(1)
		}
		w.WriteHeader(http.StatusCreated)
	})
}

// userClick moves the mouse to the middle of what t grounds to and clicks
// it: trusted CDP input, as a person's click.
func userClick(ctx context.Context, t *testing.T, p *Page, tg Target) {
	t.Helper()
	el, err := p.Resolve(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	x, y := el.Box.Center()
	m := p.Rod().Context(ctx).Mouse
	if err := m.MoveTo(proto.Point{X: x, Y: y}); err != nil {
		t.Fatal(err)
	}
	if err := m.Click(proto.InputMouseButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
}

// recordFixture opens record.html and records on it until the test ends.
func recordFixture(ctx context.Context, t *testing.T) (*Page, *Recorder) {
	t.Helper()
	p := newTestPage(t)
	if err := p.Goto(ctx, fixtureURL("record.html")); err != nil {
		t.Fatal(err)
	}
	rec, err := p.Record(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Close)
	return p, rec
}

// userType presses one key per character.
func userType(ctx context.Context, t *testing.T, p *Page, s string) {
	t.Helper()
	kb := p.Rod().Context(ctx).Keyboard
	for _, r := range s {
		if err := kb.Type(input.Key(r)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecordTurnsInputIntoActions drives a form with mouse and keyboard
// input and checks what the recorder reports: the target a user would
// write for each action (labels for fields, role and name for the button),
// fills reported when the field is left, the native select's options, the
// checkbox, and the click's effects (its POST, the list that grew).
func TestRecordTurnsInputIntoActions(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 30*time.Second)
	p, rec := recordFixture(ctx, t)
	before := recordPosts.Load()

	userClick(ctx, t, p, Target{Label: "User name"})
	userType(ctx, t, p, "ada")
	userClick(ctx, t, p, Target{Label: "Password"})
	userType(ctx, t, p, "s3cret")
	userClick(ctx, t, p, Target{Label: "Plan"}) // opens the native popup; keys choose
	if err := p.Rod().Context(ctx).Keyboard.Type(input.Escape); err != nil {
		t.Fatal(err)
	}
	if err := p.Rod().Context(ctx).Keyboard.Type(input.ArrowDown); err != nil {
		t.Fatal(err)
	}
	userClick(ctx, t, p, Target{Label: "Administrator"})
	userClick(ctx, t, p, Target{Role: "button", Name: "Add account"})

	want := []struct {
		kind, how, value string
		target           Target
	}{
		{"fill", "label", "ada", Target{Label: "User name"}},
		{"fill", "label", "s3cret", Target{Label: "Password"}},
		{"select", "label", "Team", Target{Label: "Plan"}},
		{"check", "role", "", Target{Role: "checkbox", Name: "Administrator"}},
		{"click", "role", "", Target{Role: "button", Name: "Add account"}},
	}
	var got []*Recorded
	for range want {
		a, err := rec.Next(ctx)
		if err != nil {
			t.Fatalf("after %d action(s): %v", len(got), err)
		}
		got = append(got, a)
	}
	for i, w := range want {
		a := got[i]
		if a.Kind != w.kind || a.How != w.how || a.Value != w.value || a.Target == nil || *a.Target != w.target {
			t.Errorf("action %d: %s how=%s value=%q, want %s %+v how=%s value=%q", i, a, a.How, a.Value, w.kind, w.target, w.how, w.value)
		}
	}
	if got[1].Type != "password" {
		t.Errorf("password field type %q", got[1].Type)
	}
	if s := got[2]; len(s.Options) != 2 || s.OptionValues[1] != "team" {
		t.Errorf("select options %v values %v", s.Options, s.OptionValues)
	}
	click := got[4]
	posts := 0
	for _, r := range click.Requests {
		if r.Method == http.MethodPost && r.Status == http.StatusCreated {
			posts++
		}
	}
	if posts != 1 || recordPosts.Load()-before != 1 {
		t.Errorf("click requests %+v (server saw %d POSTs), want one POST answered 201", click.Requests, recordPosts.Load()-before)
	}
	if click.Before == nil || click.After == nil || click.Before.Counts["account-row"] != 1 || click.After.Counts["account-row"] != 2 {
		t.Errorf("account-row counts before %+v after %+v, want 1 then 2", click.Before, click.After)
	}
	// The page's picture holds its controls' values, never a password's.
	vals := map[string]string{}
	for _, v := range click.Before.Values {
		vals[v.Target.Label] = v.Value
		if v.Value == "s3cret" {
			t.Errorf("the password was read into the page's picture: %+v", v)
		}
	}
	if vals["User name"] != "ada" || vals["Plan"] != "Team" {
		t.Errorf("control values before the click %+v, want User name ada and Plan Team", click.Before.Values)
	}
	if _, ok := vals["Password"]; ok {
		t.Errorf("the password field is in the picture: %+v", click.Before.Values)
	}
	if rec.Pending() {
		a, _ := rec.Next(ctx)
		t.Errorf("an extra action was recorded: %s", a)
	}
}

// TestRecordNativeMultipleSelect: a click, then a Ctrl+click, on the
// options of a <select multiple> are two selects that say so and carry
// every option chosen at each change (record's Build keeps the last).
func TestRecordNativeMultipleSelect(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 30*time.Second)
	p, rec := recordFixture(ctx, t)
	userClick(ctx, t, p, Target{Role: "option", Name: "Mon"})
	kb := p.Rod().Context(ctx).Keyboard
	if err := kb.Press(input.ControlLeft); err != nil {
		t.Fatal(err)
	}
	userClick(ctx, t, p, Target{Role: "option", Name: "Wed"})
	if err := kb.Release(input.ControlLeft); err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]string{{"Mon"}, {"Mon", "Wed"}} {
		a, err := rec.Next(ctx)
		if err != nil {
			t.Fatalf("after %d action(s): %v", i, err)
		}
		if a.Kind != "select" || !a.Multiple || !slices.Equal(a.Values, want) || a.Target == nil || *a.Target != (Target{Label: "Days"}) {
			t.Errorf("action %d: %s multiple=%v values=%q target=%+v, want a select of Days holding %q", i, a, a.Multiple, a.Values, a.Target, want)
		}
		if !slices.Equal(a.Options, []string{"Mon", "Tue", "Wed"}) {
			t.Errorf("action %d: options %q", i, a.Options)
		}
	}
}

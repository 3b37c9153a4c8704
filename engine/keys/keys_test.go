package keys

import (
	"errors"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	ctrl, shift, alt, meta := namedKeys["Control"], namedKeys["Shift"], namedKeys["Alt"], namedKeys["Meta"]
	tests := []struct {
		spec string
		want Chord
	}{
		{"Enter", Chord{Key: Key{"Enter", "Enter", 13, "\r", 0}}},
		{"enter", Chord{Key: Key{"Enter", "Enter", 13, "\r", 0}}},
		{"esc", Chord{Key: Key{"Escape", "Escape", 27, "", 0}}},
		{"Space", Chord{Key: Key{" ", "Space", 32, " ", 0}}},
		{" ", Chord{Key: Key{" ", "Space", 32, " ", 0}}},
		{"a", Chord{Key: Key{"a", "KeyA", 65, "a", 0}}},
		{"A", Chord{Key: Key{"A", "KeyA", 65, "A", 0}}},
		{"F5", Chord{Key: Key{"F5", "F5", 116, "", 0}}},
		{"f12", Chord{Key: Key{"F12", "F12", 123, "", 0}}},
		{"F24", Chord{Key: Key{"F24", "F24", 135, "", 0}}},
		{"!", Chord{Key: Key{"!", "Digit1", 49, "!", 0}}},
		{"-", Chord{Key: Key{"-", "Minus", 189, "-", 0}}},
		{"é", Chord{Key: Key{"é", "", 0, "é", 0}}},
		{"+", Chord{Key: Key{"+", "Equal", 187, "+", 0}}},
		{"Control++", Chord{Mods: []Key{ctrl}, Modifiers: Control, Key: Key{"+", "Equal", 187, "+", 0}}},
		{"Control+Shift+a", Chord{Mods: []Key{ctrl, shift}, Modifiers: Control | Shift, Key: Key{"A", "KeyA", 65, "A", 0}}},
		// Control+A is the A key under Control, not Shift+A.
		{"Control+A", Chord{Mods: []Key{ctrl}, Modifiers: Control, Key: Key{"a", "KeyA", 65, "a", 0}}},
		{"ctrl+alt+Delete", Chord{Mods: []Key{ctrl, alt}, Modifiers: Control | Alt, Key: Key{"Delete", "Delete", 46, "", 0}}},
		{"cmd+Tab", Chord{Mods: []Key{meta}, Modifiers: Meta, Key: Key{"Tab", "Tab", 9, "", 0}}},
		{"Shift+Tab", Chord{Mods: []Key{shift}, Modifiers: Shift, Key: Key{"Tab", "Tab", 9, "", 0}}},
		{"Shift+1", Chord{Mods: []Key{shift}, Modifiers: Shift, Key: Key{"!", "Digit1", 49, "!", 0}}},
		{"Shift+/", Chord{Mods: []Key{shift}, Modifiers: Shift, Key: Key{"?", "Slash", 191, "?", 0}}},
		{"Shift", Chord{Key: Key{"Shift", "ShiftLeft", 16, "", 1}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.spec, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) =\n  %+v\nwant\n  %+v", tt.spec, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		spec   string
		reason Reason
		part   string
		msg    string
	}{
		{"", Empty, "", "press needs a key"},
		{"Control+", Malformed, "", `bad key spec "Control+"`},
		{"Control++b", Malformed, "", `bad key spec "Control++b"`},
		{"+a", Malformed, "", `bad key spec "+a"`},
		{"Hyper+a", Unknown, "Hyper", `unknown key "Hyper" in "Hyper+a"`},
		{"F25", Unknown, "F25", `unknown key "F25" in "F25"`},
		{"F05", Unknown, "F05", `unknown key "F05" in "F05"`},
		{"a+b", NotModifier, "a", `"a" is not a modifier in "a+b"`},
		{"Enter+Control", NotModifier, "Enter", `"Enter" is not a modifier in "Enter+Control"`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.spec)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v, want *Error", tt.spec, err)
			continue
		}
		if e.Reason != tt.reason || e.Part != tt.part || e.Spec != tt.spec || e.Error() != tt.msg {
			t.Errorf("Parse(%q) = %+v (%q), want reason %d part %q msg %q", tt.spec, *e, e.Error(), tt.reason, tt.part, tt.msg)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"Enter", "Control+Shift+A", "Control++", "+", "a+b", "Shift+/", "F12", "é", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		c, err := Parse(spec)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Spec != spec || e.Reason < Empty || e.Reason > NotModifier {
				t.Fatalf("Parse(%q): untyped or inconsistent error %#v", spec, err)
			}
			return
		}
		if c.Key.Key == "" {
			t.Fatalf("Parse(%q): no key in %+v", spec, c)
		}
		var mask Modifier
		for _, m := range c.Mods {
			if m.Modifier() == 0 {
				t.Fatalf("Parse(%q): %q held as a modifier", spec, m.Key)
			}
			mask |= m.Modifier()
		}
		if mask != c.Modifiers {
			t.Fatalf("Parse(%q): mask %d, mods give %d", spec, c.Modifiers, mask)
		}
		if (c.Key.Code == "") != (c.Key.KeyCode == 0) {
			t.Fatalf("Parse(%q): code %q with key code %d", spec, c.Key.Code, c.Key.KeyCode)
		}
		again, err := Parse(spec)
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("Parse(%q) is not deterministic", spec)
		}
	})
}

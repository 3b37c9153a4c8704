package keys

import (
	"fmt"
	"strings"
)

// Modifier is one bit of a modifier mask. The values are those of the
// DevTools protocol's Input.dispatchKeyEvent modifiers field.
type Modifier int

// The modifiers.
const (
	Alt     Modifier = 1
	Control Modifier = 2
	Meta    Modifier = 4
	Shift   Modifier = 8
)

// Key is one key as a KeyboardEvent reports it.
type Key struct {
	// Key is KeyboardEvent.key: "Enter", "a", "A", "+".
	Key string
	// Code is KeyboardEvent.code ("Enter", "KeyA", "Equal"); empty for a
	// character that has no key on the US layout.
	Code string
	// KeyCode is the legacy keyCode (Windows virtual key code); 0 when Code
	// is empty.
	KeyCode int
	// Text is what the key types; empty for keys that type nothing.
	Text string
	// Location is KeyboardEvent.location: 1 for the left modifier keys.
	Location int
}

// Modifier returns k's modifier bit, or 0 when k is not a modifier key.
func (k Key) Modifier() Modifier {
	switch k.Key {
	case "Alt":
		return Alt
	case "Control":
		return Control
	case "Meta":
		return Meta
	case "Shift":
		return Shift
	}
	return 0
}

// Chord is a parsed key spec: Mods held, in order, while Key is pressed.
type Chord struct {
	Mods []Key
	// Modifiers is the mask of every key in Mods.
	Modifiers Modifier
	Key       Key
}

// Has reports whether the chord holds m.
func (c Chord) Has(m Modifier) bool { return c.Modifiers&m != 0 }

// Error is a key spec that Parse rejects.
type Error struct {
	// Spec is the whole spec; Part the offending part of it (empty when the
	// spec itself is empty or malformed).
	Spec, Part string
	// Reason says what is wrong.
	Reason Reason
}

// Reason classifies an [Error].
type Reason int

// The reasons a spec is rejected.
const (
	// Empty: the spec is "".
	Empty Reason = iota + 1
	// Malformed: an empty part, as in "Control+" or "a++b".
	Malformed
	// Unknown: a part names no key.
	Unknown
	// NotModifier: a key other than Alt, Control, Meta or Shift precedes a +.
	NotModifier
)

// Error renders the message the engine reports for a rejected spec.
func (e *Error) Error() string {
	switch e.Reason {
	case Empty:
		return "press needs a key"
	case Malformed:
		return fmt.Sprintf("bad key spec %q", e.Spec)
	case Unknown:
		return fmt.Sprintf("unknown key %q in %q", e.Part, e.Spec)
	case NotModifier:
		return fmt.Sprintf("%q is not a modifier in %q", e.Part, e.Spec)
	}
	return fmt.Sprintf("bad key spec %q", e.Spec)
}

var namedKeys = map[string]Key{
	"Enter":      {"Enter", "Enter", 13, "\r", 0},
	"Tab":        {"Tab", "Tab", 9, "", 0},
	"Escape":     {"Escape", "Escape", 27, "", 0},
	"Backspace":  {"Backspace", "Backspace", 8, "", 0},
	"Delete":     {"Delete", "Delete", 46, "", 0},
	"Space":      {" ", "Space", 32, " ", 0},
	"ArrowUp":    {"ArrowUp", "ArrowUp", 38, "", 0},
	"ArrowDown":  {"ArrowDown", "ArrowDown", 40, "", 0},
	"ArrowLeft":  {"ArrowLeft", "ArrowLeft", 37, "", 0},
	"ArrowRight": {"ArrowRight", "ArrowRight", 39, "", 0},
	"Home":       {"Home", "Home", 36, "", 0},
	"End":        {"End", "End", 35, "", 0},
	"PageUp":     {"PageUp", "PageUp", 33, "", 0},
	"PageDown":   {"PageDown", "PageDown", 34, "", 0},
	"Insert":     {"Insert", "Insert", 45, "", 0},
	"Shift":      {"Shift", "ShiftLeft", 16, "", 1},
	"Control":    {"Control", "ControlLeft", 17, "", 1},
	"Alt":        {"Alt", "AltLeft", 18, "", 1},
	"Meta":       {"Meta", "MetaLeft", 91, "", 1},
}

var keyAliases = map[string]string{
	"ctrl": "Control", "control": "Control", "cmd": "Meta", "command": "Meta", "meta": "Meta", "super": "Meta",
	"alt": "Alt", "option": "Alt", "shift": "Shift", "esc": "Escape", "escape": "Escape", "return": "Enter",
	"enter": "Enter", "tab": "Tab", "backspace": "Backspace", "delete": "Delete", "del": "Delete",
	"space": "Space", "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
	"arrowup": "ArrowUp", "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft", "arrowright": "ArrowRight",
	"home": "Home", "end": "End", "pageup": "PageUp", "pagedown": "PageDown", "insert": "Insert",
}

// US-layout punctuation: unshifted char, shifted char, code, key code.
var punctKeys = []struct {
	base, shifted string
	code          string
	keyCode       int
}{
	{"-", "_", "Minus", 189}, {"=", "+", "Equal", 187}, {"[", "{", "BracketLeft", 219}, {"]", "}", "BracketRight", 221},
	{"\\", "|", "Backslash", 220}, {";", ":", "Semicolon", 186}, {"'", "\"", "Quote", 222}, {",", "<", "Comma", 188},
	{".", ">", "Period", 190}, {"/", "?", "Slash", 191}, {"`", "~", "Backquote", 192},
	{"1", "!", "Digit1", 49}, {"2", "@", "Digit2", 50}, {"3", "#", "Digit3", 51}, {"4", "$", "Digit4", 52},
	{"5", "%", "Digit5", 53}, {"6", "^", "Digit6", 54}, {"7", "&", "Digit7", 55}, {"8", "*", "Digit8", 56},
	{"9", "(", "Digit9", 57}, {"0", ")", "Digit0", 48},
}

// lookup resolves one key name ("Enter", "a", "F5", "ArrowDown") and
// reports whether the character itself implies Shift ("A", "!").
func lookup(name string) (Key, bool, bool) {
	if d, ok := namedKeys[name]; ok {
		return d, false, true
	}
	if alias, ok := keyAliases[strings.ToLower(name)]; ok {
		return namedKeys[alias], false, true
	}
	if len(name) >= 2 && (name[0] == 'F' || name[0] == 'f') {
		var n int
		if _, err := fmt.Sscanf(name[1:], "%d", &n); err == nil && n >= 1 && n <= 24 && fmt.Sprint(n) == name[1:] {
			return Key{Key: "F" + name[1:], Code: "F" + name[1:], KeyCode: 111 + n}, false, true
		}
	}
	r := []rune(name)
	if len(r) != 1 {
		return Key{}, false, false
	}
	c := r[0]
	switch {
	case c >= 'a' && c <= 'z':
		u := strings.ToUpper(name)
		return Key{Key: name, Code: "Key" + u, KeyCode: int(u[0]), Text: name}, false, true
	case c >= 'A' && c <= 'Z':
		return Key{Key: name, Code: "Key" + name, KeyCode: int(c), Text: name}, true, true
	case c == ' ':
		return namedKeys["Space"], false, true
	}
	for _, pk := range punctKeys {
		if name == pk.base {
			return Key{Key: name, Code: pk.code, KeyCode: pk.keyCode, Text: name}, false, true
		}
		if name == pk.shifted {
			return Key{Key: name, Code: pk.code, KeyCode: pk.keyCode, Text: name}, true, true
		}
	}
	// Any other character: typed as text without a key code.
	return Key{Key: name, Text: name}, false, true
}

// Parse parses a key spec: a key name ("Enter", "Tab", "ArrowDown", "F5",
// aliases such as "esc" or "ctrl", any single character) optionally preceded
// by modifiers joined with + ("Control+Shift+A", "Shift+Tab"); "+" and
// "Control++" press the + key. Under Control, Alt or Meta without Shift an
// upper-case letter means its key ("Control+A" is Control and "a"); with
// Shift a letter or US punctuation key types its shifted character.
func Parse(spec string) (Chord, error) {
	if spec == "" {
		return Chord{}, &Error{Spec: spec, Reason: Empty}
	}
	var parts []string
	if strings.HasSuffix(spec, "++") || spec == "+" {
		parts = append(strings.Split(strings.TrimSuffix(spec, "++"), "+"), "+")
		if spec == "+" {
			parts = []string{"+"}
		}
	} else {
		parts = strings.Split(spec, "+")
	}
	var c Chord
	for i, part := range parts {
		if part == "" {
			return Chord{}, &Error{Spec: spec, Reason: Malformed}
		}
		d, shifted, ok := lookup(part)
		if !ok {
			return Chord{}, &Error{Spec: spec, Part: part, Reason: Unknown}
		}
		if i < len(parts)-1 {
			bit := d.Modifier()
			if bit == 0 {
				return Chord{}, &Error{Spec: spec, Part: part, Reason: NotModifier}
			}
			c.Mods = append(c.Mods, d)
			c.Modifiers |= bit
			continue
		}
		if shifted && !c.Has(Shift) && c.Has(Control|Alt|Meta) {
			// Control+A means the A key, not Shift+A.
			d.Key = strings.ToLower(d.Key)
			d.Text = d.Key
		}
		c.Key = d
	}
	if c.Has(Shift) && len([]rune(c.Key.Text)) == 1 {
		r := []rune(c.Key.Text)[0]
		if r >= 'a' && r <= 'z' {
			c.Key.Text = strings.ToUpper(c.Key.Text)
			c.Key.Key = c.Key.Text
		} else {
			for _, pk := range punctKeys {
				if c.Key.Text == pk.base {
					c.Key.Text, c.Key.Key = pk.shifted, pk.shifted
				}
			}
		}
	}
	return c, nil
}

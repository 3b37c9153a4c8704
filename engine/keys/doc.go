// Package keys parses key specs such as "Enter", "a", "F5" or
// "Control+Shift+A" into the key events a browser expects. [Parse] returns a
// [Chord]: the modifiers held in order while its main key is pressed, each a
// [Key] with its KeyboardEvent key, code, legacy key code and typed text (US
// layout), and their [Modifier] mask. A spec it rejects is an [*Error] whose
// [Reason] says why.
//
// It is pure Go with no browser: the engine (engine.Page.Press) turns a
// Chord into DevTools Input.dispatchKeyEvent calls or DOM KeyboardEvents.
package keys

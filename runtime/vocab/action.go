package vocab

// Action names a page step (the spec's page-action step kinds).
type Action string

// The page actions.
const (
	ActGoto    Action = "goto"
	ActClick   Action = "click"
	ActFill    Action = "fill"
	ActType    Action = "type" // keystrokes one by one, without clearing (fill replaces the value)
	ActSelect  Action = "select"
	ActCheck   Action = "check"
	ActUncheck Action = "uncheck"
	ActPress   Action = "press"
	ActHover   Action = "hover"
	ActUpload  Action = "upload"
	ActScroll  Action = "scroll"
	ActWait    Action = "wait" // no action: only wait until the post-conditions hold
)

var actions = []Action{ActGoto, ActClick, ActFill, ActType, ActSelect, ActCheck, ActUncheck, ActPress,
	ActHover, ActUpload, ActScroll, ActWait}

// Actions returns every page action in documentation order.
func Actions() []Action { return clone(actions) }

// Valid reports whether a is one of [Actions].
func (a Action) Valid() bool { return contains(actions, a) }

// GoName is the name of a's constant in this package, e.g. "ActClick".
func (a Action) GoName() string { return goName("Act", string(a)) }

package vocab

// State is an element state that an element_state post-condition checks.
type State string

// The element states; each but visible and hidden has its opposite.
const (
	StateChecked   State = "checked"
	StateUnchecked State = "unchecked"
	StateEnabled   State = "enabled"
	StateDisabled  State = "disabled"
	StateExpanded  State = "expanded"
	StateCollapsed State = "collapsed"
	StateSelected  State = "selected"
	StateVisible   State = "visible"
	StateHidden    State = "hidden" // also holds when the element is not in the page
	StateFocused   State = "focused"
)

var states = []State{StateChecked, StateUnchecked, StateEnabled, StateDisabled, StateExpanded,
	StateCollapsed, StateSelected, StateVisible, StateHidden, StateFocused}

// States returns every element state in documentation order.
func States() []State { return clone(states) }

// Valid reports whether s is one of [States].
func (s State) Valid() bool { return contains(states, s) }

// GoName is the name of s's constant in this package, e.g. "StateChecked".
func (s State) GoName() string { return goName("State", string(s)) }

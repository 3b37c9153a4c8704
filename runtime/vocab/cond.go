package vocab

// CondKind names a post-condition checked against the live page.
type CondKind string

// The post-condition kinds.
const (
	CondURLMatches       CondKind = "url_matches"
	CondTitleMatches     CondKind = "title_matches"
	CondTextPresent      CondKind = "text_present"
	CondTextAbsent       CondKind = "text_absent"
	CondElementExists    CondKind = "element_exists"
	CondElementGone      CondKind = "element_gone"
	CondValueEquals      CondKind = "value_equals"
	CondAttributeEquals  CondKind = "attribute_equals"
	CondElementState     CondKind = "element_state"
	CondListCountDelta   CondKind = "list_count_delta"
	CondRequestSucceeded CondKind = "request_succeeded"
)

var condKinds = []CondKind{CondURLMatches, CondTitleMatches, CondTextPresent, CondTextAbsent,
	CondElementExists, CondElementGone, CondValueEquals, CondAttributeEquals, CondElementState,
	CondListCountDelta, CondRequestSucceeded}

// CondKinds returns every post-condition kind in documentation order.
func CondKinds() []CondKind { return clone(condKinds) }

// Valid reports whether k is one of [CondKinds].
func (k CondKind) Valid() bool { return contains(condKinds, k) }

// GoName is the name of k's constant in this package, e.g. "CondURLMatches".
func (k CondKind) GoName() string { return goName("Cond", string(k)) }

package vocab

// Read names a page-reading step whose output a spec binds (`into`): the
// perception the engine offers a model, as spec steps. Unlike an
// [Action], it changes nothing on the page.
type Read string

// The page reads.
const (
	// ReadActionMenu lists the page's actionable elements, each with the
	// target a spec would write for it.
	ReadActionMenu Read = "action_menu"
	// ReadAnnotatedScreenshot captures the viewport with a numbered badge
	// on each actionable element (the numbers of the action menu), the
	// page's secrets masked.
	ReadAnnotatedScreenshot Read = "annotated_screenshot"
)

var reads = []Read{ReadActionMenu, ReadAnnotatedScreenshot}

// Reads returns every page read in documentation order.
func Reads() []Read { return clone(reads) }

// Valid reports whether r is one of [Reads].
func (r Read) Valid() bool { return contains(reads, r) }

// GoName is the name of r's constant in this package, e.g. "ReadActionMenu".
func (r Read) GoName() string { return goName("Read", string(r)) }

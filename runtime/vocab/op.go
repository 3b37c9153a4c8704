package vocab

// Op is a comparison operator of assert, if and tests; see docs/spec.md,
// "Comparisons".
type Op string

// The comparison operators.
const (
	OpEquals    Op = "equals"     // deep equality; integers and numbers compare numerically
	OpNotEquals Op = "not_equals" // negated equals
	OpMatches   Op = "matches"    // the value as text matches a Go regexp
	OpContains  Op = "contains"   // substring of a string, or element of a list
	OpGT        Op = "gt"         // numeric >
	OpGTE       Op = "gte"        // numeric >=
	OpLT        Op = "lt"         // numeric <
	OpLTE       Op = "lte"        // numeric <=
	OpEmpty     Op = "empty"      // operand true: "", [] or {}; false: not empty
	OpLen       Op = "len"        // length (characters, elements or fields) equals the operand
)

var ops = []Op{OpEquals, OpNotEquals, OpMatches, OpContains, OpGT, OpGTE, OpLT, OpLTE, OpEmpty, OpLen}

// Ops returns every comparison operator in documentation order.
func Ops() []Op { return clone(ops) }

// Valid reports whether op is one of [Ops].
func (op Op) Valid() bool { return contains(ops, op) }

// GoName is the name of op's constant in this package, e.g. "OpNotEquals".
func (op Op) GoName() string { return goName("Op", string(op)) }

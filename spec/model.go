package spec

import (
	"time"

	"github.com/macrokit/macrokit-go/runtime/vocab"
	"github.com/xeipuuv/gojsonschema"
	"gopkg.in/yaml.v3"
)

// FormatVersion is the spec format version this package reads (`macrokit: 1`).
const FormatVersion = 1

// MaxForeach is the largest `foreach.max` a spec may declare.
const MaxForeach = 1000

// MainTab is the name of a macro call's first page; a step that opens a
// tab names it (`opens`).
const MainTab = "main"

// MaxRetry is the largest `retry` a step may declare.
const MaxRetry = 5

// Risk says what running a macro may do.
type Risk string

// The risk levels, from least to most consequential.
const (
	// RiskRead macros only look: they change nothing.
	RiskRead Risk = "read"
	// RiskAct macros change things that can be undone or are routine.
	RiskAct Risk = "act"
	// RiskDangerous macros delete, pay, send or otherwise cannot be undone;
	// runtimes should ask for confirmation.
	RiskDangerous Risk = "dangerous"
)

// Level orders risks: read 0, act 1, dangerous 2 (unknown -1).
func (r Risk) Level() int {
	switch r {
	case RiskRead:
		return 0
	case RiskAct:
		return 1
	case RiskDangerous:
		return 2
	}
	return -1
}

// Spec is one macro: a validated macros.d/*.yaml file.
type Spec struct {
	// File is the path the spec was parsed from, as given to ParseFile.
	File string
	Pos  Pos // the document's position
	// Format is the `macrokit:` format version (always FormatVersion).
	Format      int
	Name        string // the macro's snake_case name
	NamePos     Pos    // the position of the name
	Version     string // the macro's semantic version
	Intent      string // one line: what the macro does
	IntentPos   Pos    // where the intent is written
	Description string // longer text for the Go doc comment
	Risk        Risk   // read, act or dangerous
	// Params is the schema of the macro's arguments; never nil (a macro
	// without `params` has an empty object schema).
	Params *Schema
	// Result is the schema of what the macro returns, or nil.
	Result   *Schema
	Examples []*Example // what users might say, with arguments
	Steps    []*Step    // the steps, in order
	// Returns builds the result from parameters and variables (a map
	// Value), or nil when the macro returns nothing.
	Returns *Value
	Tests   []*Test // end-to-end tests
	// Unverified, when set, is the spec's reason why some effects of the
	// macro are not checked by any post-condition (`unverified:` at the top
	// level): check then accepts them. UnverifiedPos is where it is.
	Unverified    string
	UnverifiedPos Pos
	// Login is set on a macro that signs in (`login:`): the session
	// contract the macros naming it in `session:` rely on.
	Login *Login
	// Session names the login macro whose session this macro needs
	// (`session:`); SessionPos is where.
	Session    string
	SessionPos Pos
	// DoneCheck tells whether a call already had its effect
	// (`done_check:`), for a call that may have run (docs/batch.md).
	DoneCheck *DoneCheck

	// Filled by the checker:

	// Vars are the variables the steps define, in order of first definition.
	// A name has one type throughout a macro, so the generator may declare
	// them all up front.
	Vars []*Var
	// Env lists the environment variables the templates read, sorted.
	Env []string
	// Calls lists the macros this one calls, sorted and unique.
	Calls []string
	// Primitives lists the primitives this one uses, sorted and unique.
	Primitives []string

	callSites []callSite
}

// Var is a variable defined by a step (`into`, `set`, `as`, `index`, http
// `extract`).
type Var struct {
	Name string // the variable's name
	Type *Type  // its one type
	// Secret is true when the value derives from a secret parameter.
	Secret bool
	// Pos is the first definition.
	Pos Pos
}

// Schema is a JSON Schema (draft-07) of an object, kept as written (Raw, the
// YAML converted to JSON values) plus a typed view of its properties.
type Schema struct {
	// Raw is the schema as JSON-compatible values (map[string]any, []any,
	// string, int64, float64, bool, nil). It may hold `secret: true`, an
	// annotation JSON Schema validators ignore.
	Raw map[string]any
	// Type is the typed view; its Kind is always KindObject.
	Type *Type
	Pos  Pos // the position of params or result

	compiled *gojsonschema.Schema // cached by validator
}

// Properties returns the schema's top-level properties in source order.
func (s *Schema) Properties() []*Property {
	if s == nil || s.Type == nil {
		return nil
	}
	return s.Type.Props
}

// Property returns the top-level property called name, or nil.
func (s *Schema) Property(name string) *Property {
	if s == nil {
		return nil
	}
	return s.Type.Prop(name)
}

// Example is something a user might say and the arguments it means.
type Example struct {
	Say  string         // what a user might say
	Args map[string]any // the arguments it means (JSON-compatible values)
	Pos  Pos            // the example's position
}

// Test is an end-to-end test of the macro: run it with Args, then check the
// result against Want (or that it fails with WantError).
type Test struct {
	Name string         // unique in the spec
	Args map[string]any // the arguments (JSON-compatible values)
	// Want checks result fields, in source order.
	Want []*Want
	// WantError, when set, means the run must fail with an error whose
	// message contains it.
	WantError string
	// Site names the live site the test runs against ("" when none): the
	// test needs {{ env.<SITE>_URL }} pointing at it (site demo: DEMO_URL),
	// which a binary may serve in-process (`macrokit test` does for demo).
	Site string
	Pos  Pos // the test's position
}

// Want is one check of a result field in a test.
type Want struct {
	// Field is a top-level result property.
	Field string
	// Op is how the field is compared; a bare value means vocab.OpEquals.
	Op vocab.Op
	// Arg is the literal operand (JSON-compatible value).
	Arg any
	Pos Pos // the position of the expected value

	keyPos Pos        // the field name's position
	node   *yaml.Node // the operand, for a type check once the result is known
	path   string
	argOK  bool // the operand parsed
}

// StepKind names a step.
type StepKind string

// The step kinds. The page actions are the vocabulary's ([vocab.Actions]).
const (
	StepGoto                = StepKind(vocab.ActGoto)
	StepClick               = StepKind(vocab.ActClick)
	StepFill                = StepKind(vocab.ActFill)
	StepType                = StepKind(vocab.ActType)
	StepSelect              = StepKind(vocab.ActSelect)
	StepCheck               = StepKind(vocab.ActCheck)
	StepUncheck             = StepKind(vocab.ActUncheck)
	StepPress               = StepKind(vocab.ActPress)
	StepHover               = StepKind(vocab.ActHover)
	StepUpload              = StepKind(vocab.ActUpload)
	StepScroll              = StepKind(vocab.ActScroll)
	StepWait                = StepKind(vocab.ActWait)
	StepExtract    StepKind = "extract"
	StepScreenshot StepKind = "screenshot"
	// The page reads are the vocabulary's ([vocab.Reads]).
	StepActionMenu                   = StepKind(vocab.ReadActionMenu)
	StepAnnotatedScreenshot          = StepKind(vocab.ReadAnnotatedScreenshot)
	StepCloseTab            StepKind = "close_tab"
	StepHTTP                StepKind = "http"
	StepSet                 StepKind = "set"
	StepAssert              StepKind = "assert"
	StepCall                StepKind = "call"
	StepPrimitive           StepKind = "primitive"
	StepLookup              StepKind = "lookup"
	StepMCP                 StepKind = "mcp"
	StepTOTP                StepKind = "totp"
	StepForeach             StepKind = "foreach"
	StepIf                  StepKind = "if"
)

// stepKinds lists every step kind in documentation order: the page actions,
// then the rest.
var stepKinds = append(pageKinds(), StepExtract, StepScreenshot, StepActionMenu, StepAnnotatedScreenshot, StepCloseTab, StepHTTP,
	StepSet, StepAssert, StepCall, StepPrimitive, StepLookup, StepMCP, StepTOTP, StepForeach, StepIf)

func pageKinds() []StepKind {
	var out []StepKind
	for _, a := range vocab.Actions() {
		out = append(out, StepKind(a))
	}
	return out
}

// IsPageAction reports whether k is one of the engine's page actions
// (including wait).
func (k StepKind) IsPageAction() bool { return vocab.Action(k).Valid() }

// Step is one step of a macro. Kind says which of the per-kind fields are set.
type Step struct {
	Kind StepKind // which action this is
	Pos  Pos      // the step's position
	// Path is where the step is, e.g. "steps[4].foreach.steps[0]".
	Path string

	// Target is the element of click, hover, check, uncheck, fill, type,
	// select, upload, and optionally press and scroll.
	Target *Target
	// URL is goto's address.
	URL *Template
	// Value is fill's text, or the text type sends key by key.
	Value *Template
	// Delay is type's pause between two keystrokes (0: none).
	Delay time.Duration
	// Options are select's option labels or values (several for a multiselect).
	Options []*Template
	// OptionsFrom is select's options given as one reference to a list of
	// strings (options: "{{ regions }}"); Options is then empty.
	OptionsFrom *Template
	// SelectPath is a cascader select's path (the spec's select.path): one
	// option name per level, in order.
	SelectPath []*Template
	// SelectPathFrom is that path given as one reference to a list of
	// strings.
	SelectPathFrom *Template
	// Key is press's key, e.g. "Enter" or "Control+A".
	Key *Template
	// Files are upload's file paths.
	Files []*Template
	// DeltaY is scroll's distance in CSS pixels (0: scroll Target into
	// view). With a Target it scrolls the target's scrollable container.
	DeltaY float64
	// Opens names the tab or popup a click or press opens ("": none);
	// OpensPos is where the name is.
	Opens    string
	OpensPos Pos
	// Tab is the tab a page step, extract or screenshot runs in ("": the
	// main tab); TabPos is where the name is. For close_tab, the tab it
	// closes.
	Tab    string
	TabPos Pos

	Extract    *Extract    // an extract step
	Screenshot *Screenshot // a screenshot step
	// ActionMenu is an action_menu step, Annotated an
	// annotated_screenshot step.
	ActionMenu *ActionMenu
	Annotated  *AnnotatedScreenshot
	HTTP       *HTTP // an http step
	// Set holds the assignments of a set step, in source order.
	Set       []*Assign
	Assert    *Predicate // an assert step
	Call      *Call      // a call step
	Primitive *Primitive // a primitive step
	Lookup    *Lookup    // a lookup step
	MCP       *MCP       // an mcp step
	// TOTP is a totp step.
	TOTP    *TOTP
	Foreach *Foreach // a foreach step
	If      *If      // an if step

	// Expect are the post-conditions that prove the step worked (for wait,
	// the conditions it waits for).
	Expect []*Condition
	// Timeout bounds the step (0: the runtime default).
	Timeout time.Duration
	// Retry is how many extra attempts the step may make (0..MaxRetry; an
	// explicit 0 means none), or nil for the runtime's default.
	Retry *int
	// Acknowledge is the author's reason a consequential action (a click
	// on "Delete", Enter on "Send") belongs in a macro not marked
	// dangerous; "" when not given. AcknowledgePos is where it is.
	Acknowledge    string
	AcknowledgePos Pos
	// Unverified, when set, is the reason no post-condition checks this
	// effectful step (`unverified:` on the step); UnverifiedPos is where.
	Unverified    string
	UnverifiedPos Pos
}

// Target says which element a step acts on. Exactly one locator (Role,
// Label, Text, Placeholder, TestID, CSS) is set; Name refines Role.
// Strings are templates; Name and Text may be /regex/.
type Target struct {
	Role        string    // a WAI-ARIA role (literal)
	Name        *Template // with Role: the accessible name, exact or /regex/
	Label       *Template // a form control's label
	Text        *Template // visible text, or /regex/
	Placeholder *Template // an input's placeholder
	TestID      *Template // a data-testid
	CSS         *Template // a CSS selector
	// Within restricts the search to inside another element.
	Within *Target
	// Nth picks the Nth match (0-based).
	Nth *int
	// Last picks the last match.
	Last bool
	Pos  Pos // the target's position
}

// Condition is a post-condition on the live page.
type Condition struct {
	Kind vocab.CondKind // which check this is
	// Target: the element of element_*, value_equals, attribute_equals,
	// element_state, list_count_delta; the `within` of text_present/absent.
	Target *Target
	// Pattern is the regexp of url_matches and title_matches.
	Pattern *Template
	// Text is text_present/text_absent's substring or /regex/.
	Text *Template
	// Value is what value_equals and attribute_equals compare with.
	Value *Template
	// Attr is attribute_equals's attribute name.
	Attr string
	// State is element_state's state.
	State vocab.State
	// Delta is list_count_delta's expected change in the number of matches.
	Delta int
	// URL (substring or /regex/), Method and Status (0: any 2xx) of
	// request_succeeded.
	URL    *Template
	Method string // request_succeeded: the HTTP method, or any
	Status int    // request_succeeded: the status, or 0 for any 2xx
	// Timeout for this check (0: the runtime default).
	Timeout time.Duration
	// Tab is the tab the condition checks ("": the step's tab); TabPos is
	// where the name is.
	Tab    string
	TabPos Pos
	Pos    Pos // the condition's position

	path string // for diagnostics, e.g. "steps[2].expect[0].text_present"
}

// ExtractMode says what an extract step reads.
type ExtractMode string

// The extract modes.
const (
	// ExtractOne reads one string from the (single) target element.
	ExtractOne ExtractMode = "one"
	// ExtractAll reads one string from every match: an array of string.
	ExtractAll ExtractMode = "all"
	// ExtractCount counts the matches: an integer.
	ExtractCount ExtractMode = "count"
	// ExtractRows reads fields from every match: an array of objects.
	ExtractRows ExtractMode = "rows"
)

// Source says what a getter reads from an element.
type Source string

// The getter sources.
const (
	SourceText  Source = "text"  // the element's visible text (innerText), trimmed
	SourceValue Source = "value" // a form control's current value
	SourceAttr  Source = "attr"  // an attribute (Getter.Attr)
)

// Getter reads one string from an element.
type Getter struct {
	Source Source // text, value or attr
	// Attr is the attribute name when Source is SourceAttr.
	Attr string
	// Target, in a row field, is the single element inside the row to read
	// from (nil: the row element itself). It maps to engine.Field.In.
	Target *Target
	// Optional, in a row field, yields "" when the element or attribute is
	// missing instead of failing the step.
	Optional bool
	Pos      Pos // the getter's position
}

// Field is a named column of an extract with rows.
type Field struct {
	Name string  // the field of each row object
	Get  *Getter // what the field reads
	Pos  Pos     // the field's position
}

// Extract reads data from the page into a variable.
type Extract struct {
	Target *Target     // the element(s) to read
	Mode   ExtractMode // one, all, count or rows
	// Get is what one and all read.
	Get *Getter
	// Rows are the fields of each row (ExtractRows), in source order.
	Rows []*Field
	// Max, when > 0, reads at most Max matches (ExtractAll, ExtractRows).
	Max  int
	Into string // the variable that receives the data
	// IntoPos is the position of the `into` value.
	IntoPos Pos
	// Type is the variable's type: string, array of string, integer, or
	// array of object with one string property per field.
	Type *Type
}

// Screenshot captures the page or one element.
type Screenshot struct {
	// Name names the image (letters, digits, '.', '_' and '-').
	Name string
	// Target, when set, captures only that element.
	Target   *Target
	FullPage bool // capture the whole scrollable page
	Pos      Pos  // the step value's position
}

// HTTP is a request sent by the runtime, with a JSON body and response.
type HTTP struct {
	Method  string           // GET unless given
	URL     *Template        // the request URL
	Headers []*NamedTemplate // request headers, in source order
	Query   []*NamedTemplate // query parameters added to the URL, in source order
	// Body is sent as JSON when set.
	Body *Value
	// ExpectStatus lists the accepted statuses (empty: any 2xx).
	ExpectStatus []int
	// Extract defines variables from the JSON response.
	Extract []*JSONExtract
	// Into, when set, names a variable that receives the whole decoded
	// response body (type any).
	Into    string
	IntoPos Pos // the position of into
	Pos     Pos // the http mapping's position
}

// NamedTemplate is a header or query parameter.
type NamedTemplate struct {
	Name  string    // the header or parameter name
	Value *Template // its value
	Pos   Pos       // the name's position
}

// JSONExtract defines a variable from a JSON path into the response.
type JSONExtract struct {
	Name string    // the variable defined
	Path *JSONPath // where the value is in the response
	// Type is the declared type (`{path, type}`), or any.
	Type *Type
	Pos  Pos // the name's position
}

// JSONPath is a simple JSON path: $ then .key, ["key"], [N] or [*] segments.
type JSONPath struct {
	Raw      string        // the path as written
	Segments []PathSegment // the steps after $
}

// PathSegment is one step of a JSONPath.
type PathSegment struct {
	// Key is an object key (when neither IsIndex nor Wildcard).
	Key string
	// Index is an array index (IsIndex); negative counts from the end.
	Index   int
	IsIndex bool // whether this segment is an index
	// Wildcard ([*]) maps the rest of the path over every array element.
	Wildcard bool
}

// Assign is one variable of a set step.
type Assign struct {
	Name  string // the variable
	Value *Value // its value
	Pos   Pos    // the name's position
}

// Predicate compares a value: `{that: "{{ x }}", <op>: operand}`.
type Predicate struct {
	That *Value   // the value compared
	Op   vocab.Op // the operator
	Arg  *Value   // the operand
	// Message, when set, is the failure message of an assert.
	Message string
	Pos     Pos // the comparison's position
}

// Call runs another macro of the set.
type Call struct {
	Macro    string // the called macro's name
	MacroPos Pos    // the position of the name
	// Args is a map Value, or nil.
	Args    *Value
	Into    string // the variable receiving the result, or ""
	IntoPos Pos    // the position of into
	Pos     Pos    // the call mapping's position

	argsBad bool // args was not a mapping (already reported)
}

// Primitive calls a Go function registered by the deployment.
type Primitive struct {
	Name    string // the primitive's registered name
	NamePos Pos    // the position of the name
	// Args is a map Value, or nil.
	Args    *Value
	Into    string // the variable receiving the result, or ""
	IntoPos Pos    // the position of into
	Pos     Pos    // the primitive mapping's position

	argsBad bool // args was not a mapping (already reported)
}

// Lookup reads one row of a reference-data bundle by key (see
// docs/refdata.md): `lookup: {bundle, file, key, into}`.
// TOTP is a totp step: the current RFC 6238 code of a secret, into a
// variable (a secret itself).
type TOTP struct {
	Secret    *Template // one reference to a secret parameter or {{ env.NAME }}
	SecretPos Pos
	Into      string
	IntoPos   Pos
	Pos       Pos
}

type Lookup struct {
	// Bundle is the bundle's name, or name@version to read that version.
	Bundle    string
	BundlePos Pos // the position of bundle
	// File is the path of a file in the bundle.
	File    string
	FilePos Pos // the position of file
	// Key is the value of the file's key column, as text.
	Key     *Template
	Into    string // the variable receiving the row
	IntoPos Pos    // the position of into
	Pos     Pos    // the lookup mapping's position

	// Filled by the checker:

	// Type is the row's type: an object whose fields come from the file's
	// row schema when the bundle is in the project (Options.Refdata), else
	// a free-form object.
	Type *Type
	// KeyColumn is the file's key column ("" when the bundle is not in the
	// project).
	KeyColumn string
}

// Foreach runs steps for each element of a list.
type Foreach struct {
	// In is a template that is exactly one reference to a list.
	In *Template
	// As names the element variable, visible in Steps.
	As    string
	AsPos Pos // the position of as
	// Index, when set, names the 0-based index variable (integer).
	Index    string
	IndexPos Pos // the position of index
	// Max bounds the list: a longer list fails the step (1..MaxForeach).
	Max   int
	Steps []*Step // the body
	// Collect, when set, is evaluated after each iteration and appended to
	// the array variable Into.
	Collect *Value
	Into    string // the variable receiving the collected list, or ""
	IntoPos Pos    // the position of into
	Pos     Pos    // the foreach mapping's position
}

// If runs Then when the condition holds, else Else. Exactly one of Cond and
// PageCond is set.
type If struct {
	// Cond is a predicate over values (a bare boolean template is
	// normalized to {that: ..., equals: true}).
	Cond *Predicate
	// PageCond is a post-condition checked on the page.
	PageCond *Condition
	Then     []*Step // steps run when the condition holds
	Else     []*Step // steps run otherwise
	Pos      Pos     // the if mapping's position
}

// ValueKind is the kind of a Value.
type ValueKind string

// The value kinds.
const (
	ValueNull   ValueKind = "null"
	ValueBool   ValueKind = "bool"
	ValueInt    ValueKind = "int"
	ValueFloat  ValueKind = "float"
	ValueString ValueKind = "string"
	ValueList   ValueKind = "list"
	ValueMap    ValueKind = "map"
)

// Value is a YAML value whose strings are templates: call and primitive
// args, http bodies, set values, assert operands, returns.
type Value struct {
	Kind  ValueKind // which of the fields below is set
	Bool  bool      // a boolean
	Int   int64     // an integer
	Float float64   // a number
	// Str is the template of a string value.
	Str  *Template
	List []*Value // a list's elements
	// Map holds a map's entries in source order.
	Map []*Entry
	Pos Pos // the value's position

	// Type is the inferred type (set by the checker).
	Type *Type
	// Secret is true when the value derives from a secret (set by the checker).
	Secret bool
}

// Entry is a key of a map Value.
type Entry struct {
	Key   string // the key
	Value *Value // its value
	Pos   Pos    // the key's position
}

// Get returns the value of key in a map Value, or nil.
func (v *Value) Get(key string) *Value {
	if v == nil {
		return nil
	}
	for _, e := range v.Map {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

// Literal returns v as a JSON-compatible Go value when it holds no template
// reference.
func (v *Value) Literal() (any, bool) {
	if v == nil {
		return nil, true
	}
	switch v.Kind {
	case ValueNull:
		return nil, true
	case ValueBool:
		return v.Bool, true
	case ValueInt:
		return v.Int, true
	case ValueFloat:
		return v.Float, true
	case ValueString:
		if !v.Str.IsLiteral() {
			return nil, false
		}
		return v.Str.Literal(), true
	case ValueList:
		out := make([]any, 0, len(v.List))
		for _, e := range v.List {
			x, ok := e.Literal()
			if !ok {
				return nil, false
			}
			out = append(out, x)
		}
		return out, true
	case ValueMap:
		out := make(map[string]any, len(v.Map))
		for _, e := range v.Map {
			x, ok := e.Value.Literal()
			if !ok {
				return nil, false
			}
			out[e.Key] = x
		}
		return out, true
	}
	return nil, false
}

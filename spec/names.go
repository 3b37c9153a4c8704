package spec

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

var (
	// macro names and variable names
	snakeRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	// property names in params/result schemas
	propRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
	// env variable names
	envRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// a reference segment
	identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// semantic versioning 2.0.0
	semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
	// screenshot names
	fileNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	// HTTP header names (RFC 9110 token)
	headerRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

var goKeywords = set("break", "case", "chan", "const", "continue", "default", "defer", "else",
	"fallthrough", "for", "func", "go", "goto", "if", "import", "interface", "map", "package",
	"range", "return", "select", "struct", "switch", "type", "var")

var goPredeclared = set("any", "bool", "byte", "comparable", "complex64", "complex128", "error",
	"float32", "float64", "int", "int8", "int16", "int32", "int64", "rune", "string", "uint",
	"uint8", "uint16", "uint32", "uint64", "uintptr", "true", "false", "iota", "nil", "append",
	"cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min",
	"new", "panic", "print", "println", "real", "recover")

// reservedRoots are the template roots that cannot be parameter or variable names.
var reservedRoots = set("env", "vars", "params")

// ariaRoles are the WAI-ARIA roles a target may name (the set Playwright and
// the engine's accessibility tree use).
var ariaRoles = []string{
	"alert", "alertdialog", "application", "article", "banner", "blockquote", "button", "caption",
	"cell", "checkbox", "code", "columnheader", "combobox", "complementary", "contentinfo",
	"definition", "deletion", "dialog", "directory", "document", "emphasis", "feed", "figure",
	"form", "generic", "grid", "gridcell", "group", "heading", "img", "insertion", "link", "list",
	"listbox", "listitem", "log", "main", "marquee", "math", "menu", "menubar", "menuitem",
	"menuitemcheckbox", "menuitemradio", "meter", "navigation", "none", "note", "option",
	"paragraph", "presentation", "progressbar", "radio", "radiogroup", "region", "row", "rowgroup",
	"rowheader", "scrollbar", "search", "searchbox", "separator", "slider", "spinbutton", "status",
	"strong", "subscript", "superscript", "switch", "tab", "table", "tablist", "tabpanel", "term",
	"textbox", "time", "timer", "toolbar", "tooltip", "tree", "treegrid", "treeitem",
}

// elementStates are the states element_state can check, as strings.
func elementStates() []string {
	var out []string
	for _, s := range vocab.States() {
		out = append(out, string(s))
	}
	return out
}

// httpMethods are the methods http steps and request_succeeded accept.
var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// keyNames are the named keys press accepts, besides single characters.
var keyNames = []string{
	"Enter", "Tab", "Escape", "Backspace", "Delete", "Insert", "Space",
	"ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown",
	"F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12",
	"Shift", "Control", "Alt", "Meta", "ControlOrMeta", "ContextMenu", "CapsLock",
}

// modifierKeys may precede another key with "+".
var modifierKeys = set("Shift", "Control", "Alt", "Meta", "ControlOrMeta")

// jsonFormats are the string formats the validator knows (gojsonschema's).
var jsonFormats = []string{"date", "time", "date-time", "hostname", "email", "idn-email",
	"ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uri-template", "uuid",
	"regex", "json-pointer", "relative-json-pointer"}

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, s := range items {
		m[s] = true
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// commonInitialisms are rendered in upper case by GoName (as golint does).
var commonInitialisms = set("ACL", "API", "ASCII", "CPU", "CSS", "DNS", "EOF", "GUID", "HTML",
	"HTTP", "HTTPS", "ID", "IP", "JSON", "LHS", "QPS", "RAM", "RHS", "RPC", "SLA", "SMTP", "SQL",
	"SSH", "TCP", "TLS", "TTL", "UDP", "UI", "UID", "UUID", "URI", "URL", "UTF8", "VM", "XML",
	"XMPP", "XSRF", "XSS")

// GoName maps a snake_case (or camelCase) name to the exported Go identifier
// the generator uses for it: "customer_id" -> "CustomerID", "tier" -> "Tier",
// "pageURL" -> "PageURL". Parts are split at underscores and hyphens; parts
// that are common initialisms are upper-cased.
func GoName(name string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' }) {
		if up := strings.ToUpper(part); commonInitialisms[up] {
			b.WriteString(up)
			continue
		}
		r := []rune(part)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	s := b.String()
	if s == "" || !unicode.IsLetter([]rune(s)[0]) {
		s = "X" + s
	}
	return s
}

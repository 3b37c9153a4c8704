package spec

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// MCP is an mcp step: a call of a tool of an MCP server the deployment
// configures (macrokit.yaml mcp_servers:), `mcp: {server, tool, args,
// extract, into}`.
type MCP struct {
	Server    string // the configured server's name
	ServerPos Pos
	Tool      string // the tool's name on that server
	ToolPos   Pos
	// Args is a map Value, or nil.
	Args *Value
	// Extract defines variables from the result, by JSON path.
	Extract []*JSONExtract
	// Into, when set, receives the whole result.
	Into    string
	IntoPos Pos
	Pos     Pos // the mcp mapping's position

	// Filled by the checker:

	// Def is the tool as the server's schema describes it (nil when the
	// schema is not known: ParseFile).
	Def *MCPTool
	// Risk is the tool's risk ("" when Def is nil).
	Risk Risk
	// Type is the result's type: the tool's output schema as a type when
	// it declares one that maps onto Go types, else any.
	Type *Type

	argsBad    bool
	unresolved bool // the server or tool is unknown (reported)
}

// MCPServer is what generate knows of one configured server: its tools,
// read from the server or from the schema cached beside the specs.
type MCPServer struct {
	Name string
	// Source says where the tools were read, for diagnostics (e.g.
	// "macros.d/.mcp/tickets.json").
	Source string
	Tools  []*MCPTool
}

// Tool returns the tool called name, or nil.
func (s *MCPServer) Tool(name string) *MCPTool {
	for _, t := range s.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// MCPTool is one tool of a server: its name, its JSON Schemas (as decoded
// JSON) and its annotations.
type MCPTool struct {
	Name         string
	Description  string
	InputSchema  map[string]any // nil: no arguments declared
	OutputSchema map[string]any // nil: no structured output declared
	// ReadOnly and Destructive are the readOnlyHint and destructiveHint
	// annotations (Destructive nil: not given).
	ReadOnly    bool
	Destructive *bool
}

// Risk is the risk of calling the tool (vocab.ToolRisk): read for a
// read-only tool, act for one that says it is not destructive, dangerous
// otherwise (MCP's default).
func (t *MCPTool) Risk() Risk { return Risk(vocab.ToolRisk(t.ReadOnly, t.Destructive)) }

// MCPSource gives the checker the configured servers' tools.
type MCPSource interface {
	// Servers are the configured servers' names, sorted.
	Servers() []string
	// Server returns a configured server's tools; nil and no error for
	// a server that is not configured.
	Server(name string) (*MCPServer, error)
}

// mcpServerRE is a server's name (mcpclient.NameRE).
var mcpServerRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// mcpToolRE is an MCP tool name (1-128 of letters, digits, _ - .).
var mcpToolRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func (p *parser) mcp(m *mapping) *MCP {
	c := &MCP{Pos: p.pos(m.node)}
	m.require("server", "tool")
	if sn := m.get("server"); sn != nil {
		c.ServerPos = p.pos(resolve(sn))
		if s, ok := p.name(sn, m.sub("server")); ok {
			if !mcpServerRE.MatchString(s) {
				p.errf(sn, m.sub("server"), "server %q must be the name of a server in macrokit.yaml mcp_servers: (a lower-case letter, then lower-case letters, digits, '_' or '-')", s)
			} else {
				c.Server = s
			}
		}
	}
	if tn := m.get("tool"); tn != nil {
		c.ToolPos = p.pos(resolve(tn))
		if s, ok := p.name(tn, m.sub("tool")); ok {
			if !mcpToolRE.MatchString(s) {
				p.errf(tn, m.sub("tool"), "tool %q is not an MCP tool name (1-128 of letters, digits, '_', '-' and '.'); it is literal, not a template", s)
			} else {
				c.Tool = s
			}
		}
	}
	c.Args, c.argsBad, c.Into, c.IntoPos = p.argsInto(m)
	if en := m.get("extract"); en != nil {
		c.Extract = p.jsonExtracts(en, m.sub("extract"))
	}
	return c
}

// mcpServer returns the tools of a configured server once per LoadFiles,
// reporting why they cannot be had.
func (e *env) mcpServer(name string) (*MCPServer, error) {
	if e.mcpCache == nil {
		e.mcpCache = map[string]mcpEntry{}
	}
	if got, ok := e.mcpCache[name]; ok {
		return got.s, got.err
	}
	var s *MCPServer
	var err error
	if e.mcp != nil {
		s, err = e.mcp.Server(name)
	}
	e.mcpCache[name] = mcpEntry{s, err}
	return s, err
}

type mcpEntry struct {
	s   *MCPServer
	err error
}

// mcp checks an mcp step: the server is configured, the tool is one of
// its tools, the arguments fit the tool's input schema, the tool's risk
// does not exceed the macro's, and the result's type comes from its
// output schema.
func (c *checker) mcp(st *MCP, sc *scope, path string) []pending {
	if st == nil {
		return nil
	}
	apath := join(path, "args")
	if st.Args != nil {
		c.value(st.Args, sc, apath)
	}
	st.Type = Scalar(KindAny)
	if c.env != nil {
		st.unresolved = true
		if st.Server != "" && st.Tool != "" {
			c.mcpTool(st, apath, path)
		}
	}
	var defs []pending
	for _, x := range st.Extract {
		defs = append(defs, pending{x.Name, x.Pos, join(path, "extract"), x.Type, false})
	}
	if st.Into != "" {
		defs = append(defs, pending{st.Into, st.IntoPos, join(path, "into"), st.Type, false})
	}
	return defs
}

func (c *checker) mcpTool(st *MCP, apath, path string) {
	srv, err := c.env.mcpServer(st.Server)
	if err != nil {
		c.errf(st.ServerPos, join(path, "server"), "MCP server %s: %v", st.Server, err)
		return
	}
	if srv == nil {
		var names []string
		if c.env.mcp != nil {
			names = c.env.mcp.Servers()
		}
		hint := didYouMean(st.Server, names)
		if hint == "" {
			hint = " (configured: " + strings.Join(names, ", ") + ")"
			if len(names) == 0 {
				hint = " (no MCP servers are configured: add it to mcp_servers: in macrokit.yaml)"
			}
		}
		c.errf(st.ServerPos, join(path, "server"), "unknown MCP server %q%s", st.Server, hint)
		return
	}
	tool := srv.Tool(st.Tool)
	if tool == nil {
		var names []string
		for _, t := range srv.Tools {
			names = append(names, t.Name)
		}
		hint := didYouMean(st.Tool, names)
		if hint == "" {
			hint = " (tools: " + strings.Join(names, ", ") + ")"
			if len(names) == 0 {
				hint = " (it lists no tools)"
			}
		}
		c.errf(st.ToolPos, join(path, "tool"), "server %s has no tool %q%s, according to %s", st.Server, st.Tool, hint, srv.Source)
		return
	}
	st.Def, st.Risk, st.unresolved = tool, tool.Risk(), false
	callee := "tool " + st.Tool + " of server " + st.Server
	if !st.argsBad {
		at := st.Pos
		if st.Args != nil {
			at = st.Args.Pos
		}
		if params, open := toolParams(tool.InputSchema); open {
			c.openArgs(st.Args, apath, callee)
		} else {
			c.args(st.Args, params, apath, callee, at)
		}
	}
	if st.Risk.Level() > c.s.Risk.Level() && c.s.Risk != "" {
		why := "is not annotated read-only (readOnlyHint)"
		if st.Risk == RiskDangerous {
			why = "is annotated destructive (destructiveHint: true)"
			if tool.Destructive == nil {
				why = "has neither readOnlyHint nor destructiveHint: false, so MCP counts it destructive"
			}
		}
		c.errf(st.ToolPos, join(path, "tool"), "this macro's risk is %s but %s %s: raise risk to %s", c.s.Risk, callee, why, st.Risk)
	}
	if t := schemaType(tool.OutputSchema, 0); t != nil && t.Kind == KindObject {
		st.Type = t
	}
}

// openArgs checks the arguments of a tool whose input schema declares no
// properties and admits any: they are passed as they are, but no secret
// may go to a parameter the schema does not mark secret.
func (c *checker) openArgs(args *Value, path, callee string) {
	if args == nil {
		return
	}
	for _, e := range args.Map {
		if e.Value.Secret {
			c.errf(e.Value.Pos, join(path, e.Key), "passes a secret value to %s, whose input schema does not declare %q (a secret goes only to a property marked writeOnly: true or format: password)", callee, e.Key)
		}
	}
}

// toolParams reads a tool's input schema as parameters (sorted by name):
// each property's type as far as it maps onto the spec's types (any
// beyond), required as the schema says, secret when writeOnly or
// format: password. open is true when the schema admits undeclared
// properties and declares none (a free-form object): then any argument is
// accepted.
func toolParams(schema map[string]any) (params []*Property, open bool) {
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		if ap, ok := schema["additionalProperties"]; ok && ap == false {
			return nil, false
		}
		return nil, schema != nil
	}
	req := stringSet(schema["required"])
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ps, _ := props[n].(map[string]any)
		t := schemaType(ps, 0)
		if t == nil {
			t = Scalar(KindAny)
		}
		p := &Property{Name: n, GoName: GoName(n), Type: t, Required: req[n]}
		if ps != nil {
			p.Description, _ = ps["description"].(string)
			p.Default, p.HasDefault = ps["default"]
			p.Secret = ps["writeOnly"] == true || ps["format"] == "password"
		}
		params = append(params, p)
	}
	return params, false
}

func stringSet(v any) map[string]bool {
	out := map[string]bool{}
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out[s] = true
		}
	}
	return out
}

// maxSchemaDepth bounds how deep a tool's schema is read as types; deeper
// values are any.
const maxSchemaDepth = 16

// schemaType maps a JSON Schema (a tool's, not a spec's: any draft, any
// keyword) onto a Type, leniently: one type among string, integer,
// number, boolean, array and object maps onto that kind; a union, a
// nullable type, a $ref or no type is any. An object whose property
// names are not identifiers, or two of which share a Go name, is
// free-form (its fields any). nil for no schema.
func schemaType(s map[string]any, depth int) *Type {
	if s == nil {
		return nil
	}
	if depth > maxSchemaDepth {
		return Scalar(KindAny)
	}
	var kind string
	switch t := s["type"].(type) {
	case string:
		kind = t
	case []any:
		var kinds []string
		for _, x := range t {
			if k, ok := x.(string); ok && k != "null" {
				kinds = append(kinds, k)
			}
		}
		if len(kinds) == 1 && len(t) == 1 {
			kind = kinds[0]
		}
	}
	switch kind {
	case "string":
		t := Scalar(KindString)
		if enum, ok := s["enum"].([]any); ok {
			for _, e := range enum {
				if _, ok := e.(string); !ok {
					return t
				}
			}
			t.Enum = enum
		}
		return t
	case "integer":
		return Scalar(KindInteger)
	case "number":
		return Scalar(KindNumber)
	case "boolean":
		return Scalar(KindBoolean)
	case "array":
		items, _ := s["items"].(map[string]any)
		it := schemaType(items, depth+1)
		if it == nil {
			it = Scalar(KindAny)
		}
		return ArrayOf(it)
	case "object":
		props, _ := s["properties"].(map[string]any)
		names := make([]string, 0, len(props))
		for n := range props {
			if !propRE.MatchString(n) {
				return ObjectOf()
			}
			names = append(names, n)
		}
		sort.Strings(names)
		req := stringSet(s["required"])
		t := ObjectOf()
		goNames := map[string]bool{}
		for _, n := range names {
			if goNames[GoName(n)] {
				return ObjectOf()
			}
			goNames[GoName(n)] = true
			ps, _ := props[n].(map[string]any)
			pt := schemaType(ps, depth+1)
			if pt == nil {
				pt = Scalar(KindAny)
			}
			t.Props = append(t.Props, &Property{Name: n, GoName: GoName(n), Type: pt, Required: req[n]})
		}
		return t
	}
	return Scalar(KindAny)
}

// mcpSummary is how an mcp step reads in a diagnostic or a comment.
func (st *MCP) String() string { return fmt.Sprintf("%s.%s", st.Server, st.Tool) }

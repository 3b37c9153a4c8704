package spec

import (
	"encoding/json"
	"sync"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// JSONSchema returns a JSON Schema (draft-07) of the spec file format, for
// `macrokit schema` and for editors (e.g. the YAML language server's
// `# yaml-language-server: $schema=...`). It describes the structure only:
// references, types, regexes and cross-spec rules are checked by ParseFile
// and LoadDir. It is built from the same tables as the parser.
func JSONSchema() []byte {
	b := jsonSchemaBytes()
	return append([]byte(nil), b...)
}

var jsonSchemaBytes = sync.OnceValue(func() []byte {
	b, err := json.MarshalIndent(buildJSONSchema(), "", "  ")
	if err != nil {
		panic(err) // the schema is built from static tables
	}
	return append(b, '\n')
})

type jobj = map[string]any

func jref(name string) jobj { return jobj{"$ref": "#/definitions/" + name} }

// closed is an object schema with the given properties and nothing else.
func closed(props jobj, required ...string) jobj {
	o := jobj{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// exactlyOne requires exactly one of keys to be present.
func exactlyOne(keys ...string) []any {
	var out []any
	for _, k := range keys {
		out = append(out, jobj{"required": []string{k}})
	}
	return out
}

func anyOf(schemas ...any) jobj { return jobj{"anyOf": schemas} }

func buildJSONSchema() jobj {
	text := jobj{"type": []string{"string", "number", "boolean"}, "description": "text; may hold {{ references }}"}
	str := jobj{"type": "string"}
	tru := jobj{"const": true}
	timeout := jref("duration")
	tab := jref("name")
	// unverified: why no post-condition checks an effect (spec/unverified.go).
	reason := jobj{"type": "string", "pattern": `\S+\s+\S+\s+\S+`, "description": "why no post-condition can check this effect (at least 3 words)"}

	locators := jobj{}
	for _, k := range locatorKeys {
		locators[k] = jref("text")
	}
	locators["role"] = jobj{"enum": ariaRoles}
	locators["name"] = jref("text")
	locators["within"] = jref("target")
	locators["nth"] = jobj{"type": "integer", "minimum": 0}
	locators["last"] = jobj{"type": "boolean"}
	target := closed(locators)
	target["oneOf"] = exactlyOne(locatorKeys...)
	target["dependencies"] = jobj{"name": []string{"role"}}
	target["not"] = jobj{"required": []string{"nth", "last"}}

	cond := jobj{}
	for _, k := range vocab.CondKinds() {
		var long jobj
		switch k {
		case vocab.CondURLMatches, vocab.CondTitleMatches:
			long = closed(jobj{"pattern": jref("text"), "timeout": timeout, "tab": tab}, "pattern")
			cond[string(k)] = anyOf(jref("text"), long)
		case vocab.CondTextPresent, vocab.CondTextAbsent:
			long = closed(jobj{"text": jref("text"), "within": jref("target"), "timeout": timeout, "tab": tab}, "text")
			cond[string(k)] = anyOf(jref("text"), long)
		case vocab.CondElementExists, vocab.CondElementGone:
			long = closed(jobj{"target": jref("target"), "timeout": timeout, "tab": tab}, "target")
			cond[string(k)] = anyOf(jref("target"), long)
		case vocab.CondValueEquals:
			cond[string(k)] = closed(jobj{"target": jref("target"), "value": jref("text"), "timeout": timeout, "tab": tab}, "target", "value")
		case vocab.CondAttributeEquals:
			cond[string(k)] = closed(jobj{"target": jref("target"), "attr": str, "value": jref("text"), "timeout": timeout, "tab": tab}, "target", "attr", "value")
		case vocab.CondElementState:
			cond[string(k)] = closed(jobj{"target": jref("target"), "state": jobj{"enum": elementStates()}, "timeout": timeout, "tab": tab}, "target", "state")
		case vocab.CondListCountDelta:
			cond[string(k)] = closed(jobj{"target": jref("target"), "delta": jobj{"type": "integer"}, "timeout": timeout, "tab": tab}, "target", "delta")
		case vocab.CondRequestSucceeded:
			long = closed(jobj{"url": jref("text"), "method": jobj{"enum": httpMethods},
				"status": jobj{"type": "integer", "minimum": 100, "maximum": 599}, "timeout": timeout, "tab": tab}, "url")
			cond[string(k)] = anyOf(jref("text"), long)
		}
	}
	condition := closed(cond)
	condition["minProperties"] = 1
	condition["maxProperties"] = 1

	opProps := func(withMessage bool) jobj {
		props := jobj{"that": jobj{}}
		for _, o := range vocab.Ops() {
			props[string(o)] = jobj{}
		}
		props["empty"] = jobj{"type": "boolean"}
		props["matches"] = str
		if withMessage {
			props["message"] = str
		}
		o := closed(props, "that")
		o["oneOf"] = exactlyOne(opNames()...)
		return o
	}

	rowField := anyOf(
		jobj{"enum": []string{"text", "value"}},
		closed(jobj{"text": anyOf(tru, jref("target")), "value": anyOf(tru, jref("target")), "attr": str,
			"target": jref("target"), "optional": jobj{"type": "boolean"}}),
	)

	steps := jobj{}
	for _, k := range stepKinds {
		var s any
		switch k {
		case StepGoto:
			s = jref("text")
		case StepClick:
			s = anyOf(jref("target"), closed(jobj{"target": jref("target"), "opens": tab}, "target"))
		case StepHover, StepCheck, StepUncheck:
			s = jref("target")
		case StepFill:
			s = closed(jobj{"target": jref("target"), "value": jref("text")}, "target", "value")
		case StepType:
			s = closed(jobj{"target": jref("target"), "value": jref("text"), "delay": jref("duration")}, "target", "value")
		case StepSelect:
			list := anyOf(jobj{"type": "array", "minItems": 1, "items": jref("text")}, str)
			o := closed(jobj{"target": jref("target"), "option": jref("text"), "options": list, "path": list}, "target")
			o["oneOf"] = exactlyOne("option", "options", "path")
			s = o
		case StepPress:
			s = anyOf(jref("text"), closed(jobj{"key": jref("text"), "target": jref("target"), "opens": tab}, "key"))
		case StepUpload:
			s = closed(jobj{"target": jref("target"),
				"files": anyOf(jref("text"), jobj{"type": "array", "minItems": 1, "items": jref("text")})}, "target", "files")
		case StepScroll:
			o := closed(jobj{"target": jref("target"), "delta_y": jobj{"type": "number"}})
			o["anyOf"] = []any{jobj{"required": []string{"target"}}, jobj{"required": []string{"delta_y"}}}
			s = o
		case StepWait:
			s = anyOf(jref("condition"), jobj{"type": "array", "minItems": 1, "items": jref("condition")})
		case StepExtract:
			s = closed(jobj{"target": jref("target"), "text": tru, "value": tru, "attr": str, "count": tru,
				"all": jobj{"type": "boolean"}, "max": jobj{"type": "integer", "minimum": 1},
				"rows": jobj{"type": "object", "minProperties": 1, "additionalProperties": rowField},
				"into": jref("var")}, "target", "into")
		case StepScreenshot:
			name := jobj{"type": "string", "pattern": fileNameRE.String()}
			s = anyOf(name, closed(jobj{"name": name, "target": jref("target"), "full_page": jobj{"type": "boolean"}}, "name"))
		case StepActionMenu:
			s = closed(jobj{"into": jref("var"), "within": jref("target"), "limit": jobj{"type": "integer", "minimum": 1, "maximum": MaxMenuLimit}}, "into")
		case StepAnnotatedScreenshot:
			s = closed(jobj{"into": jref("var"), "name": jobj{"type": "string", "pattern": fileNameRE.String()}})
		case StepCloseTab:
			s = tab
		case StepHTTP:
			s = closed(jobj{
				"method":        jobj{"enum": httpMethods},
				"url":           jref("text"),
				"headers":       jobj{"type": "object", "additionalProperties": jref("text")},
				"query":         jobj{"type": "object", "additionalProperties": jref("text")},
				"body":          jobj{},
				"expect_status": anyOf(jobj{"type": "integer"}, jobj{"type": "array", "minItems": 1, "items": jobj{"type": "integer"}}),
				"extract": jobj{"type": "object", "propertyNames": jref("var"), "additionalProperties": anyOf(
					jobj{"type": "string", "pattern": `^\$`},
					closed(jobj{"path": jobj{"type": "string", "pattern": `^\$`}, "type": jobj{"enum": typeNames}}, "path"),
				)},
				"into": jref("var"),
			}, "url")
		case StepSet:
			s = jobj{"type": "object", "minProperties": 1, "propertyNames": jref("var")}
		case StepAssert:
			s = opProps(true)
		case StepCall:
			s = closed(jobj{"macro": jref("name"), "args": jobj{"type": "object"}, "into": jref("var")}, "macro")
		case StepPrimitive:
			s = closed(jobj{"name": str, "args": jobj{"type": "object"}, "into": jref("var")}, "name")
		case StepLookup:
			s = closed(jobj{"bundle": jobj{"type": "string", "pattern": bundleRefRE.String()}, "file": jobj{"type": "string", "minLength": 1},
				"key": jref("text"), "into": jref("var")}, "bundle", "file", "key", "into")
		case StepMCP:
			s = closed(jobj{"server": jobj{"type": "string", "pattern": mcpServerRE.String()}, "tool": jobj{"type": "string", "pattern": mcpToolRE.String()},
				"args": jobj{"type": "object"}, "extract": jobj{"type": "object", "propertyNames": jref("var"), "additionalProperties": anyOf(
					jobj{"type": "string", "pattern": `^\$`},
					closed(jobj{"path": jobj{"type": "string", "pattern": `^\$`}, "type": jobj{"enum": typeNames}}, "path"),
				)}, "into": jref("var")}, "server", "tool")
		case StepTOTP:
			s = closed(jobj{"secret": jref("text"), "into": jref("var")}, "secret", "into")
		case StepForeach:
			o := closed(jobj{"in": str, "as": jref("var"), "index": jref("var"),
				"max":   jobj{"type": "integer", "minimum": 1, "maximum": MaxForeach},
				"steps": jref("steps"), "collect": jobj{}, "into": jref("var")}, "in", "as", "max", "steps")
			o["dependencies"] = jobj{"collect": []string{"into"}, "into": []string{"collect"}}
			s = o
		case StepIf:
			o := closed(jobj{"cond": anyOf(str, opProps(false), jref("condition")), "then": jref("steps"), "else": jref("steps")}, "cond")
			o["anyOf"] = []any{jobj{"required": []string{"then"}}, jobj{"required": []string{"else"}}}
			s = o
		}
		steps[string(k)] = s
	}
	steps["expect"] = jobj{"type": "array", "items": jref("condition")}
	steps["timeout"] = timeout
	steps["retry"] = jobj{"type": "integer", "minimum": 0, "maximum": MaxRetry}
	steps["tab"] = tab
	steps["acknowledge"] = jobj{"type": "string", "minLength": 1, "description": "why a consequential action (Delete, Send, Pay...) belongs in a macro not marked dangerous"}
	steps["unverified"] = reason
	step := closed(steps)
	step["oneOf"] = exactlyOne(stepKindNames()...)

	anyArgs := jobj{"type": "object"}
	top := closed(jobj{
		"macrokit":    jobj{"const": FormatVersion, "description": "spec format version"},
		"name":        jobj{"type": "string", "pattern": snakeRE.String(), "maxLength": MaxNameLen},
		"version":     jobj{"type": "string", "pattern": semverRE.String()},
		"intent":      jobj{"type": "string", "minLength": 1, "maxLength": MaxTextLen},
		"description": jobj{"type": "string", "maxLength": MaxTextLen},
		"risk":        jobj{"enum": riskNames},
		"params":      jobj{"type": "object", "description": "JSON Schema (draft-07) of the arguments"},
		"result":      jobj{"type": "object", "description": "JSON Schema (draft-07) of the result"},
		"examples": jobj{"type": "array", "items": closed(jobj{"say": jobj{"type": "string", "minLength": 1, "maxLength": MaxTextLen},
			"args": anyArgs}, "say")},
		"steps":   jref("steps"),
		"returns": anyOf(jobj{"type": "object"}, str),
		"tests": jobj{"type": "array", "items": closed(jobj{"name": jobj{"type": "string", "minLength": 1, "maxLength": MaxTestNameLen},
			"args": anyArgs, "want": jobj{"type": "object"}, "want_error": str,
			"site": jobj{"type": "string", "pattern": snakeRE.String()}}, "name")},
		"unverified": reason,
		"login": closed(jobj{
			"internal":    jobj{"type": "boolean", "description": "only serves other macros: never offered to a model"},
			"signed_out":  jobj{"type": "array", "items": jref("condition"), "description": "any passing on a page means the session is gone"},
			"signed_in":   jobj{"type": "array", "items": jref("condition"), "description": "all hold on a signed-in page"},
			"credentials": jobj{"type": "object", "additionalProperties": str, "description": "per parameter: \"{{ env.NAME }}\" or a literal (not for secret parameters)"},
		}),
		"session": jobj{"type": "string", "pattern": snakeRE.String(), "description": "the login macro whose session this macro needs"},
		"done_check": closed(jobj{
			"call": closed(jobj{"macro": jref("name"), "args": jobj{"type": "object"}}, "macro"),
			"done": jobj{"type": "object", "minProperties": 1, "description": "result fields of the call that all hold when the effect is already there"},
		}, "call", "done"),
	}, "macrokit", "name", "version", "intent", "risk", "steps")
	top["$schema"] = "http://json-schema.org/draft-07/schema#"
	top["title"] = "macrokit macro spec (format 1)"
	top["definitions"] = jobj{
		"text":      text,
		"name":      jobj{"type": "string", "pattern": snakeRE.String()},
		"var":       jobj{"type": "string", "pattern": snakeRE.String()},
		"duration":  jobj{"type": "string", "pattern": `^([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$`},
		"target":    target,
		"condition": condition,
		"steps":     jobj{"type": "array", "minItems": 1, "maxItems": MaxSteps, "items": jref("step")},
		"step":      step,
	}
	return top
}

package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/vocab"
	"github.com/macrokit/macrokit-go/spec"
)

// vocabStep is a spec step per page action.
var vocabStep = map[vocab.Action]string{
	vocab.ActGoto:    `goto: "https://example.com/"`,
	vocab.ActClick:   `click: {css: "#a"}`,
	vocab.ActFill:    `fill: {target: {css: "#a"}, value: v}`,
	vocab.ActType:    `type: {target: {css: "#a"}, value: v}`,
	vocab.ActSelect:  `select: {target: {css: "#a"}, option: o}`,
	vocab.ActCheck:   `check: {css: "#a"}`,
	vocab.ActUncheck: `uncheck: {css: "#a"}`,
	vocab.ActPress:   `press: Enter`,
	vocab.ActHover:   `hover: {css: "#a"}`,
	vocab.ActUpload:  `upload: {target: {css: "#a"}, files: a.txt}`,
	vocab.ActScroll:  `scroll: {delta_y: 100}`,
	vocab.ActWait:    `wait: [{text_present: ready}]`,
}

// vocabRead is a spec step per page read, and the Exec method gen calls
// for it.
var vocabRead = map[vocab.Read][2]string{
	vocab.ReadActionMenu:          {`action_menu: {into: m}`, "x.ActionMenu("},
	vocab.ReadAnnotatedScreenshot: {`annotated_screenshot: {into: a}`, "x.AnnotatedScreenshot("},
}

// vocabCond is a post-condition per kind.
var vocabCond = map[vocab.CondKind]string{
	vocab.CondURLMatches:       `url_matches: /done$`,
	vocab.CondTitleMatches:     `title_matches: ^Done`,
	vocab.CondTextPresent:      `text_present: Saved`,
	vocab.CondTextAbsent:       `text_absent: Error`,
	vocab.CondElementExists:    `element_exists: {css: "#a"}`,
	vocab.CondElementGone:      `element_gone: {css: "#a"}`,
	vocab.CondValueEquals:      `value_equals: {target: {css: "#a"}, value: v}`,
	vocab.CondAttributeEquals:  `attribute_equals: {target: {css: "#a"}, attr: data-x, value: v}`,
	vocab.CondElementState:     `element_state: {target: {css: "#a"}, state: visible}`,
	vocab.CondListCountDelta:   `list_count_delta: {target: {css: li}, delta: 1}`,
	vocab.CondRequestSucceeded: `request_succeeded: /api/save`,
}

// vocabOperand is an assert's `that` and operand (YAML) per operator.
var vocabOperand = map[vocab.Op][2]string{
	vocab.OpEquals: {"s", "x"}, vocab.OpNotEquals: {"s", "y"}, vocab.OpMatches: {"s", "^x"},
	vocab.OpContains: {"s", "x"}, vocab.OpGT: {"n", "1"}, vocab.OpGTE: {"n", "1"}, vocab.OpLT: {"n", "1"},
	vocab.OpLTE: {"n", "1"}, vocab.OpEmpty: {"s", "false"}, vocab.OpLen: {"s", "1"},
}

// vocabSpec is a macro with one step (and, for a condition, one expect).
func vocabSpec(steps string) []spec.File {
	src := "macrokit: 1\nname: vocab_case\nversion: 1.0.0\nintent: exercise one vocabulary name\nrisk: read\n" +
		"params:\n  properties:\n    s: {type: string, default: x}\n    n: {type: integer, default: 1}\nsteps:\n" + steps
	return []spec.File{{Path: "macros.d/vocab_case.yaml", Data: []byte(src)}}
}

// references collects the vocab.X selectors in the non-test Go files under
// dir (a package and its subpackages).
func references(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if se, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := se.X.(*ast.Ident); ok && x.Name == "vocab" {
					out[se.Sel.Name] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pageAgent is the engine's in-page JavaScript.
func pageAgent(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir("../engine", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".js") {
			return err
		}
		data, err := os.ReadFile(path)
		b.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestVocabularySupported: every name of runtime/vocab is accepted by spec,
// compiled by gen to the vocab constant (or, for states, the literal)
// naming it, and handled by the engine (actions, conditions, states) or
// the runtime (operators). Adding a name to vocab fails here until each of
// them supports it.
func TestVocabularySupported(t *testing.T) {
	engineRefs := references(t, "../engine")
	runtimeRefs := references(t, "../runtime")
	agent := pageAgent(t)
	type vcase struct {
		kind, name string
		steps      string // the spec's steps
		emits      string // what the generated code must contain
		handled    bool   // the engine or runtime handles it
	}
	var cases []vcase
	for _, a := range vocab.Actions() {
		step, ok := vocabStep[a]
		if !ok {
			t.Errorf("action %q: no case in vocabStep", a)
			continue
		}
		cases = append(cases, vcase{"action", string(a), "  - " + step + "\n", "vocab." + a.GoName(), engineRefs[a.GoName()]})
	}
	for _, k := range vocab.CondKinds() {
		cond, ok := vocabCond[k]
		if !ok {
			t.Errorf("condition %q: no case in vocabCond", k)
			continue
		}
		cases = append(cases, vcase{"condition", string(k), "  - click: {css: \"#a\"}\n    expect:\n      - " + cond + "\n", "vocab." + k.GoName(), engineRefs[k.GoName()]})
	}
	for _, op := range vocab.Ops() {
		operand, ok := vocabOperand[op]
		if !ok {
			t.Errorf("operator %q: no case in vocabOperand", op)
			continue
		}
		step := fmt.Sprintf("  - assert: {that: \"{{ %s }}\", %s: %s}\n", operand[0], op, operand[1])
		cases = append(cases, vcase{"operator", string(op), step, "vocab." + op.GoName(), runtimeRefs[op.GoName()]})
	}
	for _, st := range vocab.States() {
		handled := regexp.MustCompile(`\b` + string(st) + `: \['`).MatchString(agent)
		cases = append(cases, vcase{"state", string(st), "  - wait:\n      - element_state: {target: {css: \"#a\"}, state: " + string(st) + "}\n",
			fmt.Sprintf("State: %q", st), handled})
	}
	for _, r := range vocab.Reads() {
		step, ok := vocabRead[r]
		if !ok {
			t.Errorf("read %q: no case in vocabRead", r)
			continue
		}
		cases = append(cases, vcase{"read", string(r), "  - " + step[0] + "\n", step[1], runtimeRefs[r.GoName()]})
	}
	if len(vocabRead) != len(vocab.Reads()) || len(vocabStep) != len(vocab.Actions()) || len(vocabCond) != len(vocab.CondKinds()) || len(vocabOperand) != len(vocab.Ops()) {
		t.Error("a case table names something vocab does not declare")
	}
	for _, c := range cases {
		t.Run(c.kind+"/"+c.name, func(t *testing.T) {
			set, diags := spec.LoadFiles(vocabSpec(c.steps), spec.Options{})
			if len(diags) > 0 {
				t.Fatalf("spec rejects it:\n%s", diags)
			}
			files, err := Generate(set, Options{})
			if err != nil {
				t.Fatalf("gen: %v", err)
			}
			if src := string(files["vocab_case.go"]); !strings.Contains(src, c.emits) {
				t.Errorf("generated code lacks %s:\n%s", c.emits, src)
			}
			if !c.handled {
				where := "the engine"
				if c.kind == "operator" || c.kind == "read" {
					where = "the runtime"
				}
				t.Errorf("%s never handles %s %q", where, c.kind, c.name)
			}
		})
	}
}

package gen

import (
	"testing"

	"github.com/macrokit/macrokit-go/engine"
)

// TestVocabularyMatchesEngine: spec mirrors the engine's action and
// condition names (it may not import engine); generated code names engine
// constants. Each mapping must land on the engine constant whose value is
// the spec's wire name, so the two vocabularies cannot drift apart.
func TestVocabularyMatchesEngine(t *testing.T) {
	engineConds := map[string]engine.CondKind{
		"CondURLMatches": engine.CondURLMatches, "CondTitleMatches": engine.CondTitleMatches,
		"CondTextPresent": engine.CondTextPresent, "CondTextAbsent": engine.CondTextAbsent,
		"CondElementExists": engine.CondElementExists, "CondElementGone": engine.CondElementGone,
		"CondValueEquals": engine.CondValueEquals, "CondAttributeEquals": engine.CondAttributeEquals,
		"CondElementState": engine.CondElementState, "CondListCountDelta": engine.CondListCountDelta,
		"CondRequestSucceeded": engine.CondRequestSucceeded,
	}
	if len(condConst) != len(engineConds) {
		t.Errorf("gen maps %d condition kinds, the engine has %d", len(condConst), len(engineConds))
	}
	for k, name := range condConst {
		v, ok := engineConds[name]
		if !ok || string(v) != string(k) {
			t.Errorf("spec %q -> engine.%s = %q", k, name, v)
		}
	}
	engineActs := map[string]engine.Action{
		"ActGoto": engine.ActGoto, "ActClick": engine.ActClick, "ActFill": engine.ActFill, "ActSelect": engine.ActSelect,
		"ActCheck": engine.ActCheck, "ActUncheck": engine.ActUncheck, "ActPress": engine.ActPress, "ActHover": engine.ActHover,
		"ActUpload": engine.ActUpload, "ActScroll": engine.ActScroll, "ActWait": engine.ActWait,
	}
	if len(actionConst) != len(engineActs) {
		t.Errorf("gen maps %d page actions, the engine has %d", len(actionConst), len(engineActs))
	}
	for k, name := range actionConst {
		v, ok := engineActs[name]
		if !ok || string(v) != string(k) {
			t.Errorf("spec %q -> engine.%s = %q", k, name, v)
		}
	}
}

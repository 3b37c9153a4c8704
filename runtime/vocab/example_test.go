package vocab_test

import (
	"fmt"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// The vocabulary in documentation order; package gen emits each name by its
// Go name, and a name outside the vocabulary is not Valid.
func Example() {
	fmt.Println("actions:", vocab.Actions())
	fmt.Println("conditions:", vocab.CondKinds())
	fmt.Println("operators:", vocab.Ops())
	fmt.Println("states:", vocab.States())
	fmt.Println(vocab.ActGoto.GoName(), vocab.Action("goto").Valid(), vocab.Action("teleport").Valid())
	// Output:
	// actions: [goto click fill type select check uncheck press hover upload scroll wait]
	// conditions: [url_matches title_matches text_present text_absent element_exists element_gone value_equals attribute_equals element_state list_count_delta request_succeeded]
	// operators: [equals not_equals matches contains gt gte lt lte empty len]
	// states: [checked unchecked enabled disabled expanded collapsed selected visible hidden focused]
	// ActGoto true false
}

package redact_test

import (
	"fmt"

	"github.com/macrokit/macrokit-go/runtime/redact"
)

// Overlapping secrets are replaced as one span: nothing of either survives.
func ExampleString() {
	fmt.Println(redact.String("token=abcdef; again abc", []string{"abc", "abcdef"}))
	// Output: token=[redacted]; again [redacted]
}

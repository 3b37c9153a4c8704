package keys_test

import (
	"fmt"

	"github.com/macrokit/macrokit-go/engine/keys"
)

func ExampleParse() {
	c, err := keys.Parse("Control+Shift+a")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range c.Mods {
		fmt.Println("hold", m.Key, m.Code)
	}
	fmt.Println("press", c.Key.Key, c.Key.Code, c.Key.KeyCode, c.Has(keys.Shift))

	_, err = keys.Parse("a+b")
	fmt.Println(err)
	// Output:
	// hold Control ControlLeft
	// hold Shift ShiftLeft
	// press A KeyA 65 true
	// "a" is not a modifier in "a+b"
}

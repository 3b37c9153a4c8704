package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

// One verified step: click a button on a local page, passed only because
// the live page then shows the text the step expects.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Greeter</title>
<button onclick="document.getElementById('out').textContent = 'Hello, Ada'">Greet</button>
<p id="out"></p>`)
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Launch finds a local Chromium ($MACROKIT_BROWSER, then the usual
	// install paths), never downloads one, and adds --no-sandbox as root.
	b, err := engine.Launch(ctx, engine.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	bc, err := b.NewContext(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := bc.NewPage(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := p.Goto(ctx, srv.URL); err != nil {
		fmt.Println(err)
		return
	}

	res, err := p.Do(ctx, engine.Step{
		Action: vocab.ActClick,
		Target: &engine.Target{Role: "button", Name: "Greet"},
		Expect: []engine.Condition{{Kind: vocab.CondTextPresent, Text: "Hello, Ada"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("step", res.Status)
	for _, c := range res.Checks {
		fmt.Println(c.Kind, c.Status)
	}
	// Output:
	// step passed
	// text_present passed
}

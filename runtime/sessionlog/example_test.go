package sessionlog_test

import (
	"fmt"
	"os"

	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// A session written with a registered secret, then read back.
func Example() {
	dir, err := os.MkdirTemp("", "sessions")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	w, err := sessionlog.Open(dir, "s1")
	if err != nil {
		fmt.Println(err)
		return
	}
	w.AddSecret("hunter2")
	_ = w.Append(sessionlog.Record{Turn: 1, Type: sessionlog.RecUser, Text: "log in with hunter2"})
	_ = w.Append(sessionlog.Record{Turn: 1, Type: sessionlog.RecAssistant, Text: "Logged in."})
	_ = w.Close()

	path, _ := sessionlog.Find(dir, "last")
	s, err := sessionlog.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range s.Records {
		fmt.Printf("%s: %s\n", r.Type, r.Text)
	}
	fmt.Printf("%d turn(s), %d torn line(s)\n", s.Summary.Turns, s.Summary.Torn)
	// Output:
	// user: log in with [redacted]
	// assistant: Logged in.
	// 1 turn(s), 0 torn line(s)
}

package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/spec"
)

// TestReplayOptions: record --run replays a select of several options
// from a list parameter as the generated code does (the list's strings),
// refuses a list that is empty or not of strings, and still refuses what
// only compiled code runs.
func TestReplayOptions(t *testing.T) {
	const head = "macrokit: 1\nname: pick\nversion: 0.1.0\nintent: pick regions\nrisk: read\n"
	const regions = "params:\n  required: [regions]\n  properties:\n    regions: {type: array, items: {type: string}, description: the regions}\n"
	cases := []struct {
		name  string
		steps string
		args  map[string]any
		want  []string
		err   string
	}{
		{name: "options from a parameter", steps: regions + "steps:\n  - select: {target: {label: Regions}, options: \"{{ regions }}\"}\n",
			args: map[string]any{"regions": []any{"South", "East"}}, want: []string{"South", "East"}},
		{name: "literal options", steps: "steps:\n  - select: {target: {label: Regions}, options: [North, \"West\"]}\n", want: []string{"North", "West"}},
		{name: "an empty list", steps: regions + "steps:\n  - select: {target: {label: Regions}, options: \"{{ regions }}\"}\n",
			args: map[string]any{"regions": []any{}}, err: "an empty list of options"},
		{name: "not strings", steps: regions + "steps:\n  - select: {target: {label: Regions}, options: \"{{ regions }}\"}\n",
			args: map[string]any{"regions": []any{"South", 3.0}}, err: "options are strings"},
		{name: "a path runs only compiled", steps: "steps:\n  - select: {target: {label: Location}, path: [Zhejiang, Hangzhou]}\n", err: "run only compiled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			set, diags := spec.LoadFiles([]spec.File{{Path: "pick.yaml", Data: []byte(head + tc.steps)}}, spec.Options{})
			if len(diags) > 0 {
				t.Fatalf("the spec does not pass check: %v", diags)
			}
			s := set.Specs[0]
			_, err := replayMacro(s)
			if err == nil {
				r := &replayer{args: tc.args}
				st, serr := r.step(s.Steps[0])
				err = serr
				if err == nil && !slices.Equal(st.Options, tc.want) {
					t.Errorf("options %q, want %q", st.Options, tc.want)
				}
			}
			if tc.err == "" && err != nil {
				t.Fatal(err)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
}

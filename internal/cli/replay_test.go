package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/spec"
)

// TestReplayOptions: record --run replays a select of several options, or
// of a cascader's path, from a list parameter as the generated code does
// (the list's strings), refuses a list that is empty or not of strings,
// and still refuses what only compiled code runs.
func TestReplayOptions(t *testing.T) {
	const head = "macrokit: 1\nname: pick\nversion: 0.1.0\nintent: pick regions\nrisk: read\n"
	const regions = "params:\n  required: [regions]\n  properties:\n    regions: {type: array, items: {type: string}, description: the regions}\n"
	cases := []struct {
		name     string
		steps    string
		args     map[string]any
		want     []string // the step's options
		wantPath []string
		err      string
	}{
		{name: "options from a parameter", steps: regions + "steps:\n  - select: {target: {label: Regions}, options: \"{{ regions }}\"}\n",
			args: map[string]any{"regions": []any{"South", "East"}}, want: []string{"South", "East"}},
		{name: "literal options", steps: "steps:\n  - select: {target: {label: Regions}, options: [North, \"West\"]}\n", want: []string{"North", "West"}},
		{name: "an empty list", steps: regions + "steps:\n  - select: {target: {label: Regions}, options: \"{{ regions }}\"}\n",
			args: map[string]any{"regions": []any{}}, err: "an empty list"},
		{name: "not strings", steps: regions + "steps:\n  - select: {target: {label: Regions}, options: \"{{ regions }}\"}\n",
			args: map[string]any{"regions": []any{"South", 3.0}}, err: "options are strings"},
		{name: "a path from a parameter", steps: "params:\n  required: [location]\n  properties:\n    location: {type: array, items: {type: string}, description: the path}\n" +
			"steps:\n  - select: {target: {label: Location}, path: \"{{ location }}\"}\n",
			args: map[string]any{"location": []any{"Jiangsu", "Nanjing"}}, wantPath: []string{"Jiangsu", "Nanjing"}},
		{name: "a literal path", steps: "steps:\n  - select: {target: {label: Location}, path: [Zhejiang, Hangzhou]}\n", wantPath: []string{"Zhejiang", "Hangzhou"}},
		{name: "a tab runs only compiled", steps: "steps:\n  - click: {target: {text: Help}, opens: help}\n", err: "run only compiled"},
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
				if err == nil && (!slices.Equal(st.Options, tc.want) || !slices.Equal(st.Path, tc.wantPath)) {
					t.Errorf("options %q path %q, want %q and %q", st.Options, st.Path, tc.want, tc.wantPath)
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

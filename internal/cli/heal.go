package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/atomicfile"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"
)

// healCommand is `heal [SESSION] | --from-tests`: the steps a run healed by
// their remembered fingerprints, as a patch of the specs (docs/heal.md).
func healCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "heal",
		Usage:     "turn the steps a run healed (a drifted target re-found by its fingerprint, with proof) into a patch of the specs: a diff, --write to apply (docs/heal.md)",
		ArgsUsage: "<session id | id prefix | last | path>",
		Description: `Reads the proven heals of a session log (its passed calls) or, with --from-tests, of the
last 'test --live' run, and edits each healed step's target in its spec in place: the target
proposed for the element the run re-found, with a comment "# healed: was <old target>" above
it; the rest of the file is untouched. A target with {{ }} placeholders is never rewritten.
Prints a unified diff (or --format json); --write applies it atomically and moves the step's
remembered fingerprint to the new target. Regenerate afterwards (go generate ./...).
Exit 0: nothing to heal; 1: a patch (printed or written); 2: usage error or unreadable input.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "from-tests", Usage: "the heals of the last 'test --live' run instead of a session"},
			&cli.StringFlag{Name: "macros", Value: "macros.d", Usage: "the specs (`DIR`)"},
			&cli.StringFlag{Name: "fingerprints", Usage: "the remembered fingerprints (`DIR`; default <macros>/.fingerprints)"},
			&cli.StringFlag{Name: "session-dir", Value: sessionlog.DefaultDir, Usage: "the session-log directory"},
			&cli.BoolFlag{Name: "write", Usage: "apply the patch to the specs"},
			formatFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, 1); err != nil {
				return err
			}
			o := HealOptions{FromTests: c.Bool("from-tests"), Macros: c.String("macros"), Fingerprints: c.String("fingerprints"),
				SessionDir: c.String("session-dir"), Write: c.Bool("write"), Format: c.String("format"), Session: c.Args().First()}
			if (o.Session == "") == !o.FromTests {
				return Usagef("heal needs one session (an id, a prefix, last or a path) or --from-tests")
			}
			return runHeal(newEnv(c, cfg), o)
		},
	}
}

// HealOptions are heal's source (a session or the last live tests) and
// flags.
type HealOptions struct {
	Session      string
	FromTests    bool
	Macros       string
	Fingerprints string
	SessionDir   string
	Write        bool
	Format       string
}

// HealReport is what heal found and did.
type HealReport struct {
	// Source is the session log or the test record the heals came from.
	Source  string      `json:"source"`
	Patches []HealPatch `json:"patches"`
	Skipped []HealSkip  `json:"skipped"`
	// Diff is the unified diff of the specs.
	Diff string `json:"diff"`
	// Written are the files --write replaced.
	Written []string `json:"written,omitempty"`
}

// HealPatch is one step's new target.
type HealPatch struct {
	File       string   `json:"file"`
	Macro      string   `json:"macro"`
	Step       string   `json:"step"`
	Kind       string   `json:"kind"`
	Old        string   `json:"old"`
	New        string   `json:"new"`
	Confidence float64  `json:"confidence"`
	ProvedBy   []string `json:"proved_by"`
	// Elsewhere are other steps of the spec writing the old target, which
	// this run did not take (an if's other branch): not patched.
	Elsewhere []string `json:"elsewhere,omitempty"`

	heal sessionlog.Heal
	nw   engine.Target
}

// HealSkip is a heal that makes no patch, and why.
type HealSkip struct {
	Macro  string `json:"macro"`
	Step   string `json:"step"`
	Reason string `json:"reason"`
}

// liveTestHeals is the record `test --live` leaves for `heal --from-tests`.
type liveTestHeals struct {
	Time  time.Time         `json:"time"`
	Heals []sessionlog.Heal `json:"heals"`
}

// lastLiveTestsPath is where `test --live` leaves its heals.
func lastLiveTestsPath(cfg *Config) string {
	return filepath.Join(stateDir(cfg), "tests", "last-live-heals.json")
}

// runHeal collects the heals, plans the patch and prints or writes it.
func runHeal(env *Env, o HealOptions) error {
	heals, source, err := collectHeals(env.Config, o)
	if err != nil {
		return err
	}
	if st, err := os.Stat(o.Macros); err != nil || !st.IsDir() {
		return Usagef("--macros %s: not a directory", o.Macros)
	}
	srcs, err := loadSpecSources(o.Macros)
	if err != nil {
		return Usagef("read specs: %v", err)
	}
	rep, files := planHeals(heals, srcs)
	rep.Source = source
	var diff bytes.Buffer
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		oldName, newName := filepath.ToSlash(p), filepath.ToSlash(p)
		if !filepath.IsAbs(p) {
			oldName, newName = "a/"+oldName, "b/"+newName // git apply's default -p1
		}
		unifiedDiff(&diff, oldName, newName, string(srcs[macroOfFile(srcs, p)].Data), string(files[p]))
	}
	rep.Diff = diff.String()
	if o.Write && len(rep.Patches) > 0 {
		for _, p := range paths {
			perm := fs.FileMode(0o644)
			if st, err := os.Stat(p); err == nil {
				perm = st.Mode().Perm()
			}
			if err := atomicfile.WriteBytes(p, perm, files[p]); err != nil {
				return Failf("heal: write %s: %v", p, err)
			}
			rep.Written = append(rep.Written, p)
		}
		if err := moveFingerprints(o, rep.Patches); err != nil {
			return Failf("heal: %v", err)
		}
	}
	if o.Format == formatJSON {
		if err := writeJSON(env.Stdout, rep); err != nil {
			return err
		}
	} else {
		printHealReport(env, rep, o.Write)
	}
	if len(rep.Patches) > 0 {
		return Silent
	}
	return nil
}

// collectHeals reads the proven heals of the session or of the last live
// test run.
func collectHeals(cfg *Config, o HealOptions) ([]sessionlog.Heal, string, error) {
	if o.FromTests {
		path := lastLiveTestsPath(cfg)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, path, Usagef("no 'test --live' run recorded heals here yet (%s)", path)
		}
		if err != nil {
			return nil, path, Usagef("%v", err)
		}
		var rec liveTestHeals
		if err := json.Unmarshal(data, &rec); err != nil {
			return nil, path, Usagef("%s: %v", path, err)
		}
		return rec.Heals, path, nil
	}
	path, err := sessionlog.Find(o.SessionDir, o.Session)
	if err != nil {
		return nil, "", Usagef("%v", err)
	}
	s, err := sessionlog.ReadFile(path)
	if err != nil {
		return nil, path, Usagef("%v", err)
	}
	var heals []sessionlog.Heal
	for _, r := range s.Records {
		if r.Type == sessionlog.RecToolResult && r.OK && r.Verification != nil {
			heals = append(heals, r.Verification.Healed...)
		}
	}
	return heals, path, nil
}

// planHeals turns the heals into edits of the spec files: the new content
// per file, and the report. Each step is patched once, from its last
// proven heal; two proven heals of one step to different targets patch
// nothing.
func planHeals(heals []sessionlog.Heal, srcs map[string]*specSource) (*HealReport, map[string][]byte) {
	rep := &HealReport{Patches: []HealPatch{}, Skipped: []HealSkip{}}
	type key struct{ macro, step string }
	last := map[key]sessionlog.Heal{}
	var order []key
	conflict := map[key]bool{}
	for _, h := range heals {
		k := key{h.Macro, h.Step}
		if !h.Proven {
			continue
		}
		if prev, ok := last[k]; ok {
			if !bytes.Equal(prev.New, h.New) {
				conflict[k] = true
			}
		} else {
			order = append(order, k)
		}
		last[k] = h
	}
	edits := map[string][]specEdit{}
	lines := map[string]map[int]bool{}
	var patches []HealPatch
	for _, k := range order {
		h := last[k]
		skip := func(format string, args ...any) {
			rep.Skipped = append(rep.Skipped, HealSkip{Macro: k.macro, Step: k.step, Reason: fmt.Sprintf(format, args...)})
		}
		var old, nw engine.Target
		switch {
		case conflict[k]:
			skip("healed to different targets in this run: fix it by hand")
			continue
		case len(h.New) == 0:
			skip("no target is unique for the element re-found (%s)", h.Note)
			continue
		case json.Unmarshal(h.Old, &old) != nil || json.Unmarshal(h.New, &nw) != nil:
			skip("the heal's targets do not decode")
			continue
		}
		src, ok := srcs[k.macro]
		if !ok {
			skip("no spec named %s under the macros directory", k.macro)
			continue
		}
		step, err := stepNode(src.root, k.step)
		var tn *yaml.Node
		if err == nil {
			tn, err = targetNode(step, h.Kind)
		}
		if err != nil {
			skip("%s: %v", src.Path, err)
			continue
		}
		if templated(tn) {
			skip("%s:%d: the target has {{ }} placeholders: a heal from one run's values is not written over it", src.Path, tn.Line)
			continue
		}
		if written, ok := decodeTarget(tn); !ok || !reflect.DeepEqual(written, old) {
			skip("%s:%d: the spec's target is no longer %s (edited since the run)", src.Path, tn.Line, flowTarget(old))
			continue
		}
		if lines[src.Path][tn.Line] {
			skip("%s:%d: another healed target is on the same line: fix it by hand", src.Path, tn.Line)
			continue
		}
		e, err := targetEdit(src.Data, tn, old, nw)
		if err != nil {
			skip("%s:%d: %v", src.Path, tn.Line, err)
			continue
		}
		if lines[src.Path] == nil {
			lines[src.Path] = map[int]bool{}
		}
		lines[src.Path][tn.Line] = true
		edits[src.Path] = append(edits[src.Path], e)
		patches = append(patches, HealPatch{File: src.Path, Macro: k.macro, Step: k.step, Kind: h.Kind, Old: flowTarget(old), New: flowTarget(nw),
			Confidence: h.Confidence, ProvedBy: h.ProvedBy, Elsewhere: sameTargets(src.root, old, tn), heal: h, nw: nw})
	}
	files := map[string][]byte{}
	for path, es := range edits {
		data := applyEdits(srcs[macroOfFile(srcs, path)].Data, es)
		if err := verifyPatched(data, patches, path); err != nil {
			for _, p := range patches {
				if p.File == path {
					rep.Skipped = append(rep.Skipped, HealSkip{Macro: p.Macro, Step: p.Step, Reason: "the patched spec does not read back as intended: " + err.Error()})
				}
			}
			continue
		}
		files[path] = data
	}
	for _, p := range patches {
		if _, ok := files[p.File]; ok {
			rep.Patches = append(rep.Patches, p)
		}
	}
	return rep, files
}

// verifyPatched re-reads a patched file: every patched step must now hold
// its new target.
func verifyPatched(data []byte, patches []HealPatch, path string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	if len(doc.Content) == 0 {
		return fmt.Errorf("empty document")
	}
	for _, p := range patches {
		if p.File != path {
			continue
		}
		step, err := stepNode(doc.Content[0], p.Step)
		if err != nil {
			return err
		}
		tn, err := targetNode(step, p.Kind)
		if err != nil {
			return err
		}
		if got, ok := decodeTarget(tn); !ok || !reflect.DeepEqual(got, p.nw) {
			return fmt.Errorf("%s reads %s, want %s", p.Step, flowTarget(got), p.New)
		}
	}
	return nil
}

func macroOfFile(srcs map[string]*specSource, path string) string {
	for m, s := range srcs {
		if s.Path == path {
			return m
		}
	}
	return ""
}

// moveFingerprints remembers each patched step's re-found fingerprint
// under its new target, so the patched spec can heal again.
func moveFingerprints(o HealOptions, patches []HealPatch) error {
	dir := o.Fingerprints
	if dir == "" {
		dir = filepath.Join(o.Macros, ".fingerprints")
	}
	var rs []runtime.Remembered
	for _, p := range patches {
		var fp engine.Fingerprint
		if json.Unmarshal(p.heal.Fingerprint, &fp) != nil || (fp.Tag == "" && fp.Role == "") {
			continue
		}
		rs = append(rs, runtime.Remembered{Macro: p.Macro, Step: p.Step, Target: p.nw, Fingerprint: fp})
	}
	return (&runtime.FingerprintDir{Dir: dir}).Record(rs)
}

func printHealReport(env *Env, rep *HealReport, wrote bool) {
	fmt.Fprint(env.Stdout, rep.Diff)
	for _, p := range rep.Patches {
		fmt.Fprintf(env.Stderr, "heal: %s %s (%s): %s -> %s (confidence %.2f; proved by %s)\n", p.Macro, p.Step, p.Kind, p.Old, p.New, p.Confidence, strings.Join(p.ProvedBy, ", "))
		if len(p.Elsewhere) > 0 {
			fmt.Fprintf(env.Stderr, "heal:   the same target is written at %s, which this run did not take: not patched\n", strings.Join(p.Elsewhere, ", "))
		}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(env.Stderr, "heal: %s %s not patched: %s\n", s.Macro, s.Step, s.Reason)
	}
	switch {
	case len(rep.Patches) == 0:
		fmt.Fprintf(env.Stderr, "heal: nothing to patch from %s\n", rep.Source)
	case wrote:
		fmt.Fprintf(env.Stderr, "heal: wrote %s; regenerate (go generate ./...) and review the diff\n", strings.Join(rep.Written, ", "))
	default:
		fmt.Fprintf(env.Stderr, "heal: %d step(s) to patch from %s; --write applies it\n", len(rep.Patches), rep.Source)
	}
}

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/gate"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
)

// GateCommand is `gate`: a CI gate over session logs that flags turns done
// with raw explore tools and suggests specs for the repeated workflows.
func GateCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "gate",
		Usage:     "flag user turns done with raw explore tools (>= --threshold raw calls) and suggest macro specs for them",
		ArgsUsage: "[PATH ...]",
		Description: `Reads session logs (default ` + sessionlog.DefaultDir + `, recursive *.jsonl; torn and foreign
lines are counted and skipped), flags every user turn with --threshold or more raw calls,
groups the findings that are the same workflow and suggests one spec per group: values that
vary become parameters, observed results become expect post-conditions.
Exit 0: no finding; 1: findings; 2: usage error or unreadable input.`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "threshold", Value: gate.DefaultThreshold, Usage: "raw calls in one user turn that make a finding"},
			formatFlag(),
			&cli.StringFlag{Name: "write", Usage: "write each suggested spec to `DIR`/<name>.yaml (e.g. macros.d/suggested)"},
			&cli.StringFlag{Name: "macros", Usage: "existing specs (`DIR`): skip workflows a macro already covers, avoid its names"},
			&cli.StringSliceFlag{Name: "env", Usage: "`NAME[=URL]`: write URLs under this base as {{ env.NAME }} (repeatable; default: " +
				strings.Join(sortedKeys(cfg.EnvDefaults), ", ") + ")"},
		},
		Action: func(c *cli.Context) error {
			opts := GateOptions{Paths: c.Args().Slice(), Threshold: c.Int("threshold"), Format: c.String("format"),
				Write: c.String("write"), Macros: c.String("macros"), Env: c.StringSlice("env")}
			return runGate(newEnv(c, cfg), opts)
		},
	}
}

// GateOptions are gate's log paths (none: the default session directory)
// and flags.
type GateOptions struct {
	Paths     []string
	Threshold int
	Format    string
	Write     string   // --write DIR
	Macros    string   // --macros DIR
	Env       []string // --env NAME[=URL]
}

// runGate scans the logs and reports the turns done with raw tools.
func runGate(env *Env, o GateOptions) error {
	if o.Threshold < 1 {
		return Usagef("--threshold must be at least 1")
	}
	bases, err := gateEnv(env.Config, o.Env)
	if err != nil {
		return err
	}
	opts := gate.Options{Threshold: o.Threshold, Env: bases}
	write := o.Write
	if write != "" {
		opts.SchemaRef = schemaRef(write)
	}
	var dirs []string
	if m := o.Macros; m != "" {
		if st, err := os.Stat(m); err != nil || !st.IsDir() {
			return Usagef("--macros %s: not a directory of macro specs", m)
		}
		dirs = append(dirs, m)
	}
	if st, err := os.Stat(write); write != "" && err == nil && st.IsDir() {
		dirs = append(dirs, write) // its hand-written specs' names are taken too
	}
	if len(dirs) > 0 {
		if opts.Existing, err = gate.ReadMacros(dirs, write); err != nil {
			return Usagef("%v", err)
		}
	}
	paths := o.Paths
	if len(paths) == 0 {
		paths = []string{sessionlog.DefaultDir}
	}
	rep, err := gate.Scan(paths, opts)
	if len(o.Paths) == 0 && noLogsYet(err) {
		// A fresh checkout has nothing to gate: pass, and say why.
		fmt.Fprintf(env.Stderr, "%s gate: no session logs yet in %s; nothing to check\n", env.Name, sessionlog.DefaultDir)
		rep, err = gate.Scan(nil, opts)
	}
	if err != nil {
		return Usagef("%v", err)
	}
	if write != "" {
		if err := gate.WriteSpecs(write, rep); err != nil {
			var ce *gate.ConflictError
			if errors.As(err, &ce) {
				return Usagef("%v", err)
			}
			return Usagef("--write %s: %v", write, err)
		}
	}
	if o.Format == formatJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = gate.WriteText(env.Stdout, rep)
	}
	if err != nil {
		return err
	}
	if n := rep.Stats.Findings; n > 0 {
		return Failf("%d turn(s) done with raw tools (threshold %d)", n, rep.Threshold)
	}
	return nil
}

// gateEnv is the env bases: the binary's defaults (their values from the
// environment when set) plus --env NAME[=URL].
func gateEnv(cfg *Config, flags []string) ([]gate.EnvBase, error) {
	get := cfg.Getenv
	if get == nil {
		get = os.Getenv
	}
	value := func(name string) string {
		if v := get(name); v != "" {
			return v
		}
		return cfg.EnvDefaults[name]
	}
	byName := map[string]string{}
	for _, n := range sortedKeys(cfg.EnvDefaults) {
		byName[n] = value(n)
	}
	for _, f := range flags {
		name, url, has := strings.Cut(f, "=")
		if !has {
			url = value(name)
		}
		if name == "" || url == "" {
			return nil, Usagef("--env %s: want NAME=URL, or NAME of a set variable", f)
		}
		byName[name] = url
	}
	var out []gate.EnvBase
	for _, n := range sortedKeys(byName) {
		out = append(out, gate.EnvBase{Name: n, URL: byName[n]})
	}
	return out, nil
}

// schemaRef is the path from the write directory to the nearest
// docs/macrokit.schema.json above it (as macros.d's specs point at it), or
// the conventional ../docs/macrokit.schema.json when there is none.
func schemaRef(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "../docs/macrokit.schema.json"
	}
	for d := abs; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "docs", "macrokit.schema.json")
		if _, err := os.Stat(p); err == nil {
			if rel, err := filepath.Rel(abs, p); err == nil {
				return filepath.ToSlash(rel)
			}
		}
		if filepath.Dir(d) == d {
			return "../docs/macrokit.schema.json"
		}
	}
}

// noLogsYet reports whether err says the default session directory is
// missing or holds no log: a project nothing has run in yet.
func noLogsYet(err error) bool {
	var ie *gate.InputError
	return errors.As(err, &ie) && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, gate.ErrNoLogs))
}

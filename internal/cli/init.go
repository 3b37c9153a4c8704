package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/format"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/macrokit/macrokit-go/internal/goprim"
	"github.com/macrokit/macrokit-go/spec"
	"github.com/macrokit/macrokit-go/templates"
	"github.com/urfave/cli/v2"
)

// ModulePath is this module's path, which a deployment requires.
const ModulePath = "github.com/macrokit/macrokit-go"

// DeployGoVersion is the go line of a new deployment's go.mod: this
// module's own (a test keeps them equal).
const DeployGoVersion = "1.26.0"

// devVersion is the version a deployment requires when --dev replaces the
// module and no release version is known: any version works under a
// replace, and this one says so.
const devVersion = "v0.0.0-00010101000000-000000000000"

// SchemaFile is where init writes the spec format's JSON Schema, which the
// example spec's yaml-language-server comment points at.
const SchemaFile = "macrokit.schema.json"

var (
	nameRE   = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	moduleRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._~-]*(/[A-Za-z0-9._~-]+)*$`)
)

// deployData is what the templates see.
type deployData struct {
	Name      string // the binary
	Module    string // the deployment's module path
	GoVersion string
	Version   string // required version of macrokit-go; "" lets go mod tidy pick the latest
	Dev       string // local checkout replacing macrokit-go, quoted for go.mod when needed
	// Indirect are the checkout's requirements ("path version"), with --dev:
	// with its go.sum they let the deployment build offline, no tidy needed.
	Indirect []string
}

// initOptions are init's validated inputs.
type initOptions struct {
	dir   string
	data  deployData
	gosum []byte // the checkout's go.sum, with --dev
	force bool
	tidy  bool
}

func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "scaffold a new deployment: specs, typed primitives, generated package, one binary",
		ArgsUsage: "DIR",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "module", Usage: "the new Go module's path, e.g. example.com/acme/ops (required)"},
			&cli.StringFlag{Name: "name", Usage: "the binary's name (default: the module path's last element)"},
			&cli.StringFlag{Name: "dev", Usage: "a local checkout of macrokit-go to build against: a replace, and go.mod/go.sum completed from the checkout's, so it builds offline"},
			&cli.BoolFlag{Name: "force", Usage: "write into a non-empty DIR (files of the scaffold are overwritten, others kept)"},
			&cli.BoolFlag{Name: "no-tidy", Usage: "without --dev: do not run `go mod tidy` (go.sum is then missing until you do)"},
		},
		Action: func(c *cli.Context) error {
			opts, err := initOptionsFrom(c)
			if err != nil {
				return err
			}
			return runInit(c.Context, newEnv(c, nil), opts)
		},
	}
}

// runInit writes the scaffold opts describes.
func runInit(ctx context.Context, env *Env, opts *initOptions) error {
	files, err := renderDeployment(opts.data)
	if err != nil {
		return Failf("init: %v", err)
	}
	if opts.gosum != nil {
		files["go.sum"] = opts.gosum
	}
	if err := checkTarget(opts.dir, opts.force); err != nil {
		return err
	}
	if err := writeFiles(opts.dir, files); err != nil {
		return Failf("init: %v", err)
	}
	fmt.Fprintf(env.Stderr, "created %s in %s (%d files)\n", opts.data.Name, opts.dir, len(files))
	if opts.tidy {
		if err := goModTidy(ctx, opts.dir, env.Stderr); err != nil {
			return Failf("init: the files are written, but %v; run `go mod tidy` in %s", err, opts.dir)
		}
	}
	fmt.Fprintf(env.Stderr, "next:\n  cd %s\n  go generate ./...\n  go build ./cmd/%s\n  ./%s run greet --arg name=Ada\n", opts.dir, opts.data.Name, opts.data.Name)
	return nil
}

func initOptionsFrom(c *cli.Context) (*initOptions, error) {
	if c.NArg() != 1 {
		return nil, Usagef("init needs one directory: macrokit init DIR --module PATH")
	}
	mod := c.String("module")
	if mod == "" {
		return nil, Usagef("init needs --module, the new module's path (e.g. example.com/acme/ops)")
	}
	if !moduleRE.MatchString(mod) || strings.Contains(mod, "..") || mod == ModulePath {
		return nil, Usagef("--module %q is not a module path for a new module (e.g. example.com/acme/ops)", mod)
	}
	name := c.String("name")
	if name == "" {
		name = strings.ToLower(path.Base(mod))
		if !nameRE.MatchString(name) {
			return nil, Usagef("the module's last element %q is not a binary name: pass --name (lower case letters, digits, - and _)", path.Base(mod))
		}
	}
	if !nameRE.MatchString(name) {
		return nil, Usagef("--name %q: a binary name is lower case letters, digits, - and _, starting with a letter", name)
	}
	opts := &initOptions{dir: c.Args().First(), force: c.Bool("force"), tidy: !c.Bool("no-tidy"),
		data: deployData{Name: name, Module: mod, GoVersion: DeployGoVersion, Version: releaseVersion()}}
	if dev := c.String("dev"); dev != "" {
		abs, err := filepath.Abs(dev)
		if err != nil {
			return nil, Usagef("--dev: %v", err)
		}
		gomod, err := os.ReadFile(filepath.Join(abs, "go.mod"))
		if err != nil || goprim.ModulePath(gomod) != ModulePath {
			return nil, Usagef("--dev %s: not a checkout of %s (no go.mod declaring it)", dev, ModulePath)
		}
		opts.data.Dev = modQuote(filepath.ToSlash(abs))
		if opts.data.Version == "" {
			opts.data.Version = devVersion
		}
		opts.data.Indirect = goModRequires(gomod)
		if opts.gosum, err = os.ReadFile(filepath.Join(abs, "go.sum")); err != nil {
			return nil, Usagef("--dev %s: %v", dev, err)
		}
		opts.tidy = false // offline: go.mod and go.sum are complete already
	}
	return opts, nil
}

// goModRequires lists a go.mod's requirements as "path version", sorted.
func goModRequires(gomod []byte) []string {
	var out []string
	block := false
	for _, line := range strings.Split(string(gomod), "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "require" && f[1] == "(":
			block = true
		case block && len(f) == 1 && f[0] == ")":
			block = false
		case block && len(f) == 2:
			out = append(out, f[0]+" "+f[1])
		case len(f) == 3 && f[0] == "require":
			out = append(out, f[1]+" "+f[2])
		}
	}
	sort.Strings(out)
	return out
}

// releaseVersion is the version of macrokit-go this binary was built
// from, when it is a release (not a local build).
func releaseVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Path != ModulePath {
		return ""
	}
	if v := bi.Main.Version; strings.HasPrefix(v, "v") && !strings.Contains(v, "+dirty") {
		return v
	}
	return ""
}

// modQuote quotes a go.mod path when it holds characters the go.mod
// syntax does not take bare.
func modQuote(s string) string {
	if strings.ContainsAny(s, " \t\"'`(){}") {
		return strconv.Quote(s)
	}
	return s
}

// renderDeployment renders every template into the files of a new
// deployment, keyed by slash path, plus the spec format's schema. Go files
// are gofmt'd.
func renderDeployment(d deployData) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(templates.Deploy, "deploy", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		src, err := templates.Deploy.ReadFile(p)
		if err != nil {
			return err
		}
		out := strings.TrimPrefix(p, "deploy/")
		out = strings.ReplaceAll(out, "__name__", d.Name)
		if strings.HasSuffix(out, ".tmpl") {
			out = strings.TrimSuffix(out, ".tmpl")
			t, err := template.New(p).Delims("[[", "]]").Option("missingkey=error").Parse(string(src))
			if err != nil {
				return err
			}
			var b bytes.Buffer
			if err := t.Execute(&b, d); err != nil {
				return err
			}
			src = b.Bytes()
		}
		if strings.HasSuffix(out, ".go") {
			if src, err = format.Source(src); err != nil {
				return fmt.Errorf("%s: %w", out, err)
			}
		}
		files[out] = src
		return nil
	})
	if err != nil {
		return nil, err
	}
	files[SchemaFile] = spec.JSONSchema()
	return files, nil
}

// checkTarget refuses a non-empty directory (or a file) unless force.
func checkTarget(dir string, force bool) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return Failf("init: %v", err)
	case !st.IsDir():
		return Usagef("%s exists and is not a directory", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return Failf("init: %v", err)
	}
	if len(ents) > 0 && !force {
		return Failf("%s is not empty: refusing to scaffold into it (--force writes the scaffold's files over it, keeping the others)", dir)
	}
	return nil
}

func writeFiles(dir string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// goModTidy completes go.mod and writes go.sum, with the caller's Go
// environment (GOPROXY, GOFLAGS, GOMODCACHE, ...).
func goModTidy(ctx context.Context, dir string, stderr io.Writer) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return errors.New("there is no go command on PATH to run `go mod tidy`")
	}
	cmd := exec.CommandContext(ctx, goBin, "mod", "tidy")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		_, _ = stderr.Write(out.Bytes())
		return fmt.Errorf("go mod tidy failed: %w", err)
	}
	return nil
}

package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/internal/atomicfile"
	"github.com/macrokit/macrokit-go/runtime/identity"
	"github.com/urfave/cli/v2"
)

// IdentityOptions are the flags and arguments of `identity`.
type IdentityOptions struct {
	Action string // list, show, logout, export, import or keygen
	Name   string
	File   string // export --out, import's file
	Plain  bool   // export --plain
	Format string
}

// IdentityCommand is `identity`: the deployment's identities and their
// saved browser state (metadata only; values never print).
func IdentityCommand(cfg *Config) *cli.Command {
	fmtFlag := formatFlag()
	action := func(name string, nargs int, usage string) cli.ActionFunc {
		return func(c *cli.Context) error {
			if c.NArg() != nargs {
				return Usagef("identity %s %s", name, usage)
			}
			o := IdentityOptions{Action: name, Format: c.String("format"), File: c.String("out"), Plain: c.Bool("plain")}
			if nargs > 0 {
				o.Name = c.Args().Get(0)
			}
			if nargs > 1 {
				o.File = c.Args().Get(1)
			}
			return runIdentity(c.Context, newEnv(c, cfg), o)
		}
	}
	return &cli.Command{
		Name:  "identity",
		Usage: "who calls run as: list, show NAME, logout NAME, export NAME, import NAME FILE, keygen (docs/identity.md)",
		Flags: []cli.Flag{fmtFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return Usagef("unknown identity command %q: list, show, logout, export, import or keygen", c.Args().First())
			}
			return runIdentity(c.Context, newEnv(c, cfg), IdentityOptions{Action: "list", Format: c.String("format")})
		},
		Subcommands: []*cli.Command{
			{Name: "list", Usage: "every identity: configured ones and those with saved state", Flags: []cli.Flag{fmtFlag}, Action: action("list", 0, "takes no arguments")},
			{Name: "show", Usage: "one identity's saved state: cookies by domain, origins, logins, expiry (never a value)", ArgsUsage: "NAME", Flags: []cli.Flag{fmtFlag}, Action: action("show", 1, "needs an identity name")},
			{Name: "logout", Usage: "forget an identity's saved browser state (its next call signs in again)", ArgsUsage: "NAME", Action: action("logout", 1, "needs an identity name")},
			{Name: "export", Usage: "write an identity's state for another machine (sealed with $" + identity.EnvKey + " when set)", ArgsUsage: "NAME",
				Flags: []cli.Flag{&cli.StringFlag{Name: "out", Usage: "the file to write (0600; default: stdout)"},
					&cli.BoolFlag{Name: "plain", Usage: "write the state in the clear even when a key is set"}},
				Action: action("export", 1, "needs an identity name")},
			{Name: "import", Usage: "store an exported state as an identity", ArgsUsage: "NAME FILE", Action: action("import", 2, "needs an identity name and a file")},
			{Name: "keygen", Usage: "print a new key for $" + identity.EnvKey + " (seals the saved states at rest)", Action: action("keygen", 0, "takes no arguments")},
		},
	}
}

// identityView is one identity of `identity list|show --format json`.
type identityView struct {
	identity.Meta
	Configured bool `json:"configured"` // named in macrokit.yaml identities:
	Saved      bool `json:"state"`      // has a state file
	Default    bool `json:"default"`    // the identity calls run as without --identity
}

func runIdentity(ctx context.Context, env *Env, o IdentityOptions) error {
	cfg := env.Config
	if o.Action == "keygen" {
		k, err := identity.NewKey()
		if err != nil {
			return Failf("identity keygen: %v", err)
		}
		fmt.Fprintln(env.Stdout, k)
		fmt.Fprintf(env.Stderr, "keep it where the deployment's environment gets it (%s); without it a sealed state cannot be read\n", identity.EnvKey)
		return nil
	}
	if o.Name != "" {
		if err := identity.ValidName(o.Name); err != nil {
			return Usagef("%v", err)
		}
	}
	st, err := identityStore(cfg)
	if err != nil {
		return err
	}
	switch o.Action {
	case "list":
		return identityList(env, st, o.Format)
	case "show":
		m, err := st.Show(o.Name)
		if err != nil {
			return identityFail(o.Name, err)
		}
		v := identityView{Meta: m, Saved: true, Configured: configured(cfg, o.Name), Default: o.Name == defaultIdentity(cfg)}
		if o.Format == formatJSON {
			return writeIndented(env.Stdout, v)
		}
		printIdentity(env, v)
		return nil
	case "logout":
		if err := st.Delete(o.Name); err != nil {
			return identityFail(o.Name, err)
		}
		fmt.Fprintf(env.Stderr, "%s: saved state forgotten; its next call signs in again\n", o.Name)
		return nil
	case "export":
		var buf bytes.Buffer
		if err := st.Export(o.Name, &buf, o.Plain); err != nil {
			return identityFail(o.Name, err)
		}
		if o.Plain || !st.Sealed() {
			fmt.Fprintf(env.Stderr, "warning: %s's state is written in the clear: its cookies sign anyone in as %s; set %s to seal it\n", o.Name, o.Name, identity.EnvKey)
		}
		if o.File == "" {
			_, err := env.Stdout.Write(buf.Bytes())
			return err
		}
		if err := atomicfile.WriteBytes(o.File, 0o600, buf.Bytes()); err != nil {
			return Failf("identity export: %v", err)
		}
		fmt.Fprintf(env.Stderr, "%s: exported to %s\n", o.Name, o.File)
		return nil
	case "import":
		f, err := os.Open(o.File)
		if err != nil {
			return Failf("identity import: %v", err)
		}
		defer f.Close()
		if err := st.Import(ctx, o.Name, f); err != nil {
			return identityFail(o.Name, err)
		}
		fmt.Fprintf(env.Stderr, "%s: imported from %s\n", o.Name, o.File)
		return nil
	}
	return Usagef("unknown identity command %q", o.Action)
}

// identityFail maps store errors to exit codes: a bad name or key is a
// usage error; a missing state, a wrong key or a bad file is a failure.
func identityFail(name string, err error) error {
	if identity.IsCode(err, identity.CodeBadName) || identity.IsCode(err, identity.CodeBadKey) {
		return Usagef("%v", err)
	}
	return Failf("identity %s: %v", name, err)
}

func defaultIdentity(cfg *Config) string {
	if cfg.Settings != nil && cfg.Settings.Identity != "" {
		return cfg.Settings.Identity
	}
	return DefaultIdentity
}

func identityList(env *Env, st *identity.Store, format string) error {
	cfg := env.Config
	metas, err := st.List()
	if err != nil {
		return Failf("identity list: %v", err)
	}
	views := []identityView{}
	seen := map[string]bool{}
	for _, m := range metas {
		seen[m.Name] = true
		views = append(views, identityView{Meta: m, Saved: true})
	}
	for _, n := range identityNames(cfg) {
		if !seen[n] {
			views = append(views, identityView{Meta: identity.Meta{Name: n, Domains: []string{}, Origins: []string{}}})
		}
	}
	for i := range views {
		views[i].Configured = configured(cfg, views[i].Name)
		views[i].Default = views[i].Name == defaultIdentity(cfg)
	}
	if format == formatJSON {
		return writeIndented(env.Stdout, map[string]any{"dir": st.Dir(), "identities": views})
	}
	if len(views) == 0 {
		fmt.Fprintf(env.Stderr, "no identities: none in macrokit.yaml and no saved state in %s\n", st.Dir())
		return nil
	}
	fmt.Fprintf(env.Stdout, "%-20s %-8s %-7s %-9s %-20s %s\n", "IDENTITY", "STATE", "COOKIES", "SEALED", "SAVED", "DOMAINS")
	for _, v := range views {
		state, saved := "none", "-"
		if v.Saved {
			state, saved = "saved", savedText(v)
		}
		if v.Error != "" {
			state = "unreadable"
		}
		name := v.Name
		if v.Default {
			name += " *"
		}
		fmt.Fprintf(env.Stdout, "%-20s %-8s %-7d %-9v %-20s %s\n", name, state, v.Cookies, v.Encrypted, saved, strings.Join(v.Domains, ","))
		if v.Error != "" {
			fmt.Fprintf(env.Stderr, "%s: %s\n", v.Name, v.Error)
		}
	}
	return nil
}

// savedText is when the state was saved, for people.
func savedText(v identityView) string {
	if v.Meta.Saved.IsZero() {
		return "-"
	}
	return v.Meta.Saved.UTC().Format("2006-01-02 15:04:05Z")
}

// configured reports whether macrokit.yaml's identities: names name.
func configured(cfg *Config, name string) bool {
	if cfg.Settings == nil {
		return false
	}
	_, ok := cfg.Settings.Identities[name]
	return ok
}

func printIdentity(env *Env, v identityView) {
	w := env.Stdout
	fmt.Fprintf(w, "identity  %s\n", v.Name)
	fmt.Fprintf(w, "file      %s (sealed: %v)\n", v.Path, v.Encrypted)
	fmt.Fprintf(w, "saved     %s (revision %d)\n", savedText(v), v.Rev)
	fmt.Fprintf(w, "cookies   %d on %s\n", v.Cookies, orNone(strings.Join(v.Domains, ", ")))
	fmt.Fprintf(w, "storage   %s\n", orNone(strings.Join(v.Origins, ", ")))
	if v.Expires != nil {
		fmt.Fprintf(w, "expires   %s (the first persistent cookie; the site may end the session sooner)\n", v.Expires.UTC().Format(time.RFC3339))
	}
	for p, at := range v.Logins {
		fmt.Fprintf(w, "login     %s at %s\n", p, at.UTC().Format(time.RFC3339))
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/macrokit/macrokit-go/internal/atomicfile"

	"github.com/macrokit/macrokit-go/runtime/refdata"
	"github.com/macrokit/macrokit-go/runtime/refdata/cache"
	"github.com/urfave/cli/v2"
)

// Environment variables of the reference-data commands and of deployments
// that read reference data (RefdataOptions).
const (
	// EnvRefdataTrust lists trusted public key files, separated by the OS
	// path-list separator (":" on Unix).
	EnvRefdataTrust = "MACROKIT_REFDATA_TRUST"
	// EnvRefdataCache is the cache database path.
	EnvRefdataCache = "MACROKIT_REFDATA_CACHE"
	// EnvRefdataBundles is the directory of the project's own bundles,
	// synced by `test` before it runs (syncTestBundles).
	EnvRefdataBundles = "MACROKIT_REFDATA_BUNDLES"
)

// RefdataOptions builds the store options from trust files and a cache
// path, falling back to $MACROKIT_REFDATA_TRUST and $MACROKIT_REFDATA_CACHE
// when they are empty. Deployments use it to open the store their lookup
// steps read: refdata.NewContext(ctx, &cache.Lazy{Options: opts}).
func RefdataOptions(cfg *Config, trustFiles []string, cachePath string) (cache.Options, error) {
	o := cache.Options{Path: cachePath}
	if o.Path == "" {
		o.Path = cfg.getenv(EnvRefdataCache)
	}
	if len(trustFiles) == 0 {
		for _, f := range filepath.SplitList(cfg.getenv(EnvRefdataTrust)) {
			if f != "" {
				trustFiles = append(trustFiles, f)
			}
		}
	}
	for _, f := range trustFiles {
		k, err := refdata.ReadPublicKeyFile(f)
		if err != nil {
			return o, fmt.Errorf("trusted key: %w", err)
		}
		o.TrustedKeys = append(o.TrustedKeys, k)
	}
	return o, nil
}

// refdataLookuper is the store every command of Run reads lookup steps
// from: it resolves RefdataOptions(cfg, nil, "") on the first lookup (after
// Run has read the config file) and opens the cache then, so commands and
// runs that never look anything up never touch it.
type refdataLookuper struct {
	cfg  *Config
	once sync.Once
	lazy *cache.Lazy
	err  error
}

func (l *refdataLookuper) store() (*cache.Lazy, error) {
	l.once.Do(func() {
		o, err := RefdataOptions(l.cfg, nil, "")
		if err != nil {
			l.err = &refdata.Error{Code: refdata.CodeNotConfigured, Msg: fmt.Sprintf("trusted keys ($%s or refdata.trust): %v", EnvRefdataTrust, err), Err: err}
			return
		}
		l.lazy = &cache.Lazy{Options: o}
	})
	return l.lazy, l.err
}

// Lookup reads one row (refdata.Lookuper).
func (l *refdataLookuper) Lookup(ctx context.Context, bundle, file, key string) (map[string]any, error) {
	row, _, err := l.LookupRef(ctx, bundle, file, key)
	return row, err
}

// LookupRef reads one row and the version it came from (refdata.RefLookuper).
func (l *refdataLookuper) LookupRef(ctx context.Context, bundle, file, key string) (map[string]any, string, error) {
	s, err := l.store()
	if err != nil {
		return nil, "", err
	}
	return s.LookupRef(ctx, bundle, file, key)
}

// Close closes the store if a lookup opened it.
func (l *refdataLookuper) Close() error {
	l.once.Do(func() {})
	if l.lazy != nil {
		return l.lazy.Close()
	}
	return nil
}

func refdataTrustFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "trust", Usage: "a trusted public key file (repeatable; default: $" + EnvRefdataTrust + ", a list separated by '" + string(os.PathListSeparator) + "', else macrokit.yaml refdata.trust)"}
}

func refdataCacheFlag() cli.Flag {
	return &cli.StringFlag{Name: "cache", Usage: "the cache database (default: $" + EnvRefdataCache + ", else macrokit.yaml refdata.cache, else <user cache dir>/macrokit/refdata.db)"}
}

func refdataMaxBytesFlag() cli.Flag {
	return &cli.Int64Flag{Name: "max-bytes", Usage: "size limit of the bundle, download and unpacked files each (default 512 MiB)"}
}

func refdataTimeoutFlag() cli.Flag {
	return &cli.DurationFlag{Name: "timeout", Value: 5 * time.Minute, Usage: "bound for fetching and verifying the bundle"}
}

func refdataFormatFlag() cli.Flag {
	return formatFlag()
}

// refdataCtx is what every refdata subcommand starts from.
type refdataCtx struct {
	ctx  context.Context
	env  *Env
	opts cache.Options
	json bool
}

// What a subcommand needs of the store options.
const (
	refdataNoStore   = iota // keygen, sign: no cache, no trust
	refdataCache            // the cache; trusted keys if configured (reads then refuse revoked signers)
	refdataVerifying        // verify, sync: trusted keys required
)

func newRefdataCtx(ctx context.Context, env *Env, command string, f RefdataFlags, need int) (*refdataCtx, error) {
	r := &refdataCtx{ctx: ctx, env: env}
	r.json = f.Format == formatJSON
	if need == refdataNoStore {
		return r, nil
	}
	o, err := RefdataOptions(env.Config, f.Trust, f.Cache)
	if err != nil {
		return nil, Usagef("%v", err)
	}
	if need == refdataVerifying && len(o.TrustedKeys) == 0 {
		return nil, Usagef("%s needs a trusted key: --trust KEYFILE, $%s or refdata.trust in %s", command, EnvRefdataTrust, ConfigFile)
	}
	r.opts = o
	return r, nil
}

func (r *refdataCtx) open() (*cache.Store, error) {
	s, err := cache.Open(r.ctx, r.opts)
	if err != nil {
		return nil, Failf("%v", err)
	}
	return s, nil
}

func (r *refdataCtx) emit(v any) error {
	enc := json.NewEncoder(r.env.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// fail reports a refdata error: as the JSON object on stdout with
// --format json (the data of a failed verify or sync), always on stderr.
func (r *refdataCtx) fail(err error) error {
	if r.json {
		_ = r.emit(refdataError(err))
	}
	return Failf("%v", err)
}

type refdataErrorJSON struct {
	OK      bool         `json:"ok"`
	Code    refdata.Code `json:"code"`
	Bundle  string       `json:"bundle,omitempty"`
	File    string       `json:"file,omitempty"`
	Row     int          `json:"row,omitempty"`
	Column  string       `json:"column,omitempty"`
	Message string       `json:"message"`
}

func refdataError(err error) refdataErrorJSON {
	var e *refdata.Error
	if errors.As(err, &e) {
		return refdataErrorJSON{Code: e.Code, Bundle: e.Bundle, File: e.File, Row: e.Row, Column: e.Column, Message: e.Msg}
	}
	return refdataErrorJSON{Code: "internal", Message: err.Error()}
}

// RefdataCommand is `refdata`: signing keys, sealing and verifying
// bundles, and the local cache that macros read reference data from.
func RefdataCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:  "refdata",
		Usage: "signed, versioned reference-data bundles and their cache (see docs/refdata.md)",
		Subcommands: []*cli.Command{
			refdataKeygen(cfg), refdataSign(cfg), refdataVerify(cfg), refdataSync(cfg),
			refdataPin(cfg), refdataList(cfg), refdataShow(cfg), refdataPrune(cfg),
		},
	}
}

func refdataKeygen(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "keygen",
		Usage:     "make a signing key: PREFIX.key (private, mode 0600) and PREFIX.pub (give it to deployments)",
		ArgsUsage: "PREFIX",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "comment", Usage: "a note stored in both files (who owns the key, what it signs)"},
			&cli.BoolFlag{Name: "force", Usage: "overwrite existing key files"},
			refdataFormatFlag(),
		},
		Action: refdataAction(cfg, runRefdataKeygen),
	}
}

// runRefdataKeygen is refdata keygen.
func runRefdataKeygen(ctx context.Context, env *Env, o RefdataFlags) error {
	r, err := newRefdataCtx(ctx, env, "keygen", o, refdataNoStore)
	if err != nil {
		return err
	}
	if len(o.Args) != 1 {
		return Usagef("keygen needs exactly one PREFIX (it writes PREFIX.key and PREFIX.pub)")
	}
	prefix := o.arg(0)
	privPath, pubPath := prefix+".key", prefix+".pub"
	if !o.Force {
		for _, p := range []string{privPath, pubPath} {
			if _, err := os.Stat(p); err == nil {
				return Usagef("%s exists (use --force to overwrite)", p)
			}
		}
	}
	k, err := refdata.GenerateKey(nil, o.Comment)
	if err != nil {
		return Failf("keygen: %v", err)
	}
	if err := os.WriteFile(privPath, k.Marshal(), 0o600); err != nil {
		return Failf("keygen: %v", err)
	}
	if err := os.Chmod(privPath, 0o600); err != nil {
		return Failf("keygen: %v", err)
	}
	if err := os.WriteFile(pubPath, k.Public().Marshal(), 0o644); err != nil {
		return Failf("keygen: %v", err)
	}
	fmt.Fprintf(env.Stderr, "wrote %s (keep it secret) and %s\n", privPath, pubPath)
	if r.json {
		return r.emit(map[string]string{"id": k.ID, "private_key": privPath, "public_key": pubPath})
	}
	fmt.Fprintln(env.Stdout, k.ID)
	return nil
}

func refdataSign(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "sign",
		Usage:     "fill a bundle directory's manifest (each file's sha256 and rows, checked against its schema) and sign it",
		ArgsUsage: "DIR",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "key", Usage: "the private key file (from keygen; required)"},
			&cli.StringFlag{Name: "published-at", Usage: "publication time, RFC 3339 (default: now)"},
			&cli.StringFlag{Name: "expires-at", Usage: "expiry, RFC 3339 (replaces the manifest's)"},
			&cli.DurationFlag{Name: "expires-in", Usage: "expiry relative to the publication time, e.g. 720h"},
			&cli.StringFlag{Name: "archive", Usage: "also write the signed bundle as this .tar.gz"},
			refdataFormatFlag(),
		},
		Action: refdataAction(cfg, runRefdataSign),
	}
}

// runRefdataSign is refdata sign.
func runRefdataSign(ctx context.Context, env *Env, o RefdataFlags) error {
	r, err := newRefdataCtx(ctx, env, "sign", o, refdataNoStore)
	if err != nil {
		return err
	}
	if len(o.Args) != 1 {
		return Usagef("sign needs exactly one bundle directory")
	}
	if err := requireFlag("sign", "key", o.Key); err != nil {
		return err
	}
	dir := o.arg(0)
	k, err := refdata.ReadPrivateKeyFile(o.Key)
	if err != nil {
		return Usagef("--key: %v", err)
	}
	var so refdata.SealOptions
	if s := o.PublishedAt; s != "" {
		if so.PublishedAt, err = time.Parse(time.RFC3339, s); err != nil {
			return Usagef("--published-at: %v", err)
		}
	}
	if o.ExpiresAt != "" && o.ExpiresIn != 0 {
		return Usagef("give --expires-at or --expires-in, not both")
	}
	if s := o.ExpiresAt; s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return Usagef("--expires-at: %v", err)
		}
		so.ExpiresAt = &t
	}
	if d := o.ExpiresIn; d > 0 {
		if so.PublishedAt.IsZero() {
			so.PublishedAt = time.Now().UTC().Truncate(time.Second)
		}
		t := so.PublishedAt.Add(d)
		so.ExpiresAt = &t
	}
	m, err := refdata.Seal(ctx, dir, k, so)
	if err != nil {
		return r.fail(err)
	}
	if out := o.Archive; out != "" {
		if err := refdataWriteArchive(dir, out); err != nil {
			return Failf("--archive: %v", err)
		}
	}
	if r.json {
		return r.emit(m)
	}
	rows := 0
	for _, f := range m.Files {
		rows += f.Rows
	}
	fmt.Fprintf(env.Stdout, "%s signed by %s: %d file(s), %d row(s)\n", m.Ref(), m.SignedBy, len(m.Files), rows)
	return nil
}

func refdataWriteArchive(dir, out string) error {
	return atomicfile.Write(out, 0o644, func(w io.Writer) error { return refdata.Pack(dir, w) })
}

// refdataBundleJSON is the summary of a verified bundle.
type refdataBundleJSON struct {
	OK          bool              `json:"ok"`
	Name        string            `json:"name"`
	Version     string            `json:"version"`
	PublishedAt time.Time         `json:"published_at"`
	ExpiresAt   *time.Time        `json:"expires_at,omitempty"`
	SignedBy    string            `json:"signed_by"`
	Files       []refdataFileJSON `json:"files"`
}

type refdataFileJSON struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	Key    string `json:"key,omitempty"`
	Rows   int    `json:"rows"`
}

func refdataSummary(m *refdata.Manifest) refdataBundleJSON {
	out := refdataBundleJSON{OK: true, Name: m.Name, Version: m.Version, PublishedAt: m.PublishedAt, ExpiresAt: m.ExpiresAt, SignedBy: m.SignedBy}
	for _, f := range m.Files {
		out.Files = append(out.Files, refdataFileJSON{Path: f.Path, Format: string(f.Format), Key: f.Key, Rows: f.Rows})
	}
	return out
}

func refdataPrintManifest(w io.Writer, m *refdata.Manifest) {
	exp := "never"
	if m.ExpiresAt != nil {
		exp = m.ExpiresAt.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(w, "%s\n  published %s, expires %s, signed by %s\n", m.Ref(), m.PublishedAt.UTC().Format(time.RFC3339), exp, m.SignedBy)
	for _, f := range m.Files {
		key := "no key"
		if f.Key != "" {
			key = "key " + f.Key
		}
		fmt.Fprintf(w, "  %s (%s, %d rows, %s)\n", f.Path, f.Format, f.Rows, key)
	}
}

func refdataVerify(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "verify a bundle (directory, .tar.gz or http(s) URL): signature, sha256s, expiry, row schemas",
		ArgsUsage: "DIR|ARCHIVE|URL",
		Flags:     []cli.Flag{refdataTrustFlag(), refdataMaxBytesFlag(), refdataTimeoutFlag(), refdataFormatFlag()},
		Action:    refdataAction(cfg, runRefdataVerify),
	}
}

// runRefdataVerify is refdata verify.
func runRefdataVerify(ctx context.Context, env *Env, o RefdataFlags) error {
	r, err := newRefdataCtx(ctx, env, "verify", o, refdataVerifying)
	if err != nil {
		return err
	}
	if len(o.Args) != 1 {
		return Usagef("verify needs exactly one bundle: a directory, a .tar.gz or a URL")
	}
	r.opts.MaxBytes = o.MaxBytes
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	b, err := refdata.Load(ctx, o.arg(0), r.opts.Options)
	if err != nil {
		return r.fail(err)
	}
	if r.json {
		return r.emit(refdataSummary(b.Manifest))
	}
	fmt.Fprint(env.Stdout, "verified ")
	refdataPrintManifest(env.Stdout, b.Manifest)
	return nil
}

func refdataSync(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "verify a bundle and make it the current version of NAME in the cache (downgrades need a pin)",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "the bundle: a directory, a .tar.gz or an http(s) URL (required)"},
			&cli.StringFlag{Name: "pin", Usage: "also pin NAME to this semver range (^1.2, ~1.2.3, >=1 <2, 1.x, ...)"},
			refdataMaxBytesFlag(), refdataTimeoutFlag(),
			refdataTrustFlag(), refdataCacheFlag(), refdataFormatFlag(),
		},
		Action: refdataAction(cfg, runRefdataSync),
	}
}

// runRefdataSync is refdata sync.
func runRefdataSync(ctx context.Context, env *Env, o RefdataFlags) error {
	r, err := newRefdataCtx(ctx, env, "sync", o, refdataVerifying)
	if err != nil {
		return err
	}
	if len(o.Args) != 1 {
		return Usagef("sync needs exactly one bundle NAME")
	}
	if err := requireFlag("sync", "from", o.From); err != nil {
		return err
	}
	if p := o.Pin; p != "" {
		if _, err := refdata.ParseRange(p); err != nil {
			return Usagef("--pin: %v", err)
		}
	}
	r.opts.MaxBytes = o.MaxBytes
	s, err := r.open()
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	res, err := s.Sync(ctx, o.arg(0), o.From, cache.SyncOptions{Pin: o.Pin})
	if err != nil {
		return r.fail(err)
	}
	if r.json {
		return r.emit(res)
	}
	switch {
	case res.Unchanged:
		fmt.Fprintf(env.Stdout, "%s@%s is current (already cached; re-verified)\n", res.Name, res.Version)
	default:
		from := ""
		if res.Previous != "" && res.Previous != res.Version {
			from = " (was " + res.Previous + ")"
		}
		verb := "synced"
		if res.Replaced {
			verb = "replaced"
		}
		fmt.Fprintf(env.Stdout, "%s %s@%s%s: %d file(s), %d row(s) in %s\n", verb, res.Name, res.Version, from, res.Files, res.Rows, res.Duration.Round(time.Millisecond))
	}
	return nil
}

func refdataPin(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "pin",
		Usage:     "pin NAME to a semver range: its current version becomes the highest cached one in range, and syncs must stay in it",
		ArgsUsage: "NAME RANGE",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "clear", Usage: "remove NAME's pin instead"}, refdataTrustFlag(), refdataCacheFlag(), refdataFormatFlag()},
		Action:    refdataAction(cfg, runRefdataPin),
	}
}

// runRefdataPin is refdata pin.
func runRefdataPin(ctx context.Context, env *Env, o RefdataFlags) error {
	r, err := newRefdataCtx(ctx, env, "pin", o, refdataCache)
	if err != nil {
		return err
	}
	clear := o.Clear
	if (clear && len(o.Args) != 1) || (!clear && len(o.Args) != 2) {
		return Usagef("pin needs NAME RANGE (or NAME --clear)")
	}
	name := o.arg(0)
	if !clear {
		if _, err := refdata.ParseRange(o.arg(1)); err != nil {
			return Usagef("%v", err)
		}
	}
	s, err := r.open()
	if err != nil {
		return err
	}
	defer s.Close()
	if clear {
		if err := s.Unpin(ctx, name); err != nil {
			return r.fail(err)
		}
		if r.json {
			return r.emit(map[string]any{"name": name, "pin": nil})
		}
		fmt.Fprintf(env.Stdout, "%s is not pinned\n", name)
		return nil
	}
	rng := o.arg(1)
	cur, err := s.Pin(ctx, name, rng)
	if err != nil {
		return r.fail(err)
	}
	if cur == "" {
		fmt.Fprintf(env.Stderr, "%s: no cached version of %s satisfies %q; it has no current version until a sync brings one\n", env.Name, name, rng)
	}
	if r.json {
		return r.emit(map[string]any{"name": name, "pin": rng, "current": cur})
	}
	if cur != "" {
		fmt.Fprintf(env.Stdout, "%s pinned to %s; current %s\n", name, rng, cur)
	} else {
		fmt.Fprintf(env.Stdout, "%s pinned to %s; no current version\n", name, rng)
	}
	return nil
}

func refdataList(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:   "list",
		Usage:  "list the cached bundle versions",
		Flags:  []cli.Flag{refdataCacheFlag(), refdataFormatFlag()},
		Action: refdataAction(cfg, runRefdataList),
	}
}

// runRefdataList is refdata list.
func runRefdataList(ctx context.Context, env *Env, o RefdataFlags) error {
	if len(o.Args) > 0 {
		return Usagef("list takes no arguments (got %q)", o.Args[0])
	}
	r, err := newRefdataCtx(ctx, env, "list", o, refdataCache)
	if err != nil {
		return err
	}
	s, err := r.open()
	if err != nil {
		return err
	}
	defer s.Close()
	list, err := s.List(ctx)
	if err != nil {
		return r.fail(err)
	}
	if r.json {
		if list == nil {
			list = []cache.Entry{}
		}
		return r.emit(list)
	}
	if len(list) == 0 {
		fmt.Fprintf(env.Stderr, "%s: the cache %s holds no bundles\n", env.Name, s.Path())
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tCURRENT\tPIN\tFILES\tROWS\tPUBLISHED\tEXPIRES\tSIGNED BY")
	for _, e := range list {
		cur, exp := "", "-"
		if e.Current {
			cur = "*"
		}
		if e.ExpiresAt != nil {
			exp = e.ExpiresAt.Format(time.RFC3339)
			if e.Expired {
				exp += " (expired)"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", e.Name, e.Version, cur, refdataDash(e.Pin), e.Files, e.Rows, e.PublishedAt.Format(time.RFC3339), exp, e.SignedBy)
	}
	return tw.Flush()
}

func refdataDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func refdataShow(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show a cached bundle's manifest, a file's rows (--file), or one row (--file --key)",
		ArgsUsage: "NAME[@VERSION]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Usage: "a file of the bundle: print its rows (JSON Lines; a JSON array with --format json)"},
			&cli.StringFlag{Name: "key", Usage: "with --file: print only the row with this key"},
			refdataTrustFlag(), refdataCacheFlag(), refdataFormatFlag(),
		},
		Action: refdataAction(cfg, runRefdataShow),
	}
}

// runRefdataShow is refdata show.
func runRefdataShow(ctx context.Context, env *Env, o RefdataFlags) error {
	r, err := newRefdataCtx(ctx, env, "show", o, refdataCache)
	if err != nil {
		return err
	}
	if len(o.Args) != 1 {
		return Usagef("show needs exactly one NAME or NAME@VERSION")
	}
	ref, file, key := o.arg(0), o.File, o.Key
	if o.KeySet && file == "" {
		return Usagef("--key needs --file")
	}
	s, err := r.open()
	if err != nil {
		return err
	}
	defer s.Close()
	switch {
	case o.KeySet:
		row, err := s.LookupRaw(ctx, ref, file, key)
		if err != nil {
			return r.fail(err)
		}
		if r.json {
			return r.emit(json.RawMessage(row))
		}
		fmt.Fprintf(env.Stdout, "%s\n", row)
		return nil
	case file != "":
		// Resolve first, so a missing bundle or file is an error
		// before any output, and a concurrent sync cannot switch
		// versions mid-listing.
		_, m, err := s.Manifest(ctx, ref)
		if err != nil {
			return r.fail(err)
		}
		if m.File(file) == nil {
			return r.fail(&refdata.Error{Code: refdata.CodeNotFound, Bundle: m.Ref(), File: file, Msg: "no such file in the bundle"})
		}
		w := env.Stdout
		n := 0
		if r.json {
			fmt.Fprint(w, "[")
		}
		err = s.EachRow(ctx, m.Ref(), file, func(_ string, row json.RawMessage) error {
			if r.json {
				if n > 0 {
					fmt.Fprint(w, ",")
				}
				fmt.Fprintf(w, "\n  %s", row)
			} else {
				fmt.Fprintf(w, "%s\n", row)
			}
			n++
			return nil
		})
		if err != nil {
			return Failf("%v", err)
		}
		if r.json {
			if n > 0 {
				fmt.Fprint(w, "\n")
			}
			fmt.Fprint(w, "]\n")
		}
		return nil
	}
	e, m, err := s.Manifest(ctx, ref)
	if err != nil {
		return r.fail(err)
	}
	if r.json {
		return r.emit(struct {
			Entry    *cache.Entry      `json:"cache"`
			Manifest *refdata.Manifest `json:"manifest"`
		}{e, m})
	}
	refdataPrintManifest(env.Stdout, m)
	cur := ""
	if e.Current {
		cur = "current, "
	}
	fmt.Fprintf(env.Stdout, "  cache: %ssynced %s from %s\n", cur, e.SyncedAt.Format(time.RFC3339), e.Source)
	return nil
}

func refdataPrune(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:   "prune",
		Usage:  "delete cached versions that are not current (keeping the newest --keep per bundle) and every expired one",
		Flags:  []cli.Flag{&cli.IntFlag{Name: "keep", Value: 1, Usage: "non-current versions to keep per bundle, for rolling back with a pin"}, refdataCacheFlag(), refdataFormatFlag()},
		Action: refdataAction(cfg, runRefdataPrune),
	}
}

// runRefdataPrune is refdata prune.
func runRefdataPrune(ctx context.Context, env *Env, o RefdataFlags) error {
	if len(o.Args) > 0 {
		return Usagef("prune takes no arguments (got %q)", o.Args[0])
	}
	r, err := newRefdataCtx(ctx, env, "prune", o, refdataCache)
	if err != nil {
		return err
	}
	if o.Keep < 0 {
		return Usagef("--keep must be 0 or more")
	}
	s, err := r.open()
	if err != nil {
		return err
	}
	defer s.Close()
	removed, err := s.Prune(ctx, cache.PruneOptions{Keep: o.Keep})
	if err != nil {
		return r.fail(err)
	}
	if r.json {
		if removed == nil {
			removed = []string{}
		}
		return r.emit(map[string]any{"removed": removed})
	}
	for _, ref := range removed {
		fmt.Fprintln(env.Stdout, ref)
	}
	fmt.Fprintf(env.Stderr, "%s: pruned %d version(s)\n", env.Name, len(removed))
	return nil
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/audit"
	"github.com/urfave/cli/v2"
)

// auditOff is the value of `audit:` (and $MACROKIT_AUDIT) that disables
// the audit log.
const auditOff = "off"

// auditDefault is the audit log's path when nothing configures one (a
// variable so this package's tests keep it out of the source tree).
var auditDefault = audit.DefaultFile

// auditSink is the audit log of one command: opened on the first event, so
// commands that record nothing create no file, at the path the settings
// give (empty: no audit log, events are dropped). A failed open is tried
// again on the next event, so a long-running serve recovers once the
// operator fixes the file.
type auditSink struct {
	cfg *Config

	mu  sync.Mutex
	log *audit.Log
}

// Append opens the log on first use and appends e.
func (s *auditSink) Append(ctx context.Context, e audit.Event) error {
	s.mu.Lock()
	if s.log == nil {
		path := s.path()
		if path == "" {
			s.mu.Unlock()
			return nil
		}
		l, err := audit.Open(path)
		if err != nil {
			s.mu.Unlock()
			return err
		}
		s.log = l
	}
	l := s.log
	s.mu.Unlock()
	return l.Append(ctx, e)
}

func (s *auditSink) path() string {
	if s.cfg == nil || s.cfg.Settings == nil {
		return auditDefault
	}
	return s.cfg.Settings.AuditFile
}

// Close closes the log if it was opened.
func (s *auditSink) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log != nil {
		_ = s.log.Close()
	}
}

// localUser names who answers at this terminal (or gave --yes): the OS
// user, for the audit log's `who`.
func localUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if v := os.Getenv("USER"); v != "" {
		return v
	}
	return "unknown"
}

// yesApprover is the audited approver of --yes (or approval.policy: yes).
func yesApprover() runtime.Approver {
	return runtime.AuditedApprover(runtime.AlwaysApprove, audit.ChannelYes, localUser())
}

// AuditCommand is `audit`: check and read the audit log.
func AuditCommand(cfg *Config) *cli.Command {
	fileFlag := &cli.StringFlag{Name: "file", Usage: "the audit log (default: macrokit.yaml audit, else $" + EnvAudit + ", else " + audit.DefaultFile + ")"}
	return &cli.Command{
		Name:  "audit",
		Usage: "verify the audit log's hash chain, or show its events",
		Subcommands: []*cli.Command{
			{
				Name:  "verify",
				Usage: "check that no line was edited, reordered, inserted or deleted (exit 1 with the first bad line)",
				Description: `Each line carries the SHA-256 of the line before it, so an edit, a reordering, an insertion or a
deleted middle line breaks the chain at a line number. Lines deleted from the end leave a shorter chain that
is still whole: save the head verify prints (seq and hash) elsewhere and pass it back with --expect-seq and
--expect-hash to catch that, and a rewrite of the whole chain.`,
				Flags: []cli.Flag{fileFlag, formatFlag(),
					&cli.Int64Flag{Name: "expect-seq", Usage: "a seq the log must reach (a head saved earlier)"},
					&cli.StringFlag{Name: "expect-hash", Usage: "the hash the line of --expect-seq must have"}},
				Action: func(c *cli.Context) error {
					if err := noArgs(c, 0); err != nil {
						return err
					}
					return runAuditVerify(c.Context, newEnv(c, cfg), AuditVerifyOptions{File: c.String("file"), Format: c.String("format"),
						ExpectSeq: c.Int64("expect-seq"), ExpectHash: c.String("expect-hash")})
				},
			},
			{
				Name:  "show",
				Usage: "the events, filtered by time, identity, macro and kind",
				Flags: []cli.Flag{fileFlag, formatFlag(),
					&cli.StringFlag{Name: "since", Usage: "from this time: RFC 3339, a date, or a duration before now (2h)"},
					&cli.StringFlag{Name: "until", Usage: "up to this time (same forms)"},
					&cli.StringFlag{Name: "identity", Usage: "only events of this identity"},
					&cli.StringFlag{Name: "macro", Usage: "only events of this macro"},
					&cli.StringSliceFlag{Name: "kind", Usage: "only these kinds (repeatable or comma-separated): " + kindList()}},
				Action: func(c *cli.Context) error {
					if err := noArgs(c, 0); err != nil {
						return err
					}
					return runAuditShow(c.Context, newEnv(c, cfg), AuditShowOptions{File: c.String("file"), Format: c.String("format"),
						Since: c.String("since"), Until: c.String("until"), Identity: c.String("identity"), Macro: c.String("macro"), Kinds: c.StringSlice("kind")})
				},
			},
		},
	}
}

func kindList() string {
	names := make([]string, len(audit.Kinds))
	for i, k := range audit.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// AuditVerifyOptions are audit verify's flags.
type AuditVerifyOptions struct {
	File       string // "" : the configured log
	Format     string
	ExpectSeq  int64
	ExpectHash string
}

// AuditVerifyResult is audit verify's --format json output.
type AuditVerifyResult struct {
	File   string        `json:"file"`
	OK     bool          `json:"ok"`
	Report audit.Report  `json:"report"`
	Error  *AuditProblem `json:"error,omitempty"`
}

// AuditProblem is the first bad line verify found.
type AuditProblem struct {
	Line    int           `json:"line"`
	Problem audit.Problem `json:"problem"`
	Detail  string        `json:"detail"`
}

// auditFile is the log a command reads: opts' --file, else the configured
// one.
func auditFile(env *Env, file string) (string, error) {
	if file != "" {
		return file, nil
	}
	if env.Config != nil && env.Settings != nil {
		if env.Settings.AuditFile == "" {
			return "", Usagef("the audit log is off (audit: %s); name a file with --file", auditOff)
		}
		return env.Settings.AuditFile, nil
	}
	return auditDefault, nil
}

// runAuditVerify checks the chain of the audit log: exit 0 when whole,
// 1 with `file:line: problem: detail` on stderr when not.
func runAuditVerify(ctx context.Context, env *Env, opts AuditVerifyOptions) error {
	path, err := auditFile(env, opts.File)
	if err != nil {
		return err
	}
	if opts.ExpectHash != "" && opts.ExpectSeq <= 0 {
		return Usagef("--expect-hash needs --expect-seq (the seq whose line has that hash)")
	}
	f, err := os.Open(path)
	if err != nil {
		return Failf("audit verify: %v", err)
	}
	defer f.Close()
	rep, err := audit.VerifyWith(ctx, f, audit.VerifyOptions{ExpectSeq: opts.ExpectSeq, ExpectHash: strings.ToLower(opts.ExpectHash)})
	var ce *audit.ChainError
	if err != nil && !errors.As(err, &ce) {
		return Failf("audit verify %s: %v", path, err)
	}
	if opts.Format == formatJSON {
		res := AuditVerifyResult{File: path, OK: ce == nil, Report: rep}
		if ce != nil {
			res.Error = &AuditProblem{Line: ce.Line, Problem: ce.Problem, Detail: ce.Detail}
		}
		if err := writeIndented(env.Stdout, res); err != nil {
			return err
		}
	}
	if ce != nil {
		fmt.Fprintf(env.Stderr, "%s:%d: %s: %s\n", path, ce.Line, ce.Problem, ce.Detail)
		return Silent
	}
	if opts.Format != formatJSON {
		fmt.Fprintf(env.Stdout, "%s: ok, %d record(s); head seq %d hash %s\n", path, rep.Records, rep.Head.Seq, rep.Head.Hash)
		for _, l := range rep.Repairs {
			fmt.Fprintf(env.Stdout, "  line %d: a torn line (a crash mid-write) accounted for by a torn_line entry\n", l)
		}
	}
	return nil
}

// AuditShowOptions are audit show's flags.
type AuditShowOptions struct {
	File         string
	Format       string
	Since, Until string
	Identity     string
	Macro        string
	Kinds        []string
}

// runAuditShow prints the events that pass the filters, streaming the file.
func runAuditShow(ctx context.Context, env *Env, opts AuditShowOptions) error {
	path, err := auditFile(env, opts.File)
	if err != nil {
		return err
	}
	f := audit.Filter{Identity: opts.Identity, Macro: opts.Macro}
	now := time.Now()
	for _, b := range []struct {
		flag, v string
		t       *time.Time
	}{{"since", opts.Since, &f.Since}, {"until", opts.Until, &f.Until}} {
		if b.v == "" {
			continue
		}
		if *b.t, err = audit.ParseTime(b.v, now); err != nil {
			return Usagef("--%s: %v", b.flag, err)
		}
	}
	for _, k := range opts.Kinds {
		for _, part := range strings.Split(k, ",") {
			kind := audit.Kind(strings.TrimSpace(part))
			if !slices.Contains(audit.Kinds, kind) {
				return Usagef("--kind %q is not an event kind: %s", part, kindList())
			}
			f.Kinds = append(f.Kinds, kind)
		}
	}
	file, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && opts.File == "" {
			fmt.Fprintf(env.Stderr, "%s audit: no audit log yet at %s\n", env.Name, path)
			if opts.Format == formatJSON {
				_, err := io.WriteString(env.Stdout, "[]\n")
				return err
			}
			return nil
		}
		return Failf("audit show: %v", err)
	}
	defer file.Close()
	w := &entryWriter{w: env.Stdout, json: opts.Format == formatJSON}
	skipped, err := audit.Read(ctx, file, f, w.write)
	if err != nil {
		return Failf("audit show %s: %v", path, err)
	}
	if err := w.close(); err != nil {
		return err
	}
	if skipped > 0 {
		fmt.Fprintf(env.Stderr, "%s audit: %d line(s) that are not records skipped (see '%s audit verify')\n", env.Name, skipped, env.Name)
	}
	return nil
}

// entryWriter prints entries as they stream: a table, or a JSON array one
// element a line.
type entryWriter struct {
	w    io.Writer
	json bool
	n    int
}

func (e *entryWriter) write(en audit.Entry) error {
	e.n++
	if e.json {
		b, err := json.Marshal(en)
		if err != nil {
			return err
		}
		sep := ",\n  "
		if e.n == 1 {
			sep = "[\n  "
		}
		_, err = fmt.Fprintf(e.w, "%s%s", sep, b)
		return err
	}
	if e.n == 1 {
		fmt.Fprintf(e.w, "%-5s %-20s %-16s %-20s %-17s %-12s %s\n", "SEQ", "TIME", "KIND", "MACRO", "CHANNEL", "WHO", "DETAIL")
	}
	_, err := fmt.Fprintf(e.w, "%-5d %-20s %-16s %-20s %-17s %-12s %s\n", en.Seq, en.Time.UTC().Format("2006-01-02 15:04:05Z"), en.Kind, dash(en.Macro),
		dash(string(en.Channel)), dash(en.Who), detail(en))
	return err
}

func (e *entryWriter) close() error {
	if !e.json {
		return nil
	}
	end := "\n]\n"
	if e.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(e.w, end)
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// detail is the rest of an entry worth a glance in the table.
func detail(en audit.Entry) string {
	var parts []string
	if en.Identity != "" {
		parts = append(parts, "identity="+en.Identity)
	}
	if en.Secret != "" {
		parts = append(parts, "secret="+en.Secret)
	}
	if en.Target != "" {
		parts = append(parts, en.Target)
	}
	if en.Reason != "" {
		parts = append(parts, "("+en.Reason+")")
	}
	return strings.Join(parts, " ")
}

package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/internal/report"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
)

func str(v any) string {
	s, _ := v.(string)
	return s
}

// SessionsCommand is `sessions`: list the session logs and show one as a
// readable transcript.
func SessionsCommand(cfg *Config) *cli.Command {
	dirFlag := &cli.StringFlag{Name: "dir", Aliases: []string{"session-dir"}, Value: sessionlog.DefaultDir, Usage: "the session-log directory"}
	fmtFlag := formatFlag()
	return &cli.Command{
		Name:  "sessions",
		Usage: "list the session logs, or show one as a transcript",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "one line per session: id, start, turns, calls, failures, interrupted calls",
				Flags: []cli.Flag{dirFlag, fmtFlag},
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return Usagef("sessions list takes no arguments (use --dir)")
					}
					return runSessionsList(newEnv(c, cfg), SessionsOptions{Dir: c.String("dir"), Format: c.String("format")})
				},
			},
			{
				Name:      "show",
				Usage:     "a session as a transcript: requests, routed macros, arguments, results, checks, bail-outs",
				ArgsUsage: "<id | id prefix | last | path>",
				Flags: append([]cli.Flag{dirFlag, fmtFlag,
					&cli.BoolFlag{Name: "html", Usage: "write the session's HTML report (as 'report' does) and print its path"}}, reportFlags("")...),
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return Usagef("sessions show needs one session id (see '%s sessions list')", cfg.Name)
					}
					opts := SessionsOptions{Dir: c.String("dir"), Format: c.String("format"), HTML: c.Bool("html"), Out: c.String("out"), Embed: c.Bool("embed")}
					if !opts.HTML && (opts.Out != "" || opts.Embed) {
						return Usagef("-o and --embed go with --html")
					}
					if opts.HTML && c.IsSet("format") {
						return Usagef("--html writes a file: drop --format (or use 'report --format json')")
					}
					return runSessionsShow(newEnv(c, cfg), c.Args().First(), opts)
				},
			},
		},
	}
}

// SessionsOptions are the flags of sessions list and show.
type SessionsOptions struct {
	Dir    string
	Format string
	// HTML writes the session's report to Out (a temporary file when
	// empty) instead of printing a transcript; Embed inlines its
	// screenshots.
	HTML  bool
	Out   string
	Embed bool
}

// runSessionsList prints one line per session log in opts.Dir.
func runSessionsList(env *Env, opts SessionsOptions) error {
	list, err := sessionlog.List(opts.Dir)
	if err != nil {
		return Failf("%v", err)
	}
	if opts.Format == formatJSON {
		return writeIndented(env.Stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintf(env.Stderr, "no sessions in %s\n", opts.Dir)
		return nil
	}
	fmt.Fprintf(env.Stdout, "%-32s %-20s %-8s %5s %5s %8s %11s\n", "ID", "START", "COMMAND", "TURNS", "CALLS", "FAILURES", "INTERRUPTED")
	for _, s := range list {
		fmt.Fprintf(env.Stdout, "%-32s %-20s %-8s %5d %5d %8d %11d", s.ID, s.Start.UTC().Format("2006-01-02 15:04:05Z"), s.Command, s.Turns, s.Calls, s.Failures, s.Interrupted)
		if s.Torn > 0 {
			fmt.Fprintf(env.Stdout, "  (%d torn line(s) skipped)", s.Torn)
		}
		fmt.Fprintln(env.Stdout)
	}
	return nil
}

// runSessionsShow prints the session ref names (an id, a prefix, last or a
// path) as a transcript.
func runSessionsShow(env *Env, ref string, opts SessionsOptions) error {
	path, err := sessionlog.Find(opts.Dir, ref)
	if err != nil {
		return Usagef("%v", err)
	}
	if opts.HTML {
		rep, err := report.FromSession(path)
		if err != nil {
			return Failf("%v", err)
		}
		return writeReport(env, rep, ReportOptions{Out: opts.Out, Embed: opts.Embed})
	}
	d, err := sessionlog.Digest(path)
	if err != nil {
		return Failf("%v", err)
	}
	if opts.Format == formatJSON {
		err = writeSessionJSON(env.Stdout, d)
	} else {
		err = PrintSession(env.Stdout, d)
	}
	if err != nil {
		return Failf("%v", err)
	}
	return nil
}

// writeSessionJSON writes a session as {"summary", "records", "stats"},
// one record at a time. A record that is an interrupted call carries
// "interrupted": true.
func writeSessionJSON(w io.Writer, d *sessionlog.Digested) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	sum, err := json.MarshalIndent(d.Summary, "  ", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(bw, "{\n  \"summary\": %s,\n  \"records\": [", sum)
	n := 0
	err = d.Each(func(r sessionlog.Record, interrupted bool) error {
		var b []byte
		var err error
		if interrupted {
			b, err = json.MarshalIndent(struct {
				sessionlog.Record
				Interrupted bool `json:"interrupted"`
			}{r, true}, "    ", "  ")
		} else {
			b, err = json.MarshalIndent(r, "    ", "  ")
		}
		if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		bw.WriteString("\n    ")
		_, err = bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	st, err := json.MarshalIndent(d.Stats, "  ", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(bw, "],\n  \"stats\": %s\n}\n", st)
	return bw.Flush()
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// quietEvents are system events a transcript leaves out: bookkeeping that
// `sessions show --format json` still has.
var quietEvents = map[string]bool{"catalog": true, "model_response": true, "turn_done": true, "session": true, "run": true}

// PrintSession writes a session as a transcript, streaming its records:
// per turn, the request, each call with its arguments, its result or error
// with the checks (or that it was interrupted), the router's events
// (bail-outs, escalations, salvages, approvals) and the reply.
func PrintSession(w io.Writer, d *sessionlog.Digested) error {
	sum := d.Summary
	fmt.Fprintf(w, "session %s", sum.ID)
	if who := strings.TrimSpace(sum.Binary + " " + sum.Command); who != "" {
		fmt.Fprintf(w, " (%s", who)
		if sum.Model != "" {
			fmt.Fprintf(w, ", model %s", sum.Model)
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintf(w, ", %s, %d turn(s), %d call(s), %d failed", sum.Start.UTC().Format("2006-01-02 15:04:05Z"), sum.Turns, sum.Calls, sum.Failures)
	if sum.Interrupted > 0 {
		fmt.Fprintf(w, ", %d interrupted", sum.Interrupted)
	}
	fmt.Fprintln(w)
	turn := -1
	err := d.Each(func(r sessionlog.Record, interrupted bool) error {
		if r.Type == sessionlog.RecSystem && quietEvents[r.Event] {
			return nil
		}
		if r.Turn != turn {
			turn = r.Turn
			if turn > 0 {
				fmt.Fprintf(w, "turn %d\n", turn)
			}
		}
		switch r.Type {
		case sessionlog.RecUser:
			fmt.Fprintf(w, "  user: %s\n", r.Text)
		case sessionlog.RecAssistant:
			fmt.Fprintf(w, "  reply: %s\n", r.Text)
		case sessionlog.RecToolCall:
			kind := ""
			if r.Raw {
				kind = " (raw)"
			}
			fmt.Fprintf(w, "  -> %s%s %s\n", r.Tool, kind, compactJSON(r.Args))
			if interrupted {
				fmt.Fprintln(w, "     "+InterruptedNote)
			}
		case sessionlog.RecToolResult:
			printResult(w, r)
		case sessionlog.RecSystem:
			printEvent(w, r)
		}
		return nil
	})
	if sum.Torn > 0 {
		fmt.Fprintf(w, "(%d torn, foreign or oversized line(s) skipped)\n", sum.Torn)
	}
	return err
}

// InterruptedNote is what a transcript says under a call with no result.
const InterruptedNote = "interrupted (no result: the effect may have happened)"

func printResult(w io.Writer, r sessionlog.Record) {
	d := time.Duration(r.DurationMS) * time.Millisecond
	if r.OK {
		fmt.Fprintf(w, "     ok in %s: %s\n", d, truncate(compactJSON(r.Result), 400))
	} else if r.Error != nil {
		fmt.Fprintf(w, "     FAILED in %s: %s: %s\n", d, r.Error.Code, r.Error.Message)
	} else {
		fmt.Fprintf(w, "     FAILED in %s\n", d)
	}
	if v := r.Verification; v != nil && v.Passed+v.Failed+v.Unverifiable > 0 {
		fmt.Fprintf(w, "     checks: %d passed, %d failed, %d unverifiable\n", v.Passed, v.Failed, v.Unverifiable)
		for _, line := range checkLines(v.Checks) {
			fmt.Fprintf(w, "       %s\n", line)
		}
	}
}

func printEvent(w io.Writer, r sessionlog.Record) {
	d := r.Data
	switch r.Event {
	case "bail_out":
		fmt.Fprintf(w, "  ! bail-out %s: %s\n", str(d["code"]), str(d["detail"]))
	case "escalated":
		fmt.Fprintf(w, "  ! escalated to %s (%s)\n", str(d["to"]), str(d["reason"]))
	case "salvaged":
		fmt.Fprintf(w, "  ! salvaged a %s as %s\n", str(d["code"]), str(d["macro"]))
	case "halted":
		fmt.Fprintf(w, "  ! halted on %s: %s\n", str(d["code"]), str(d["why"]))
	case "approval":
		verdict := "declined"
		if ok, _ := d["approved"].(bool); ok {
			verdict = "approved"
		}
		fmt.Fprintf(w, "  ! approval for %s: %s\n", str(d["macro"]), verdict)
	case "model_error":
		fmt.Fprintf(w, "  ! model %s failed: %s\n", str(d["model"]), str(d["message"]))
	default:
		line := "  · " + r.Event
		if len(d) > 0 {
			b, _ := json.Marshal(d)
			line += " " + truncate(string(b), 300)
		}
		if r.Text != "" {
			line += " " + truncate(r.Text, 300)
		}
		fmt.Fprintln(w, line)
	}
}

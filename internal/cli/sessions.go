package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/internal/editdist"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/urfave/cli/v2"
)

// SessionSummary is one session log, as `sessions list` shows it.
type SessionSummary struct {
	ID    string    `json:"id"`
	Path  string    `json:"path"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Binary and Command are what wrote the log (e.g. "acme", "chat").
	Binary  string `json:"binary,omitempty"`
	Command string `json:"command,omitempty"`
	Model   string `json:"model,omitempty"`
	// Turns is the highest turn number; Calls counts tool calls (macros and
	// raw tools); Failures counts calls that did not succeed.
	Turns    int `json:"turns"`
	Calls    int `json:"calls"`
	Failures int `json:"failures"`
	BailOuts int `json:"bail_outs"`
	// Torn counts lines skipped as torn writes or foreign JSON.
	Torn int `json:"torn"`
}

// Session is a whole session log, for `sessions show`.
type Session struct {
	Summary SessionSummary    `json:"summary"`
	Records []runtime.Record  `json:"records"`
	Stats   runtime.ReadStats `json:"stats"`
}

// ReadSession reads a session log, tolerating torn lines.
func ReadSession(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &Session{Records: []runtime.Record{}}
	st, err := runtime.ReadRecords(f, func(r runtime.Record) error {
		s.Records = append(s.Records, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Stats = st
	s.Summary = summarize(path, s.Records, st)
	return s, nil
}

func summarize(path string, recs []runtime.Record, st runtime.ReadStats) SessionSummary {
	sum := SessionSummary{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl"), Path: path, Torn: st.Torn + st.Foreign}
	for i, r := range recs {
		if i == 0 || r.TS.Before(sum.Start) {
			sum.Start = r.TS
		}
		if r.TS.After(sum.End) {
			sum.End = r.TS
		}
		sum.Turns = max(sum.Turns, r.Turn)
		switch r.Type {
		case runtime.RecToolCall:
			sum.Calls++
		case runtime.RecToolResult:
			if !r.OK {
				sum.Failures++
			}
		case runtime.RecSystem:
			switch r.Event {
			case "session", "run":
				sum.Binary = firstOf(sum.Binary, str(r.Data["binary"]))
				sum.Command = firstOf(sum.Command, str(r.Data["command"]), r.Event)
				sum.Model = firstOf(sum.Model, str(r.Data["model"]))
			case "bail_out":
				sum.BailOuts++
			}
		}
	}
	if len(recs) > 0 && recs[0].Session != "" {
		sum.ID = recs[0].Session
	}
	return sum
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// ListSessions summarizes every *.jsonl log in dir, oldest first. A
// missing directory has no sessions.
func ListSessions(dir string) ([]SessionSummary, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	out := []SessionSummary{}
	for _, p := range paths {
		s, err := ReadSession(p)
		if err != nil {
			return nil, err
		}
		out = append(out, s.Summary)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Start.Equal(out[j].Start) {
			return out[i].Start.Before(out[j].Start)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// FindSession resolves what a user typed to a log file: a path, an id, a
// unique id prefix, or "last" (the most recent session).
func FindSession(dir, ref string) (string, error) {
	if st, err := os.Stat(ref); err == nil && !st.IsDir() {
		return ref, nil
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	ids := make([]string, len(paths))
	for i, p := range paths {
		ids[i] = strings.TrimSuffix(filepath.Base(p), ".jsonl")
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		return "", fmt.Errorf("no sessions in %s", dir)
	}
	if ref == "last" || ref == "latest" {
		list, err := ListSessions(dir)
		if err != nil {
			return "", err
		}
		return list[len(list)-1].Path, nil
	}
	var matches []string
	for _, id := range ids {
		if id == ref {
			return filepath.Join(dir, id+".jsonl"), nil
		}
		if strings.HasPrefix(id, ref) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 1:
		return filepath.Join(dir, matches[0]+".jsonl"), nil
	case 0:
		best, bd := "", 4
		for _, id := range ids {
			if d := editdist.Distance(ref, id); d < bd {
				best, bd = id, d
			}
		}
		hint := ""
		if best != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", best)
		}
		return "", fmt.Errorf("no session %q in %s%s", ref, dir, hint)
	}
	return "", fmt.Errorf("%q matches %d sessions (%s): give more of the id", ref, len(matches), strings.Join(matches, ", "))
}

// SessionsCommand is `sessions`: list the session logs and show one as a
// readable transcript.
func SessionsCommand(cfg *Config) *cli.Command {
	dirFlag := &cli.StringFlag{Name: "dir", Aliases: []string{"session-dir"}, Value: runtime.DefaultSessionDir, Usage: "the session-log directory"}
	fmtFlag := formatFlag()
	return &cli.Command{
		Name:  "sessions",
		Usage: "list the session logs, or show one as a transcript",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "one line per session: id, start, turns, calls, failures",
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
				Flags:     []cli.Flag{dirFlag, fmtFlag},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return Usagef("sessions show needs one session id (see '%s sessions list')", cfg.Name)
					}
					return runSessionsShow(newEnv(c, cfg), c.Args().First(), SessionsOptions{Dir: c.String("dir"), Format: c.String("format")})
				},
			},
		},
	}
}

// SessionsOptions are the flags of sessions list and show.
type SessionsOptions struct {
	Dir    string
	Format string
}

// runSessionsList prints one line per session log in opts.Dir.
func runSessionsList(env *Env, opts SessionsOptions) error {
	list, err := ListSessions(opts.Dir)
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
	fmt.Fprintf(env.Stdout, "%-32s %-20s %-8s %5s %5s %8s\n", "ID", "START", "COMMAND", "TURNS", "CALLS", "FAILURES")
	for _, s := range list {
		fmt.Fprintf(env.Stdout, "%-32s %-20s %-8s %5d %5d %8d", s.ID, s.Start.UTC().Format("2006-01-02 15:04:05Z"), s.Command, s.Turns, s.Calls, s.Failures)
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
	path, err := FindSession(opts.Dir, ref)
	if err != nil {
		return Usagef("%v", err)
	}
	s, err := ReadSession(path)
	if err != nil {
		return Failf("%v", err)
	}
	if opts.Format == formatJSON {
		return writeIndented(env.Stdout, s)
	}
	PrintSession(env.Stdout, s)
	return nil
}

func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// quietEvents are system events a transcript leaves out: bookkeeping that
// `sessions show --format json` still has.
var quietEvents = map[string]bool{"catalog": true, "model_response": true, "turn_done": true, "session": true, "run": true}

// PrintSession writes a session as a transcript: per turn, the request,
// each call with its arguments, its result or error with the checks, the
// router's events (bail-outs, escalations, salvages, approvals) and the
// reply.
func PrintSession(w io.Writer, s *Session) {
	sum := s.Summary
	fmt.Fprintf(w, "session %s", sum.ID)
	if who := strings.TrimSpace(sum.Binary + " " + sum.Command); who != "" {
		fmt.Fprintf(w, " (%s", who)
		if sum.Model != "" {
			fmt.Fprintf(w, ", model %s", sum.Model)
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintf(w, ", %s, %d turn(s), %d call(s), %d failed\n", sum.Start.UTC().Format("2006-01-02 15:04:05Z"), sum.Turns, sum.Calls, sum.Failures)
	turn := -1
	for _, r := range s.Records {
		if r.Type == runtime.RecSystem && quietEvents[r.Event] {
			continue
		}
		if r.Turn != turn {
			turn = r.Turn
			if turn > 0 {
				fmt.Fprintf(w, "turn %d\n", turn)
			}
		}
		switch r.Type {
		case runtime.RecUser:
			fmt.Fprintf(w, "  user: %s\n", r.Text)
		case runtime.RecAssistant:
			fmt.Fprintf(w, "  reply: %s\n", r.Text)
		case runtime.RecToolCall:
			kind := ""
			if r.Raw {
				kind = " (raw)"
			}
			fmt.Fprintf(w, "  -> %s%s %s\n", r.Tool, kind, compactJSON(r.Args))
		case runtime.RecToolResult:
			printResult(w, r)
		case runtime.RecSystem:
			printEvent(w, r)
		}
	}
	if sum.Torn > 0 {
		fmt.Fprintf(w, "(%d torn or foreign line(s) skipped)\n", sum.Torn)
	}
}

func printResult(w io.Writer, r runtime.Record) {
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

func printEvent(w io.Writer, r runtime.Record) {
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

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/macrokit/macrokit-go/internal/editdist"
	"github.com/macrokit/macrokit-go/internal/report"
	"github.com/macrokit/macrokit-go/runtime/batch"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
)

// ReportOptions are report's flags (and sessions show --html's).
type ReportOptions struct {
	Out        string // the HTML file
	SessionDir string
	Embed      bool // screenshots inline instead of in <out>_files/
	Format     string
}

// reportFlags are the flags report and sessions show --html share.
func reportFlags(outDefault string) []cli.Flag {
	usage := "the HTML file to write"
	if outDefault == "" {
		usage += " (default: a new file in the temporary directory)"
	}
	return []cli.Flag{
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: outDefault, Usage: usage},
		&cli.BoolFlag{Name: "embed", Usage: "inline the screenshots in the HTML (default: copied into <name>_files/ beside it)"},
	}
}

// ReportCommand is `report SESSION|BATCH|last`: one self-contained HTML
// file of a session's calls, steps and checks, or of a batch's rows.
func ReportCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "an HTML report of a session or a batch: calls -> steps -> checks with their evidence, the rows with filters and search; offline, one file (docs/report.md)",
		ArgsUsage: "<session id | id prefix | last | path | batch id (b-...)>",
		Flags: append(reportFlags("report.html"),
			&cli.StringFlag{Name: "session-dir", Value: sessionlog.DefaultDir, Usage: "the session-log directory"},
			formatFlag()),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return Usagef("report needs one session or batch id (see '%s sessions list'), or last", cfg.Name)
			}
			if c.String("format") == formatJSON && c.IsSet("out") {
				return Usagef("--format json prints the report's data to stdout: drop -o")
			}
			return runReport(newEnv(c, cfg), c.Args().First(), ReportOptions{Out: c.String("out"), SessionDir: c.String("session-dir"),
				Embed: c.Bool("embed"), Format: c.String("format")})
		},
	}
}

// runReport writes the report of ref (a batch id, or what sessions show
// takes) to o.Out and prints its path, or prints its model as JSON.
func runReport(env *Env, ref string, o ReportOptions) error {
	rep, err := buildReport(env.Config, ref, o.SessionDir)
	if err != nil {
		return err
	}
	if o.Format == formatJSON {
		return writeIndented(env.Stdout, rep)
	}
	return writeReport(env, rep, o)
}

// writeReport renders rep into o.Out (a temporary file when empty) and
// prints the file's path.
func writeReport(env *Env, rep *report.Report, o ReportOptions) error {
	out := o.Out
	if out == "" {
		dir, err := os.MkdirTemp("", "macrokit-report-")
		if err != nil {
			return Failf("report: %v", err)
		}
		// One file to open or send: the screenshots go inside it.
		out, o.Embed = filepath.Join(dir, "report.html"), true
	}
	if err := report.Write(rep, out, report.Options{Embed: o.Embed}); err != nil {
		return Failf("report: %v", err)
	}
	fmt.Fprintln(env.Stdout, out)
	return nil
}

// buildReport resolves ref: a batch id (b-..., or a unique prefix of
// one, or any name a batch directory has), else a session as sessions
// show resolves it. An unknown id is a usage error with a "did you mean".
func buildReport(cfg *Config, ref, sessionDir string) (*report.Report, error) {
	ids := batchIDs(cfg)
	if id, ok := resolveBatch(ids, ref); ok {
		return batchReport(cfg, id, sessionDir)
	}
	if strings.HasPrefix(ref, "b-") {
		msg := fmt.Sprintf("no batch %q in %s", ref, filepath.Join(stateDir(cfg), "batches"))
		if best := editdist.Closest(ref, ids, 4); best != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", best)
		}
		return nil, Usagef("%s", msg)
	}
	path, err := sessionlog.Find(sessionDir, ref)
	if err != nil {
		if best := editdist.Closest(ref, ids, 3); best != "" {
			return nil, Usagef("%v; or the batch %q?", err, best)
		}
		return nil, Usagef("%v", err)
	}
	rep, err := report.FromSession(path)
	if err != nil {
		return nil, Failf("report: %v", err)
	}
	return rep, nil
}

// batchIDs are the batches of the deployment's state directory.
func batchIDs(cfg *Config) []string {
	ents, _ := os.ReadDir(filepath.Join(stateDir(cfg), "batches"))
	var ids []string
	for _, e := range ents {
		if e.IsDir() {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids
}

// resolveBatch finds ref among the batch ids: itself, or the one id it is
// a prefix of (a prefix at least "b-" and a character long).
func resolveBatch(ids []string, ref string) (string, bool) {
	if slices.Contains(ids, ref) {
		return ref, true
	}
	if !strings.HasPrefix(ref, "b-") || len(ref) < 3 {
		return "", false
	}
	var match []string
	for _, id := range ids {
		if strings.HasPrefix(id, ref) {
			match = append(match, id)
		}
	}
	if len(match) == 1 {
		return match[0], true
	}
	return "", false
}

// batchReport reads a batch's batch.json and its rows — report.jsonl, or
// the journal when the last run did not get to write it — into the report.
func batchReport(cfg *Config, id, sessionDir string) (*report.Report, error) {
	dir := batchDir(cfg, id)
	meta, err := ReadBatchMeta(dir)
	if errors.Is(err, fs.ErrNotExist) {
		meta = &BatchMeta{ID: id} // a batch run without a session log
	} else if err != nil {
		return nil, Failf("report: %v", err)
	}
	rows, note, err := batchRows(dir)
	if err != nil {
		return nil, Failf("report: %v", err)
	}
	src := report.BatchSource{ID: id, Macro: meta.Macro, Input: meta.Input, SessionDir: meta.SessionDir, Sessions: meta.Sessions}
	if src.SessionDir == "" {
		src.SessionDir = sessionDir
	}
	for _, r := range rows {
		if r.Session != "" && !slices.Contains(src.Sessions, r.Session) {
			src.Sessions = append(src.Sessions, r.Session)
		}
		src.Rows = append(src.Rows, reportRow(r))
	}
	rep, err := report.FromBatch(src)
	if err != nil {
		return nil, Failf("report: %v", err)
	}
	if note != "" {
		rep.Notes = append([]string{note}, rep.Notes...)
	}
	return rep, nil
}

// batchRows are a batch's rows in line order: report.jsonl's, unless the
// journal is newer (a run that stopped before its report: crashed or
// killed), whose rows then win, with a note saying so.
func batchRows(dir string) ([]batchRow, string, error) {
	rpath, jpath := filepath.Join(dir, "report.jsonl"), filepath.Join(dir, "journal.jsonl")
	rows, err := readReportRows(rpath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, "", err
	}
	rst, rerr := os.Stat(rpath)
	jst, jerr := os.Stat(jpath)
	if jerr != nil || (rerr == nil && !jst.ModTime().After(rst.ModTime())) {
		return rows, "", nil
	}
	state, err := batch.ReadJournal(jpath)
	if err != nil {
		return nil, "", err
	}
	byKey := map[string]int{}
	for i, r := range rows {
		byKey[r.Key] = i
	}
	for key, e := range state {
		r := batchRow{Line: e.Line, Key: key, Status: e.Status, CallID: e.CallID, Session: e.Session, Result: e.Result, Error: e.Error, Failed: e.Failed, Note: e.Note, Worker: e.Worker}
		if i, ok := byKey[key]; ok {
			rows[i] = r
		} else {
			rows = append(rows, r)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Line < rows[j].Line })
	return rows, "the batch's last run has no delivery report (it did not finish): the rows are its journal's", nil
}

func readReportRows(path string) ([]batchRow, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rows []batchRow
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r batchRow
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func reportRow(r batchRow) report.Row {
	out := report.Row{Line: r.Line, Key: r.Key, Status: string(r.Status), CallID: r.CallID, Session: r.Session}
	if len(r.Result) > 0 {
		out.Result = string(r.Result)
	}
	if r.Error != nil {
		out.Error = &report.Error{Code: r.Error.Code, Message: r.Error.Message}
	}
	for _, c := range r.Failed {
		out.Failed = append(out.Failed, report.Check{Step: c.Step, Kind: c.Kind, Status: "failed", Expected: c.Expected, Actual: c.Actual})
	}
	return out
}

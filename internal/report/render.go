package report

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/internal/atomicfile"
)

var (
	//go:embed assets/report.html.tmpl
	pageTemplate string
	//go:embed assets/report.css
	pageCSS string
	//go:embed assets/report.js
	pageJS string
)

// csp forbids every fetch but the report's own images (data: URIs, or
// files beside it) and runs only the report's script (by its hash), so
// even a value that escaped escaping could neither load nor run anything.
var csp = func() string {
	sum := sha256.Sum256([]byte(pageJS))
	return "default-src 'none'; img-src data: file: 'self'; style-src 'unsafe-inline'; script-src 'sha256-" +
		base64.StdEncoding.EncodeToString(sum[:]) + "'; base-uri 'none'; form-action 'none'"
}()

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"ms":       formatMS,
	"grow":     func(ms int64) int64 { return max(ms, 1) },
	"add1":     func(i int) int { return i + 1 },
	"pct":      func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"ts":       func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
	"openStep": openStep,
	"join":     strings.Join,
}).Parse(pageTemplate))

// Options are how [Write] renders a report.
type Options struct {
	// Embed inlines the screenshots as data: URIs (one file); otherwise
	// they are copied into <name>_files/ beside the output and referenced
	// by relative paths.
	Embed bool
}

// Write renders rep into the file out (replaced whole) with its
// screenshots as opts says. A screenshot that is missing, or not a PNG, is
// named in the report instead of shown.
func Write(rep *Report, out string, opts Options) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	files := strings.TrimSuffix(filepath.Base(out), filepath.Ext(out)) + "_files"
	if err := resolveShots(rep, filepath.Join(filepath.Dir(out), files), files, opts.Embed); err != nil {
		return err
	}
	return atomicfile.Write(out, 0o600, func(w io.Writer) error { return Render(w, rep) })
}

// page is the template's data.
type page struct {
	*Report
	CSP       string
	CSS       template.CSS
	JS        template.JS
	Generated time.Time
	Filters   []filter
	Shown     int
}

// filter is one status filter button.
type filter struct {
	Status, Label string
	Count         int
}

// Render writes rep as HTML, its screenshots as [Write] resolved them
// (none when it did not run).
func Render(w io.Writer, rep *Report) error {
	p := page{Report: rep, CSP: csp, CSS: template.CSS(pageCSS), JS: template.JS(pageJS), Generated: time.Now()}
	p.Filters, p.Shown = filters(rep)
	return tmpl.Execute(w, p)
}

// filters are the status buttons: the rows' statuses for a batch, the
// calls' for a session; Shown is how many items "all" shows.
func filters(rep *Report) ([]filter, int) {
	if b := rep.Batch; b != nil {
		c := b.Counts
		fs := []filter{{"all", "all", c.Total}, {RowFailed, "failed", c.Failed}, {RowUncertain, "uncertain", c.Uncertain},
			{RowUnverified, "unverified", c.Unverified}, {RowOK, "ok", c.OK}}
		if c.Skipped > 0 {
			fs = append(fs, filter{RowSkipped, "skipped", c.Skipped})
		}
		if c.NotRun > 0 {
			fs = append(fs, filter{RowNotRun, "not run", c.NotRun})
		}
		return fs, c.Total
	}
	n := map[string]int{}
	items := 0
	for _, s := range rep.Sessions {
		for _, it := range s.Items {
			items++
			if it.Call != nil {
				n[it.Call.Status]++
			}
		}
	}
	return []filter{{"all", "all", items}, {CallFailed, "failed", n[CallFailed]}, {CallUnverified, "unverified", n[CallUnverified]},
		{CallInterrupted, "interrupted", n[CallInterrupted]}, {CallPassed, "passed", n[CallPassed]}}, items
}

// openStep says whether a step starts unfolded: when it or a check of it
// did not pass.
func openStep(s Step) bool {
	if s.Status != "passed" {
		return true
	}
	for _, c := range s.Checks {
		if c.Status != "passed" {
			return true
		}
	}
	return false
}

func formatMS(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	}
	return (time.Duration(ms) * time.Millisecond).Round(time.Second).String()
}

// pngMagic starts every PNG file.
var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// resolveShots sets every screenshot's Src: a data: URI (embed), or a copy
// in dir referenced as rel/<its path>. Only PNG files at local paths are
// read; the others keep an empty Src.
func resolveShots(rep *Report, dir, rel string, embed bool) error {
	for si := range rep.Sessions {
		s := &rep.Sessions[si]
		for _, it := range s.Items {
			if it.Call == nil {
				continue
			}
			for i := range it.Call.Steps {
				st := &it.Call.Steps[i]
				for _, sh := range []*Shot{st.Before, st.After} {
					if sh == nil || sh.file == "" {
						continue
					}
					b, err := os.ReadFile(sh.file)
					if err != nil || !bytes.HasPrefix(b, pngMagic) {
						continue
					}
					if embed {
						sh.Src = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b))
						continue
					}
					// The log's directory name keeps two session dirs'
					// shots apart; the path below it is the log's.
					local := filepath.Join(filepath.Base(filepath.Dir(s.Path)), filepath.FromSlash(sh.Path))
					dst := filepath.Join(dir, local)
					if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
						return fmt.Errorf("report: %w", err)
					}
					if err := os.WriteFile(dst, b, 0o600); err != nil {
						return fmt.Errorf("report: copying a screenshot: %w", err)
					}
					sh.Src = template.URL(escapePath(filepath.ToSlash(filepath.Join(rel, local))))
				}
			}
		}
	}
	return nil
}

// escapePath percent-escapes each segment of a slash path for a URL.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

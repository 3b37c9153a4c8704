package gate

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// DefaultThreshold is how many raw calls in one user turn make a finding.
const DefaultThreshold = 3

// Defaults for Options' bounds.
const (
	DefaultMaxLineBytes = 4 << 20  // longer lines are skipped and counted as oversized
	DefaultMaxSamples   = 32       // occurrences per group kept for alignment and examples
	DefaultMaxFindings  = 10000    // findings listed in a report (the rest are counted)
	DefaultMaxTurnBytes = 32 << 20 // raw-call bytes kept per turn before it is marked truncated
	maxCallsPerTurn     = 1000     // raw calls kept per turn
)

// EnvBase is a base URL the runtime knows as {{ env.Name }}: URLs in the
// logs that start with it are written as that template.
type EnvBase struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Options configure a Scanner. The zero value uses the defaults.
type Options struct {
	// Threshold is the number of raw calls in one user turn that makes a
	// finding (default DefaultThreshold).
	Threshold int
	// Env are the base URLs to write as {{ env.NAME }} (e.g. DEMO_URL).
	Env []EnvBase
	// Existing are the macros already written (ReadMacros): a workflow one
	// of them covers gets no suggestion, and suggested names avoid theirs.
	Existing *Macros
	// SchemaRef is the path written in the yaml-language-server line of
	// each suggested spec (default "../docs/macrokit.schema.json").
	SchemaRef string
	// MaxLineBytes bounds a log line (default DefaultMaxLineBytes).
	MaxLineBytes int
	// MaxSamples bounds the occurrences per group kept for inference
	// (default DefaultMaxSamples); counts and value statistics cover all.
	MaxSamples int
	// MaxFindings bounds the findings listed (default DefaultMaxFindings).
	MaxFindings int
	// MaxTurnBytes bounds the raw-call bytes kept for one turn (default
	// DefaultMaxTurnBytes); a longer turn is still a finding, without a
	// suggestion.
	MaxTurnBytes int
}

func (o Options) withDefaults() Options {
	if o.Threshold <= 0 {
		o.Threshold = DefaultThreshold
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.MaxSamples <= 0 {
		o.MaxSamples = DefaultMaxSamples
	}
	if o.MaxFindings <= 0 {
		o.MaxFindings = DefaultMaxFindings
	}
	if o.MaxTurnBytes <= 0 {
		o.MaxTurnBytes = DefaultMaxTurnBytes
	}
	if o.SchemaRef == "" {
		o.SchemaRef = "../docs/macrokit.schema.json"
	}
	return o
}

// Stats counts what the reader saw and skipped.
type Stats struct {
	Files      int   `json:"files"`
	Bytes      int64 `json:"bytes"`
	Lines      int   `json:"lines"`     // non-blank lines
	Records    int   `json:"records"`   // session records (any type)
	Torn       int   `json:"torn"`      // lines that are not valid JSON (a torn write)
	Foreign    int   `json:"foreign"`   // valid JSON that is not a v1 session record
	Oversized  int   `json:"oversized"` // lines longer than MaxLineBytes, skipped unread
	Sessions   int   `json:"sessions"`
	Turns      int   `json:"turns"`
	RawCalls   int   `json:"raw_calls"`
	MacroCalls int   `json:"macro_calls"`
	Findings   int   `json:"findings"` // all of them, listed or not

	// Interrupted counts raw calls with no result (a killed process):
	// never taken as successes.
	Interrupted int `json:"interrupted"`
}

// Call is one raw call of a finding, summarised.
type Call struct {
	Tool   string `json:"tool"`
	Target string `json:"target,omitempty"` // compact: button "Save", label "Email"
	Detail string `json:"detail,omitempty"` // the URL, value, option or key
	OK     bool   `json:"ok"`
}

// String renders the call on one line.
func (c Call) String() string {
	s := c.Tool
	if c.Target != "" {
		s += " " + c.Target
	}
	if c.Detail != "" {
		s += " " + c.Detail
	}
	if !c.OK {
		s += " (failed)"
	}
	return s
}

// Finding is one user turn with Threshold or more raw calls.
type Finding struct {
	File     string   `json:"file"`
	Session  string   `json:"session"`
	Turn     int64    `json:"turn"`
	Request  string   `json:"request"`
	RawCalls int      `json:"raw_calls"`
	Calls    []Call   `json:"calls"`
	Macros   []string `json:"macros,omitempty"` // macro calls in the same turn
	// Suggestion is the name of the spec suggested for this turn's
	// workflow; CoveredBy the existing macro that already does it.
	Suggestion string `json:"suggestion,omitempty"`
	CoveredBy  string `json:"covered_by,omitempty"`
	// Reason says why the turn gives no suggestion, when it does not.
	Reason string `json:"reason,omitempty"`
}

// Param is a parameter of a suggested spec.
type Param struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Format   string   `json:"format,omitempty"`
	Pattern  string   `json:"pattern,omitempty"`
	Enum     []string `json:"enum,omitempty"`
	Secret   bool     `json:"secret,omitempty"`
	Required bool     `json:"required"`
	From     string   `json:"from"` // where the value goes: `fill {label: Email}`, `goto path`, ...
}

// Occurrence points at one finding of a group.
type Occurrence struct {
	Session string `json:"session"`
	Turn    int64  `json:"turn"`
	Request string `json:"request"`
}

// Group is one workflow seen in one or more findings.
type Group struct {
	Name        string       `json:"name"`
	Shape       []string     `json:"shape"` // one line per step: kind and target
	Count       int          `json:"occurrences"`
	Sessions    int          `json:"sessions"`
	Occurrences []Occurrence `json:"samples"` // the kept occurrences (at most MaxSamples)
	Risk        string       `json:"risk,omitempty"`
	Params      []Param      `json:"params,omitempty"`
	Notes       []string     `json:"review_notes,omitempty"`
	// CoveredBy names an existing macro that already does this workflow;
	// then there is no suggestion.
	CoveredBy string `json:"covered_by,omitempty"`
	// Reason says why there is no suggestion, when there is none and no
	// macro covers it.
	Reason string `json:"reason,omitempty"`
	// File is the suggested spec's file name (name.yaml), and Path where
	// WriteSpecs put it.
	File string `json:"file,omitempty"`
	Path string `json:"path,omitempty"`
	// YAML is the suggested spec.
	YAML string `json:"yaml,omitempty"`
}

// Report is the result of a scan.
type Report struct {
	Threshold int       `json:"threshold"`
	Stats     Stats     `json:"stats"`
	Findings  []Finding `json:"findings"`
	Groups    []Group   `json:"groups"`
	// Omitted counts findings beyond MaxFindings (grouped, not listed).
	Omitted int `json:"omitted_findings,omitempty"`
	// Warnings are problems that did not stop the scan (unreadable
	// existing specs, ...).
	Warnings []string `json:"warnings,omitempty"`
}

// InputError is an unreadable path or stream (exit 2 for the CLI).
type InputError struct {
	Path string
	Err  error
}

// Error returns "path: cause".
func (e *InputError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *InputError) Unwrap() error { return e.Err }

// ErrNoLogs is wrapped by the InputError of a path that holds no *.jsonl
// file.
var ErrNoLogs = errors.New("no session logs (*.jsonl)")

// WriteText prints the report for people: one block per finding, then the
// groups and their suggestions, then what the reader skipped.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		req := f.Request
		if req == "" {
			req = "(no user request)"
		}
		fmt.Fprintf(&b, "%s turn %d: %d raw call(s) for %q\n", f.Session, f.Turn, f.RawCalls, req)
		for i, c := range f.Calls {
			fmt.Fprintf(&b, "  %2d. %s\n", i+1, c)
		}
		if len(f.Macros) > 0 {
			fmt.Fprintf(&b, "  also called macro(s): %s\n", strings.Join(f.Macros, ", "))
		}
		switch {
		case f.Suggestion != "":
			fmt.Fprintf(&b, "  -> suggested %s\n", f.Suggestion)
		case f.CoveredBy != "":
			fmt.Fprintf(&b, "  -> covered by existing macro %s\n", f.CoveredBy)
		case f.Reason != "":
			fmt.Fprintf(&b, "  -> no suggestion: %s\n", f.Reason)
		}
	}
	if r.Omitted > 0 {
		fmt.Fprintf(&b, "... and %d more finding(s), grouped below but not listed\n", r.Omitted)
	}
	if len(r.Groups) > 0 {
		b.WriteString("\n")
	}
	for _, g := range r.Groups {
		switch {
		case g.CoveredBy != "":
			fmt.Fprintf(&b, "workflow covered by existing macro %s: %d occurrence(s) in %d session(s)\n", g.CoveredBy, g.Count, g.Sessions)
		case g.YAML == "":
			fmt.Fprintf(&b, "workflow without suggestion: %d occurrence(s) in %d session(s): %s\n", g.Count, g.Sessions, g.Reason)
		default:
			where := g.File
			if g.Path != "" {
				where = "wrote " + g.Path
			}
			fmt.Fprintf(&b, "suggested %s (risk %s): %d occurrence(s) in %d session(s); %s\n", g.Name, g.Risk, g.Count, g.Sessions, where)
			for _, p := range g.Params {
				fmt.Fprintf(&b, "  param %s\n", p.describe())
			}
			for _, n := range g.Notes {
				fmt.Fprintf(&b, "  review: %s\n", n)
			}
		}
		for i, s := range g.Shape {
			fmt.Fprintf(&b, "  %2d. %s\n", i+1, s)
		}
	}
	st := r.Stats
	fmt.Fprintf(&b, "\n%d finding(s) (threshold %d raw calls per turn) in %d turn(s) of %d session(s); %d file(s), %d line(s): %d torn, %d foreign, %d oversized skipped\n",
		st.Findings, r.Threshold, st.Turns, st.Sessions, st.Files, st.Lines, st.Torn, st.Foreign, st.Oversized)
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (p Param) describe() string {
	var parts []string
	t := p.Type
	if p.Format != "" {
		t += ", format " + p.Format
	}
	if p.Pattern != "" {
		t += ", pattern " + p.Pattern
	}
	if len(p.Enum) > 0 {
		t += ", enum " + strings.Join(p.Enum, "|")
	}
	if p.Secret {
		t += ", secret"
	}
	if !p.Required {
		t += ", optional"
	}
	parts = append(parts, p.Name+" ("+t+")")
	if p.From != "" {
		parts = append(parts, "from "+p.From)
	}
	return strings.Join(parts, " ")
}

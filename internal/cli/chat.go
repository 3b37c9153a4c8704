package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/approval"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/macrokit/macrokit-go/runtime/route/catalog"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
)

// routerFlags are the flags of the routed commands (ask, chat).
func routerFlags() []cli.Flag {
	fs := []cli.Flag{
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "approve dangerous macros and calls recovered from a model's text without asking"},
		&cli.DurationFlag{Name: "timeout", Value: 2 * time.Minute, Usage: "bound for one macro run"},
		&cli.StringFlag{Name: "session-dir", Value: sessionlog.DefaultDir, Usage: "where the session log goes (empty: no log)"},
		&cli.IntFlag{Name: "top-k", Value: catalog.DefaultK, Usage: "macros offered per turn when the registry is larger than --catalog-threshold"},
		&cli.IntFlag{Name: "catalog-threshold", Value: catalog.DefaultThreshold, Usage: "registry size above which only the top-k relevant macros are offered"},
		&cli.BoolFlag{Name: "dry-run", Usage: "route and validate, but run no macro"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print every step's evidence"},
		&cli.BoolFlag{Name: "explore", Usage: "offer raw page and HTTP tools next to the macros; each turn runs until the model answers (see docs/explore.md)"},
		&cli.StringFlag{Name: "explore-url", Usage: "the site explore mode works on: paths in page_goto and http_request resolve against it"},
		&cli.IntFlag{Name: "max-explore-steps", Value: route.DefaultMaxExploreSteps, Usage: "calls per explore turn before it stops"},
	}
	fs = append(fs, ModelFlags()...)
	return append(append(fs, IdentityFlag()), BrowserFlags()...)
}

// RouterOptions are the routed commands' flags (routerFlags).
type RouterOptions struct {
	Yes              bool
	Timeout          time.Duration
	SessionDir       string
	TopK             int
	CatalogThreshold int
	DryRun           bool
	Verbose          bool
	Explore          bool
	ExploreURL       string
	MaxExploreSteps  int
	Models           ModelOptions
	Browser          engine.Options
	Identity         string // --identity
}

// routerOptions decodes routerFlags.
func routerOptions(c *cli.Context) RouterOptions {
	return RouterOptions{Yes: c.Bool("yes"), Timeout: c.Duration("timeout"), SessionDir: c.String("session-dir"),
		TopK: c.Int("top-k"), CatalogThreshold: c.Int("catalog-threshold"), DryRun: c.Bool("dry-run"), Verbose: c.Bool("verbose"),
		Explore: c.Bool("explore"), ExploreURL: c.String("explore-url"), MaxExploreSteps: c.Int("max-explore-steps"),
		Models: modelOptions(c), Browser: browserOptions(c), Identity: c.String("identity")}
}

// session is what a routed command sets up: models, browser, log, router.
type session struct {
	router *route.Router
	models *Models
	lb     *LazyBrowser
	log    *sessionlog.Writer
}

func (s *session) close() {
	if s.lb != nil {
		s.lb.Close()
	}
	if s.log != nil {
		_ = s.log.Close()
	}
	if s.models != nil {
		_ = s.models.Close()
	}
}

// newSession sets up the session of command (its name goes in the log).
func newSession(cfg *Config, command string, o RouterOptions, approver runtime.Approver) (*session, error) {
	ms, err := NewModels(cfg, o.Models)
	if err != nil {
		return nil, err
	}
	id, err := callIdentity(cfg, o.Identity)
	if err != nil {
		_ = ms.Close()
		return nil, err
	}
	s := &session{models: ms, lb: NewLazyBrowser(o.Browser)}
	d := &runtime.Dispatcher{Registry: cfg.Registry, Pages: s.lb.Pages, Getenv: cfg.getenv, Primitives: cfg.Primitives,
		Approver: approver, Timeout: o.Timeout, HTTPClient: ms.HTTPClient, Sites: cfg.SitePolicy(), Identity: id}
	if dir := o.SessionDir; dir != "" {
		log, err := sessionlog.Open(dir, sessionlog.NewID())
		if err != nil {
			s.close()
			return nil, Failf("%v", err)
		}
		s.log, d.Log = log, log
		_ = log.Append(sessionlog.Record{Type: sessionlog.RecSystem, Event: "session", Data: map[string]any{"binary": cfg.Name, "command": command, "model": ms.Primary.Name()}})
	}
	s.router = &route.Router{Registry: cfg.Registry, Dispatcher: d, Model: ms.Primary, Fallback: ms.Fallback, SalvageApprover: approver,
		Retrieval: route.RetrievalOptions{TopK: o.TopK, Threshold: o.CatalogThreshold}, Eval: route.EvalOptions{DryRun: o.DryRun},
		Explore: route.ExploreOptions{Enabled: o.Explore, URL: o.ExploreURL, MaxSteps: o.MaxExploreSteps}}
	return s, nil
}

// AskCommand is `ask "..."`: one routed turn.
func AskCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:      "ask",
		Usage:     "route one request through the model to a macro, run it, and print the verified result",
		ArgsUsage: `"<request>"`,
		Flags:     append([]cli.Flag{formatFlag()}, routerFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return Usagef(`ask needs a request, e.g. %s ask "find ada"`, cfg.Name)
			}
			opts := AskOptions{Request: strings.Join(c.Args().Slice(), " "), Format: c.String("format"), Router: routerOptions(c)}
			return runAsk(c.Context, newEnv(c, cfg), opts)
		},
	}
}

// AskOptions are ask's request (its arguments joined) and flags.
type AskOptions struct {
	Request string
	Format  string
	Router  RouterOptions
}

// runAsk routes one request and prints the turn.
func runAsk(ctx context.Context, env *Env, opts AskOptions) error {
	mem, err := callApprovals(env.Config)
	if err != nil {
		return err
	}
	s, err := newSession(env.Config, "ask", opts.Router, Approver(opts.Router.Yes, env.Stdin, env.Stderr, mem))
	if err != nil {
		return err
	}
	defer s.close()
	conv := s.router.NewConversation()
	defer conv.Close() // before the session's browser closes
	res, err := conv.Turn(ctx, opts.Request)
	if res == nil {
		return Failf("%v", err)
	}
	if opts.Format == formatJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(turnJSON(res)); err != nil {
			return err
		}
	} else {
		PrintTurn(env.Stdout, res, opts.Router.Verbose)
	}
	return turnExit(res)
}

// turnExit maps a turn to the exit code: 0 for a reply or a macro whose
// checks passed, 1 for anything that did not do what was asked (a
// question back about which of two requests to run included), 3 for a
// macro that ran with an effect unchecked (verdict unverified).
func turnExit(res *route.TurnResult) error {
	switch {
	case res.Decision == route.DecisionFailed, res.Decision == route.DecisionBailedOut, res.Decision == route.DecisionStepCap,
		res.Decision == route.DecisionAsked:
		return Silent
	case res.Outcome != nil && !res.Outcome.OK:
		return Silent
	case res.Outcome != nil:
		return verdictExit(res.Outcome.Verdict)
	}
	return nil
}

// turnJSON is the --format json shape of a turn (errors as strings).
func turnJSON(res *route.TurnResult) any {
	type out struct {
		*route.TurnResult
		Error string `json:"error,omitempty"`
	}
	o := out{TurnResult: res}
	if res.Err != nil {
		o.Error = res.Err.Error()
	}
	return o
}

// PrintTurn prints a routed turn: the macro and its arguments, the result
// with its verification counts (every check with -v), bail-outs, and the
// reply.
func PrintTurn(w io.Writer, res *route.TurnResult, verbose bool) {
	for _, b := range res.BailOuts {
		fmt.Fprintf(w, "  ! %s: %s\n", b.Code, b.Detail)
	}
	if res.Escalated {
		fmt.Fprintf(w, "  ! escalated to %s\n", res.Model)
	}
	if res.Explore {
		for _, call := range res.Calls {
			printCall(w, call, verbose)
		}
	} else if res.Macro != "" && res.Outcome != nil {
		tag := ""
		if res.Decision == route.DecisionSalvaged {
			tag = " (salvaged)"
		}
		fmt.Fprintf(w, "  -> %s %s%s\n", res.Macro, compactJSON(res.Args), tag)
		for _, r := range res.Repairs {
			fmt.Fprintf(w, "     repaired %s\n", r)
		}
		o := res.Outcome
		if verbose {
			PrintOutcome(w, o)
		} else if o.OK {
			fmt.Fprintf(w, "     result %s\n", truncate(compactJSON(o.Result), 400))
		}
		v := o.Verification
		fmt.Fprintf(w, "     checks: %d passed, %d failed, %d unverifiable\n", v.Passed, v.Failed, v.Unverifiable)
		if o.OK && o.Verdict == sessionlog.VerdictUnverified {
			fmt.Fprintf(w, "     %s\n", unverifiedWhy(v.Unchecked))
		}
		if !verbose {
			for _, ch := range checkLines(v.Checks) {
				fmt.Fprintf(w, "       %s\n", ch)
			}
		}
	}
	if res.Reply != "" {
		fmt.Fprintln(w, res.Reply)
	}
}

// printCall prints one call of an explore turn on two lines: the call,
// then what it did (value read back, requests, texts that appeared, list
// change, URL) or why it failed.
func printCall(w io.Writer, call route.TurnCall, verbose bool) {
	fmt.Fprintf(w, "  -> %s %s\n", call.Name, truncate(compactJSON(call.Args), 300))
	if !call.OK {
		msg := "failed"
		if call.Error != nil {
			msg = "failed: " + call.Error.Error()
		}
		fmt.Fprintf(w, "     %s\n", truncate(msg, 400))
		return
	}
	var r struct {
		URL      string          `json:"url"`
		Title    string          `json:"title"`
		Menu     string          `json:"menu"`
		Value    json.RawMessage `json:"value"`
		Values   []any           `json:"values"`
		Count    *int            `json:"count"`
		Status   int             `json:"status"`
		Method   string          `json:"method"`
		Requests []struct {
			Method string `json:"method"`
			URL    string `json:"url"`
			Status int    `json:"status"`
			Failed string `json:"failed"`
		} `json:"requests"`
		Appeared   []string `json:"appeared"`
		CountDelta *struct {
			Target map[string]any `json:"target"`
			Before int            `json:"before"`
			After  int            `json:"after"`
		} `json:"count_delta"`
	}
	if !call.Raw || json.Unmarshal(call.Result, &r) != nil {
		fmt.Fprintf(w, "     ok %s\n", truncate(compactJSON(call.Result), 300))
		return
	}
	var parts []string
	if len(r.Value) > 0 {
		parts = append(parts, "value "+truncate(string(r.Value), 120))
	}
	if r.Count != nil {
		parts = append(parts, fmt.Sprintf("count %d", *r.Count))
	}
	if r.Values != nil {
		b, _ := json.Marshal(r.Values)
		parts = append(parts, "values "+truncate(string(b), 200))
	}
	if r.Status != 0 {
		parts = append(parts, fmt.Sprintf("HTTP %d", r.Status))
	}
	if r.Menu != "" {
		parts = append(parts, fmt.Sprintf("%d line(s) of menu", strings.Count(r.Menu, "\n")))
	}
	for _, q := range r.Requests {
		st := fmt.Sprint(q.Status)
		if q.Failed != "" {
			st = q.Failed
		}
		parts = append(parts, q.Method+" "+shortURL(q.URL, r.URL)+" "+st)
	}
	if len(r.Appeared) > 0 {
		b, _ := json.Marshal(r.Appeared)
		parts = append(parts, "appeared "+truncate(string(b), 200))
	}
	if d := r.CountDelta; d != nil {
		b, _ := json.Marshal(d.Target)
		parts = append(parts, fmt.Sprintf("%s %d→%d", b, d.Before, d.After))
	}
	if r.URL != "" && r.Method == "" {
		parts = append(parts, "at "+r.URL)
	}
	fmt.Fprintf(w, "     ok · %s\n", strings.Join(parts, " · "))
	if verbose && r.Menu != "" {
		for _, l := range strings.Split(strings.TrimRight(r.Menu, "\n"), "\n") {
			fmt.Fprintf(w, "       %s\n", l)
		}
	}
}

// shortURL drops the scheme and host of u when they are the page's.
func shortURL(u, page string) string {
	pu, err1 := url.Parse(u)
	pp, err2 := url.Parse(page)
	if err1 != nil || err2 != nil || pu.Host != pp.Host || pu.Scheme != pp.Scheme {
		return u
	}
	return pu.RequestURI()
}

func checkLines(checks any) []string {
	list, _ := checks.([]any)
	var out []string
	for _, c := range list {
		m, _ := c.(map[string]any)
		if m == nil {
			continue
		}
		line := fmt.Sprintf("%v %v %v", m["status"], m["kind"], m["step"])
		if m["status"] != "passed" {
			line += fmt.Sprintf(" (expected %v, actual %v)", m["expected"], m["actual"])
		}
		out = append(out, line)
	}
	return out
}

func compactJSON(b json.RawMessage) string {
	if len(b) == 0 {
		return "{}"
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ChatCommand is `chat`: a REPL of routed turns sharing one conversation,
// one browser and one session log.
func ChatCommand(cfg *Config) *cli.Command {
	return &cli.Command{
		Name:  "chat",
		Usage: "talk to the router: each line is one turn (/quit or EOF ends)",
		Flags: routerFlags(),
		Action: func(c *cli.Context) error {
			if err := noArgs(c, 0); err != nil {
				return err
			}
			return runChat(c.Context, newEnv(c, cfg), routerOptions(c))
		},
	}
}

// runChat reads turns from env.Stdin until /quit or EOF.
func runChat(ctx context.Context, env *Env, opts RouterOptions) error {
	in := bufio.NewReader(env.Stdin)
	tty := isTerminal(env.Stdin)
	mem, err := callApprovals(env.Config)
	if err != nil {
		return err
	}
	approver := lineApprover(opts.Yes, tty, in, env.Stderr, mem)
	s, err := newSession(env.Config, "chat", opts, approver)
	if err != nil {
		return err
	}
	defer s.close()
	conv := s.router.NewConversation()
	defer conv.Close() // before the session's browser closes
	mode := ""
	if s.router.Explore.Enabled {
		mode = ", explore mode (raw page tools)"
	}
	fmt.Fprintf(env.Stderr, "%s chat — %s, %d macros%s. /quit to leave.\n", env.Name, describeModels(s.models), env.Registry.Len(), mode)
	failed := false
	for {
		if tty {
			fmt.Fprint(env.Stderr, "> ")
		}
		line, err := in.ReadString('\n')
		text := strings.TrimSpace(line)
		if text == "/quit" || text == "/exit" {
			break
		}
		if text != "" {
			res, _ := conv.Turn(ctx, text)
			if res != nil {
				if !tty {
					fmt.Fprintf(env.Stdout, "> %s\n", res.Request) // as typed, secrets redacted
				}
				PrintTurn(env.Stdout, res, opts.Verbose)
				failed = failed || turnExit(res) != nil
			}
		}
		if err != nil || ctx.Err() != nil {
			break
		}
	}
	if s.log != nil {
		fmt.Fprintf(env.Stderr, "session log: %s\n", s.log.Path())
	}
	if failed && !tty {
		return Silent
	}
	return nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// lineApprover asks on the chat's own line reader, so an approval answer
// is never mistaken for the next request (and vice versa); the
// remembered decisions (mem) come first, as for Approver.
func lineApprover(yes, tty bool, in *bufio.Reader, stderr io.Writer, mem *approval.Memory) runtime.Approver {
	if yes {
		return mem.Gate(yesApprover())
	}
	if !tty {
		if mem == nil {
			return nil
		}
		return mem.Gate(nil)
	}
	return mem.Gate(terminalApprover(in, stderr, mem))
}

func approvalPrompt(req runtime.ApprovalRequest) string {
	why := "is marked dangerous"
	if req.Reason != "" {
		why = "needs an approval: " + req.Reason
	}
	return fmt.Sprintf("%s %s: %s\n  arguments: %s", req.Macro, why, req.Intent, req.Args)
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
)

// EnvBrowser names the environment variable that points at the Chromium binary.
const EnvBrowser = "MACROKIT_BROWSER"

// ErrNoBrowser is returned when no local Chromium could be found. The engine
// never downloads a browser.
var ErrNoBrowser = errors.New("no Chromium found: install Debian's chromium (apt-get install -y chromium) or set " + EnvBrowser)

// FindBrowser returns the Chromium binary to launch: $MACROKIT_BROWSER, then
// /usr/bin/chromium, then chromium, google-chrome and google-chrome-stable on
// PATH.
func FindBrowser() (string, error) {
	if p := os.Getenv(EnvBrowser); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvBrowser, p, err)
		}
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

// Options configures Launch and Connect.
type Options struct {
	// Bin is the Chromium binary; empty means FindBrowser.
	Bin string
	// ControlURL connects to a running browser (its CDP websocket URL)
	// instead of launching one.
	ControlURL string
	// UserContext (only with ControlURL) makes NewContext hand out the
	// browser's default context, with the user's own cookies and logins,
	// instead of a fresh incognito one; Close then closes only the pages
	// this Browser opened in it.
	UserContext bool
	// Headed shows the browser window; the default is headless.
	Headed bool
	// NoSandbox disables Chromium's sandbox. It is forced on when running as
	// root, where Chromium refuses to start with it.
	NoSandbox bool
	// Tracer receives structured events from every page; nil drops them.
	Tracer Tracer
	// TraceScreenshots attaches a screenshot to step_failed trace events.
	TraceScreenshots bool
	// Viewport of new pages; zero means 1280x800.
	Width, Height int
}

// Browser is one Chromium process (or a connection to one). It hands out
// isolated contexts; Close ends the process and removes its profile.
type Browser struct {
	rod      *rod.Browser
	launcher *launcher.Launcher // nil when connected to a running browser
	opts     Options
	dataDir  string
	ctrlURL  string

	mu       sync.Mutex
	contexts map[*Context]struct{}
	closed   bool
	stop     func() bool // stops the context watcher
}

// Launch starts a local headless Chromium. If ctx is cancelled while the
// browser is open, the browser is closed and its profile removed, exactly as
// Close would.
func Launch(ctx context.Context, opts Options) (*Browser, error) {
	if opts.ControlURL != "" {
		return Connect(ctx, opts.ControlURL, opts)
	}
	if opts.UserContext {
		return nil, &Error{Code: CodeBrowser, Msg: "UserContext acts in a running browser: it needs a ControlURL (--cdp), not a launched one"}
	}
	bin := opts.Bin
	if bin == "" {
		var err error
		if bin, err = FindBrowser(); err != nil {
			return nil, err
		}
	}
	dir, err := newProfileDir() // sweeps the profiles of killed processes first
	if err != nil {
		return nil, fmt.Errorf("profile dir: %w", err)
	}
	l := launcher.New().
		Context(ctx).
		Bin(bin).
		Headless(!opts.Headed).
		NoSandbox(opts.NoSandbox || os.Geteuid() == 0).
		Leakless(true).
		UserDataDir(dir).
		Set("disable-gpu").
		Set("disable-quic").
		Set("disable-component-update").
		Set("disable-extensions").
		Set("mute-audio").
		Set("hide-scrollbars").
		// Headless Chromium has no pointing device, so (pointer: fine) and
		// (hover: hover) do not match and component libraries (MUI pickers,
		// hover menus) render their touch variants: report a mouse, as the
		// desktop a user runs has.
		Set("blink-settings", desktopPointer)
	if tmp := profileTmp(dir); tmp != "" {
		// Chromium's own temporary files (.org.chromium.*) go inside the
		// profile, so the sweep after a killed run removes them too.
		l = l.Env(append(os.Environ(), "TMPDIR="+tmp)...)
	}
	u, err := l.Launch()
	if err != nil {
		l.Kill()
		_ = os.RemoveAll(dir)
		return nil, &Error{Code: CodeBrowser, Msg: "launch " + bin, Err: err}
	}
	rb := rod.New().ControlURL(u)
	if err := rb.Connect(); err != nil {
		l.Kill()
		_ = os.RemoveAll(dir)
		return nil, &Error{Code: CodeBrowser, Msg: "connect", Err: err}
	}
	b := &Browser{rod: rb, launcher: l, opts: opts, dataDir: dir, ctrlURL: u, contexts: map[*Context]struct{}{}}
	b.stop = context.AfterFunc(ctx, func() { _ = b.Close() })
	return b, nil
}

// desktopPointer are the Blink settings of a mouse (pointer type fine,
// hover type hover).
const desktopPointer = "primaryPointerType=4,availablePointerTypes=4,primaryHoverType=2,availableHoverTypes=2"

// Connect attaches to a running browser by its CDP websocket URL (the
// scale-out path). Close then only closes the contexts this Browser opened.
func Connect(ctx context.Context, controlURL string, opts Options) (*Browser, error) {
	u, err := launcher.ResolveURL(controlURL)
	if err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "resolve " + controlURL, Err: err}
	}
	rb := rod.New().ControlURL(u).Context(ctx)
	if err := rb.Connect(); err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "connect " + controlURL, Err: err}
	}
	rb = rb.Context(context.Background())
	opts.ControlURL = u
	b := &Browser{rod: rb, opts: opts, ctrlURL: u, contexts: map[*Context]struct{}{}}
	b.stop = context.AfterFunc(ctx, func() { _ = b.Close() })
	return b, nil
}

// Rod returns the underlying rod browser, for callers that need raw CDP.
func (b *Browser) Rod() *rod.Browser { return b.rod }

// ControlURL is the browser's CDP websocket URL: what Connect (or another
// CDP client, such as a person driving a headless recording) attaches to.
func (b *Browser) ControlURL() string { return b.ctrlURL }

// ProfileDir is the temporary user-data-dir of a launched browser ("" when
// connected); it is removed on Close.
func (b *Browser) ProfileDir() string { return b.dataDir }

// PID is the launched browser's process id (0 when connected).
func (b *Browser) PID() int {
	if b.launcher == nil {
		return 0
	}
	return b.launcher.PID()
}

// NewContext opens an isolated (incognito) browser context: its own cookies,
// storage and cache. With Options.UserContext it hands out the browser's
// default context instead (Shared).
func (b *Browser) NewContext(ctx context.Context) (*Context, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, &Error{Code: CodeBrowser, Msg: "browser is closed"}
	}
	if b.opts.UserContext {
		// The user's own profile: pages open in the default context, and
		// Close leaves it (and the browser) as it was.
		c := &Context{browser: b, rod: b.rod, shared: true, pages: map[*Page]struct{}{}}
		b.contexts[c] = struct{}{}
		return c, nil
	}
	inc, err := b.rod.Context(ctx).Incognito()
	if err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "new context", Err: err}
	}
	c := &Context{browser: b, rod: inc.Context(context.Background()), pages: map[*Page]struct{}{}}
	b.contexts[c] = struct{}{}
	return c, nil
}

// Close closes every context and, for a launched browser, ends the process
// and removes its profile directory. It is safe to call more than once.
func (b *Browser) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	ctxs := make([]*Context, 0, len(b.contexts))
	for c := range b.contexts {
		ctxs = append(ctxs, c)
	}
	b.mu.Unlock()
	if b.stop != nil {
		b.stop()
	}
	for _, c := range ctxs {
		_ = c.Close()
	}
	if b.launcher == nil {
		return nil
	}
	// Ask politely first so Chromium flushes and exits; kill if it does not.
	done := make(chan struct{})
	go func() {
		_ = proto.BrowserClose{}.Call(b.rod.Timeout(2 * time.Second))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
	}
	exited := make(chan struct{})
	go func() { b.launcher.Cleanup(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(3 * time.Second):
		b.launcher.Kill()
		<-exited
	}
	return os.RemoveAll(b.dataDir)
}

// Context is an isolated browser context holding pages.
type Context struct {
	browser *Browser
	rod     *rod.Browser
	shared  bool // the browser's default context (Options.UserContext)

	mu      sync.Mutex
	pages   map[*Page]struct{}
	origins map[string]bool // origins its pages loaded documents from
	hook    *NetworkHook    // SetNetworkHook: every page's requests go through it
	closed  bool
}

// NewPage opens a blank page in this context.
func (c *Context) NewPage(ctx context.Context) (*Page, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, &Error{Code: CodeBrowser, Msg: "context is closed"}
	}
	c.mu.Unlock()
	rp, err := c.rod.Context(ctx).Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		return nil, &Error{Code: CodeBrowser, Msg: "new page", Err: err}
	}
	p, err := newPage(ctx, c, rp.Context(context.Background()))
	if err != nil {
		_ = rp.Close()
		return nil, err
	}
	c.track(p)
	return p, nil
}

func (c *Context) track(p *Page) {
	c.mu.Lock()
	c.pages[p] = struct{}{}
	c.mu.Unlock()
}

func (c *Context) untrack(p *Page) {
	c.mu.Lock()
	delete(c.pages, p)
	c.mu.Unlock()
}

// Close closes the context's pages and disposes of the context.
func (c *Context) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	pages := make([]*Page, 0, len(c.pages))
	for p := range c.pages {
		pages = append(pages, p)
	}
	c.mu.Unlock()
	for _, p := range pages {
		_ = p.Close()
	}
	c.browser.mu.Lock()
	delete(c.browser.contexts, c)
	c.browser.mu.Unlock()
	if c.shared {
		return nil
	}
	return c.rod.Timeout(5 * time.Second).Close()
}

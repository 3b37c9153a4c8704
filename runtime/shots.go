package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
)

// ShotMode says when page steps take screenshots (Dispatcher.Screenshots).
type ShotMode int

// The screenshot modes.
const (
	// ShotsNever takes none.
	ShotsNever ShotMode = iota
	// ShotsOnFailure takes an "after" image of each page step (or page
	// check) that failed.
	ShotsOnFailure
	// ShotsAlways takes a "before" image of each page step when a page
	// is already open, and an "after" image of every page step.
	ShotsAlways
)

// ShotModeNames are the modes as flags and configuration spell them, in
// ShotMode order.
var ShotModeNames = []string{"never", "on-failure", "always"}

// String is the mode's name (ShotModeNames).
func (m ShotMode) String() string {
	if m < 0 || int(m) >= len(ShotModeNames) {
		return fmt.Sprintf("ShotMode(%d)", int(m))
	}
	return ShotModeNames[m]
}

// ParseShotMode reads a mode's name; anything else is an error that lists
// the names.
func ParseShotMode(s string) (ShotMode, error) {
	if i := slices.Index(ShotModeNames, s); i >= 0 {
		return ShotMode(i), nil
	}
	return ShotsNever, fmt.Errorf("invalid screenshots mode %q: want one of %s", s, strings.Join(ShotModeNames, ", "))
}

// shotTimeout bounds one screenshot: it is evidence, and must not hold up
// the call for long.
const shotTimeout = 5 * time.Second

// callShots is where one dispatched call's screenshots go:
// <dir>/<session-id>.shots/<call-id>/, made on the first image. The
// attempts of a call (a run again after a login) share it, so no image is
// overwritten.
type callShots struct {
	mode   ShotMode
	base   string // the session log's directory
	sessID string
	callID string

	mu  sync.Mutex
	rel string // the call's directory relative to base ("" until made)
	seq int    // page steps so far
}

// newCallShots returns the screenshot state of a call, or nil when the
// dispatcher takes none (ShotsNever, or no session log to put them
// beside).
func (d *Dispatcher) newCallShots(callID string) *callShots {
	if d.Screenshots == ShotsNever || d.Log == nil {
		return nil
	}
	base := d.ShotDir
	if base == "" {
		base = filepath.Dir(d.Log.Path())
	}
	return &callShots{mode: d.Screenshots, base: base, sessID: d.Log.ID(), callID: callID}
}

// dir makes the call's directory on first use and returns it relative to
// the log's directory. A call id used before in the session (a directory
// already there) gets a numbered one of its own.
func (c *callShots) dir() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rel != "" {
		return c.rel, nil
	}
	sess := filepath.Join(c.base, sanitizeShotName(c.sessID)+".shots")
	if err := os.MkdirAll(sess, 0o700); err != nil {
		return "", err
	}
	name := sanitizeShotName(c.callID)
	for i := 1; ; i++ {
		cand := name
		if i > 1 {
			cand = fmt.Sprintf("%s-%d", name, i)
		}
		err := os.Mkdir(filepath.Join(sess, cand), 0o700)
		if err == nil {
			c.rel = filepath.Join(filepath.Base(sess), cand)
			return c.rel, nil
		}
		if !errors.Is(err, os.ErrExist) || i >= 1000 {
			return "", err
		}
	}
}

// next numbers a page step of the call.
func (c *callShots) next() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	return c.seq
}

// sanitizeShotName keeps [A-Za-z0-9._-] of a name for a file system path
// (others become _); an empty or dots-only name becomes "call".
func sanitizeShotName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	out := string(b)
	if strings.Trim(out, ".") == "" {
		return "call"
	}
	return out
}

// stepShot is the screenshots of one page step.
type stepShot struct {
	x     *Exec
	c     *callShots
	seq   int
	kind  string
	page  *engine.Page // the page the step ran in (nil: it got none)
	shots sessionlog.Shots
	notes []string
}

// startShot begins a page step's screenshots (nil when the call takes
// none).
func (x *Exec) startShot(kind string) *stepShot {
	c := x.root().shots
	if c == nil {
		return nil
	}
	return &stepShot{x: x, c: c, seq: c.next(), kind: kind}
}

// pageOpen reports whether the call's main page is open.
func (x *Exec) pageOpen() bool {
	root := x.root()
	root.mu.Lock()
	defer root.mu.Unlock()
	return root.page != nil
}

// before takes the "before" image on p, the page the step runs in, in
// ShotsAlways mode when the page was open before the step needed it (a
// page opened for the step shows nothing yet).
func (s *stepShot) before(ctx context.Context, p *engine.Page, wasOpen bool) {
	if s == nil {
		return
	}
	s.on(p)
	if s.c.mode != ShotsAlways || !wasOpen {
		return
	}
	s.shots.Before = s.take(ctx, "before")
}

// on names the page the step ran in, for its "after" image (a check step,
// which takes no "before").
func (s *stepShot) on(p *engine.Page) {
	if s != nil {
		s.page = p
	}
}

// finish takes the "after" image (ShotsAlways, or ShotsOnFailure when the
// step failed) and puts the images on rec. A screenshot that cannot be
// taken or written never fails the step: rec.Detail["screenshots"] says
// why it is missing.
func (s *stepShot) finish(ctx context.Context, rec *StepRecord, failed bool) {
	if s == nil {
		return
	}
	if s.page != nil && (s.c.mode == ShotsAlways || failed) && !s.page.Closed(ctx) {
		s.shots.After = s.take(ctx, "after")
	}
	if s.shots != (sessionlog.Shots{}) {
		sh := s.shots
		rec.Shots = &sh
	}
	if len(s.notes) > 0 {
		if rec.Detail == nil {
			rec.Detail = map[string]any{}
		}
		rec.Detail["screenshots"] = strings.Join(s.notes, "; ")
	}
}

// take captures the step's page with its secrets masked and writes it as
// <NN>-<kind>-<phase>.png; it returns the path relative to the session
// log's directory, or "" (with a note) when it could not.
func (s *stepShot) take(ctx context.Context, phase string) string {
	if errors.Is(ctx.Err(), context.Canceled) {
		return "" // the call was cancelled: nobody waits for its evidence
	}
	// A step that timed out still gets its image: that is when it helps.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shotTimeout)
	defer cancel()
	// Every secret of the call is one to mask, not only those the page
	// was told about when it opened (a nested call's parameters).
	known := s.page.Secrets()
	for _, v := range s.x.allSecrets() {
		if !slices.Contains(known, v) {
			s.page.AddSecret(v)
			known = append(known, v)
		}
	}
	img, err := s.page.MaskedScreenshot(sctx)
	if err != nil {
		s.notes = append(s.notes, phase+": "+err.Error())
		return ""
	}
	rel, err := s.c.dir()
	if err != nil {
		s.notes = append(s.notes, phase+": "+err.Error())
		return ""
	}
	name := fmt.Sprintf("%02d-%s-%s.png", s.seq, sanitizeShotName(s.kind), phase)
	if err := writeShot(filepath.Join(s.c.base, rel, name), img); err != nil {
		s.notes = append(s.notes, phase+": "+err.Error())
		return ""
	}
	return filepath.ToSlash(filepath.Join(rel, name))
}

// writeShot writes an image 0600, synced before the log names it.
func writeShot(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return err
	}
	return f.Close()
}

// newCallFiles is where a call that takes no step screenshots still puts
// the files its steps write (an annotated screenshot): the same
// directory newCallShots would use; nil without a session log.
func (d *Dispatcher) newCallFiles(callID string) *callShots {
	if d.Log == nil {
		return nil
	}
	base := d.ShotDir
	if base == "" {
		base = filepath.Dir(d.Log.Path())
	}
	return &callShots{mode: ShotsNever, base: base, sessID: d.Log.ID(), callID: callID}
}

package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/macrokit/macrokit-go/runtime/vocab"
)

func TestParseShotMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ShotMode
		ok   bool
	}{
		{"never", ShotsNever, true},
		{"on-failure", ShotsOnFailure, true},
		{"always", ShotsAlways, true},
		{"", ShotsNever, false},
		{"Always", ShotsNever, false},
		{"failure", ShotsNever, false},
	} {
		got, err := ParseShotMode(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseShotMode(%q) = %v, %v", tc.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "never, on-failure, always") {
			t.Errorf("ParseShotMode(%q) error does not list the modes: %v", tc.in, err)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}

func TestSanitizeShotName(t *testing.T) {
	for in, want := range map[string]string{
		"call-1":      "call-1",
		"a/b\\c":      "a_b_c",
		"../../etc":   ".._.._etc",
		"..":          "call",
		"":            "call",
		"id with ünï": "id_with___n__",
		"row.17_x":    "row.17_x",
	} {
		if got := sanitizeShotName(in); got != want {
			t.Errorf("sanitizeShotName(%q) = %q, want %q", in, got, want)
		}
	}
}

const shotsForm = `<!doctype html><title>Sign in</title>
<style>body{margin:0;background:#fff} input{position:absolute;left:40px;width:300px;height:36px;box-sizing:border-box}</style>
<input id="user" aria-label="User" value="ada" style="top:40px">
<input id="pw" type="password" aria-label="Password" style="top:120px" oninput="document.getElementById('echo').textContent = this.value">
<p style="position:absolute;top:200px;left:40px;margin:0;font:20px sans-serif">You typed <span id="echo"></span></p>`

// shotsRun runs a macro (goto the form, fill the password from a secret
// parameter, then, when fail is set, wait for a text that never shows)
// under mode, and returns its outcome, the session log's directory and
// the boxes of the fields and of the text echoing the password.
func shotsRun(t *testing.T, b *engine.Browser, mode ShotMode, fail bool) (*Outcome, string, map[string]engine.Box) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(shotsForm))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	log, err := sessionlog.Open(dir, "sess")
	if err != nil {
		t.Fatal(err)
	}
	d := &Dispatcher{Pages: ContextPages(b), Log: log, Screenshots: mode}
	var boxes map[string]engine.Box
	params := `{"type":"object","properties":{"password":{"type":"string"}}}`
	out := runMacro(t, d, params, []string{"password"}, `{"password":"pw-Secret-77"}`, func(ctx context.Context, x *Exec, args json.RawMessage) (any, error) {
		var a struct{ Password string }
		_ = json.Unmarshal(args, &a)
		if err := x.Do(ctx, "steps[0]", engine.Step{Action: vocab.ActGoto, URL: srv.URL + "/"}); err != nil {
			return nil, err
		}
		if err := x.Do(ctx, "steps[1]", engine.Step{Action: vocab.ActFill, Target: &engine.Target{CSS: "#pw"}, Value: a.Password, Sensitive: true}); err != nil {
			return nil, err
		}
		p, err := x.Page(ctx)
		if err != nil {
			return nil, err
		}
		res, err := p.Rod().Context(ctx).Eval(`() => Object.fromEntries(['user', 'pw', 'echo'].map((id) => {
		  const r = document.getElementById(id).getBoundingClientRect();
		  return [id, {x: r.left, y: r.top, width: r.width, height: r.height}];
		}))`)
		if err != nil {
			return nil, err
		}
		if err := res.Value.Unmarshal(&boxes); err != nil {
			return nil, err
		}
		if fail {
			return nil, x.Do(ctx, "steps[2]", engine.Step{Action: vocab.ActWait, Timeout: 2 * time.Second,
				Expect: []engine.Condition{{Kind: vocab.CondTextPresent, Text: "Never shown", Timeout: 300 * time.Millisecond}}})
		}
		return "ok", nil
	})
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	return out, dir, boxes
}

// loggedShots returns the shots of each step of the session log's
// tool_result record.
func loggedShots(t *testing.T, dir string) map[string]*sessionlog.Shots {
	t.Helper()
	sess, err := sessionlog.ReadFile(filepath.Join(dir, "sess.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*sessionlog.Shots{}
	for _, r := range sess.Records {
		if r.Type == sessionlog.RecToolResult {
			for _, s := range r.Steps {
				out[s.Path] = s.Shots
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no steps in the tool_result record")
	}
	return out
}

// shotFiles lists the files under the session's screenshot directory,
// relative to the log's directory.
func shotFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	root := filepath.Join(dir, "sess.shots")
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, ierr := e.Info()
		if ierr != nil {
			return ierr
		}
		if e.IsDir() {
			if perm := info.Mode().Perm(); perm != 0o700 {
				t.Errorf("%s: mode %v, want 0700", p, perm)
			}
			return nil
		}
		if perm := info.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, perm)
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func decodeShot(t *testing.T, dir, rel string) image.Image {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return img
}

// masked says whether every pixel of the box (inset by one) is
// engine.MaskColor, and whether any is.
func masked(img image.Image, b engine.Box) (all, any bool) {
	all = true
	for y := int(b.Y) + 1; y < int(b.Y+b.Height)-1; y++ {
		for x := int(b.X) + 1; x < int(b.X+b.Width)-1; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			m := uint8(r>>8) == engine.MaskColor.R && uint8(g>>8) == engine.MaskColor.G && uint8(bl>>8) == engine.MaskColor.B
			all, any = all && m, any || m
		}
	}
	return all, any
}

// TestShots runs the same macro under each screenshot mode in Chromium:
// always takes an after image of every page step and a before image of
// every step that found the page open; on-failure only the failed step's
// after image; never none. The files are PNGs beside the session log,
// named in its tool_result record, and the password is masked in them.
func TestShots(t *testing.T) {
	b := launch(t)
	for _, tc := range []struct {
		name  string
		mode  ShotMode
		fail  bool
		want  map[string]sessionlog.Shots
		files []string
	}{
		{"always", ShotsAlways, false, map[string]sessionlog.Shots{
			"steps[0]": {After: "sess.shots/c/01-goto-after.png"},
			"steps[1]": {Before: "sess.shots/c/02-fill-before.png", After: "sess.shots/c/02-fill-after.png"},
		}, []string{"sess.shots/c/01-goto-after.png", "sess.shots/c/02-fill-after.png", "sess.shots/c/02-fill-before.png"}},
		{"on-failure", ShotsOnFailure, true, map[string]sessionlog.Shots{
			"steps[2]": {After: "sess.shots/c/03-wait-after.png"},
		}, []string{"sess.shots/c/03-wait-after.png"}},
		{"never", ShotsNever, true, map[string]sessionlog.Shots{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, dir, boxes := shotsRun(t, b, tc.mode, tc.fail)
			if out.OK == tc.fail {
				t.Fatalf("outcome ok=%v: %+v", out.OK, out.Error)
			}
			logged := loggedShots(t, dir)
			for path, sh := range logged {
				want, ok := tc.want[path]
				switch {
				case !ok && sh != nil:
					t.Errorf("%s: shots %+v, want none", path, *sh)
				case ok && (sh == nil || *sh != want):
					t.Errorf("%s: shots %+v, want %+v", path, sh, want)
				}
			}
			for path := range tc.want {
				if _, ok := logged[path]; !ok {
					t.Errorf("%s: not in the log", path)
				}
			}
			for _, s := range out.Steps {
				if w, ok := tc.want[s.Path]; ok && (s.Shots == nil || *s.Shots != w) {
					t.Errorf("outcome %s: shots %+v, want %+v", s.Path, s.Shots, w)
				}
			}
			if got := shotFiles(t, dir); strings.Join(got, " ") != strings.Join(tc.files, " ") {
				t.Errorf("files %v, want %v", got, tc.files)
			}
			for _, f := range tc.files {
				img := decodeShot(t, dir, f)
				if all, _ := masked(img, boxes["pw"]); !all {
					t.Errorf("%s: the password field is not masked", f)
				}
				// The page shows the typed password as text: a secret of the
				// call, masked where it shows.
				if all, _ := masked(img, boxes["echo"]); (strings.Contains(f, "fill-after") || strings.Contains(f, "wait")) && !all {
					t.Errorf("%s: the password shown as text is not masked", f)
				}
				if _, any := masked(img, boxes["user"]); any {
					t.Errorf("%s: the user field is masked", f)
				}
			}
			raw, err := os.ReadFile(filepath.Join(dir, "sess.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(raw, []byte("pw-Secret-77")) || bytes.Contains(raw, []byte("iVBORw0KGgo")) {
				t.Error("the session log holds the secret or an inline PNG")
			}
		})
	}
}

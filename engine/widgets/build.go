package widgets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// lockStamp records, inside node_modules, the hash of the lockfile the
// modules were installed from, so a changed lockfile reinstalls.
const lockStamp = ".macrokit-lock-sha256"

// Build returns the directory of the built app for the sources in appDir
// (the folder holding package.json), building it when the cache has no
// build of these exact sources: `npm ci` when node_modules is missing or
// was installed from another lockfile, then `vite build` into a temporary
// directory renamed into place, so an interrupted build is never reused.
// The cache is $MACROKIT_WIDGETS_CACHE, else the user cache directory.
func Build(ctx context.Context, appDir string) (string, error) {
	sum, err := sourceHash(appDir)
	if err != nil {
		return "", err
	}
	cache, err := cacheDir()
	if err != nil {
		return "", err
	}
	dist := filepath.Join(cache, sum[:16])
	if _, err := os.Stat(filepath.Join(dist, "pages")); err == nil {
		return dist, nil
	}
	if err := install(ctx, appDir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cache, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "dist")
	if err := run(ctx, appDir, "node", filepath.Join("node_modules", "vite", "bin", "vite.js"), "build", "--outDir", out); err != nil {
		return "", fmt.Errorf("widgets: vite build: %w", err)
	}
	if err := os.Rename(out, dist); err != nil && !errors.Is(err, fs.ErrExist) {
		if _, serr := os.Stat(filepath.Join(dist, "pages")); serr != nil {
			return "", fmt.Errorf("widgets: %w", err)
		}
	}
	return dist, nil
}

func cacheDir() (string, error) {
	if d := os.Getenv("MACROKIT_WIDGETS_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("widgets: no cache directory (set MACROKIT_WIDGETS_CACHE): %w", err)
	}
	return filepath.Join(d, "macrokit", "widgets"), nil
}

// install runs `npm ci` unless node_modules was installed from this very
// lockfile.
func install(ctx context.Context, appDir string) error {
	lock, err := os.ReadFile(filepath.Join(appDir, "package-lock.json"))
	if err != nil {
		return fmt.Errorf("widgets: %w", err)
	}
	h := sha256.Sum256(lock)
	want := hex.EncodeToString(h[:])
	stamp := filepath.Join(appDir, "node_modules", lockStamp)
	if got, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(got)) == want {
		return nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Errorf("widgets: npm is needed to build the real-widget app (apt-get install -y npm): %w", err)
	}
	args := []string{"ci", "--no-audit", "--no-fund", "--loglevel=error"}
	name := "npm"
	if npmMajor(ctx) < 11 {
		// npm 10 skips the lockfile's platform-specific optional packages
		// vite 8's bundler needs; npm 11 from the registry does not.
		name, args = "npx", append([]string{"--yes", "npm@11", "--"}, args...)
	}
	if err := run(ctx, appDir, name, args...); err != nil {
		return fmt.Errorf("widgets: npm ci: %w", err)
	}
	return os.WriteFile(stamp, []byte(want+"\n"), 0o644)
}

// npmMajor is the installed npm's major version (0 when unknown).
func npmMajor(ctx context.Context) int {
	out, err := exec.CommandContext(ctx, "npm", "--version").Output()
	if err != nil {
		return 0
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(out)), ".")
	n, _ := strconv.Atoi(v)
	return n
}

func run(ctx context.Context, dir, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w\n%s", err, tail(out.String(), 4000))
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// sourceHash hashes every source file of the app (names and contents),
// skipping installed modules and build outputs.
func sourceHash(appDir string) (string, error) {
	var files []string
	err := filepath.WalkDir(appDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "dist") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("widgets: %w", err)
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		rel, _ := filepath.Rel(appDir, f)
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		fh, err := os.Open(f)
		if err != nil {
			return "", fmt.Errorf("widgets: %w", err)
		}
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return "", fmt.Errorf("widgets: %w", err)
		}
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/macrokit/macrokit-go/internal/demosite"
	"github.com/macrokit/macrokit-go/internal/ghstub"
)

// testSites are the sites `macrokit test` serves in-process, a fresh
// instance per test, when the environment does not point the test at a
// running one: the demo back office (site demo, DEMO_URL) for the
// reference macros, and the GitHub API stub (site github_api,
// GITHUB_API_URL and GITHUB_TOKEN) for the macros of macros.d/github.
func testSites() map[string]SiteStarter {
	return map[string]SiteStarter{
		"demo": func(ctx context.Context) (map[string]string, func(), error) {
			url, stop, err := serveLocal(ctx, demosite.New(demosite.Options{}).Handler())
			if err != nil {
				return nil, nil, err
			}
			return map[string]string{"DEMO_URL": url}, stop, nil
		},
		"github_api": func(ctx context.Context) (map[string]string, func(), error) {
			srv := ghstub.New(ghstub.Options{})
			return map[string]string{"GITHUB_API_URL": srv.URL, "GITHUB_TOKEN": srv.Token()}, srv.Close, nil
		},
	}
}

// serveLocal serves h on a free loopback port until stop.
func serveLocal(ctx context.Context, h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}
	return "http://" + ln.Addr().String(), stop, nil
}

package demosite

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// shutdownGrace is how long Serve waits for in-flight requests after ctx is
// cancelled.
const shutdownGrace = 5 * time.Second

// ListenAndServe serves site on addr (e.g. "127.0.0.1:8080", or ":0" for any
// free port) until ctx is cancelled, then shuts down gracefully. logf, if not
// nil, receives the listening URL and server errors. It returns nil after a
// clean shutdown.
func ListenAndServe(ctx context.Context, addr string, site *Site, logf func(format string, args ...any)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return Serve(ctx, ln, site, logf)
}

// Serve is ListenAndServe on an existing listener, which it closes.
func Serve(ctx context.Context, ln net.Listener, site *Site, logf func(format string, args ...any)) error {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	srv := &http.Server{
		Handler:           site.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
	}
	logf("demo site listening on %s", URL(ln.Addr()))

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	select {
	case err := <-errc:
		return err // Serve never returns nil
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		logf("demo site shutdown: %v", err)
		return err
	}
	logf("demo site stopped")
	return nil
}

// URL returns the http:// base URL for a listening address, using 127.0.0.1
// for unspecified hosts (":8080", "0.0.0.0:8080", "[::]:8080").
func URL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

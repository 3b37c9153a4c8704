package server

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/macrokit/macrokit-go/bench"
)

// MaxSlowMS bounds /api/slow's sleep.
const MaxSlowMS = 10000

// Handler returns the bench site's handler.
func Handler() http.Handler {
	pages, err := fs.Sub(bench.Pages, "pages")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/slow", slow)
	mux.Handle("GET /", http.FileServerFS(pages))
	return noStore(mux)
}

// New starts the bench site on a loopback port; Close it when done.
func New() *httptest.Server { return httptest.NewServer(Handler()) }

func slow(w http.ResponseWriter, r *http.Request) {
	ms := 100
	if v := r.URL.Query().Get("ms"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxSlowMS {
			http.Error(w, "ms must be an integer in 0.."+strconv.Itoa(MaxSlowMS), http.StatusBadRequest)
			return
		}
		ms = n
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"ms": ms, "seq": r.URL.Query().Get("seq")})
}

func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

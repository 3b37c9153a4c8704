package widgets

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"
)

// maxBody bounds what the API reads of a request body.
const maxBody = 4 << 20

// Effect is one side effect the server received: a save, an upload, a
// toggle, a delete, an archive, or a refused call to /api/fail.
type Effect struct {
	Method string `json:"method"`
	// Path is the API path, e.g. "/api/save".
	Path string `json:"path"`
	// Form names the page form that sent it (the ?form= parameter).
	Form string `json:"form,omitempty"`
	// Body is the JSON body as received (empty for uploads).
	Body json.RawMessage `json:"body,omitempty"`
	// Files are the names of the files an upload carried.
	Files []string  `json:"files,omitempty"`
	At    time.Time `json:"at"`
}

// Server serves the built app and its API and records every side effect
// per session (the ?s= parameter every page request carries).
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	effects map[string][]Effect
	seq     int
}

// NewServer serves the build in dist (from [Build]).
func NewServer(dist string) *Server {
	s := &Server{effects: map[string][]Effect{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/options", s.options)
	mux.HandleFunc("POST /api/upload", s.upload)
	mux.HandleFunc("POST /api/fail", s.fail)
	for _, p := range []string{"/api/save", "/api/toggle", "/api/delete", "/api/archive"} {
		mux.HandleFunc("POST "+p, s.record)
	}
	files := http.FileServer(http.Dir(dist))
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		files.ServeHTTP(w, r)
	}))
	s.Server = httptest.NewServer(mux)
	return s
}

// Session is one test's view of the server: its page URLs carry its id, and
// it sees only its own effects.
type Session struct {
	ID  string
	srv *Server
}

// Session starts a session with a fresh id.
func (s *Server) Session() *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return &Session{ID: fmt.Sprintf("s%d", s.seq), srv: s}
}

// URL is the address of a page of the app ("antd", "mui", ...) in this
// session; query is appended as is ("view=invoice").
func (ss *Session) URL(page string, query ...string) string {
	u := fmt.Sprintf("%s/pages/%s.html?s=%s", ss.srv.URL, page, ss.ID)
	for _, q := range query {
		u += "&" + q
	}
	return u
}

// Effects returns the session's effects on path ("" for all), oldest first.
func (ss *Session) Effects(path string) []Effect {
	ss.srv.mu.Lock()
	defer ss.srv.mu.Unlock()
	var out []Effect
	for _, e := range ss.srv.effects[ss.ID] {
		if path == "" || e.Path == path {
			out = append(out, e)
		}
	}
	return out
}

// Count is how many effects the session sent to path.
func (ss *Session) Count(path string) int { return len(ss.Effects(path)) }

func (s *Server) add(r *http.Request, e Effect) int {
	e.Method, e.Path, e.Form, e.At = r.Method, r.URL.Path, r.URL.Query().Get("form"), time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	sid := r.URL.Query().Get("s")
	s.effects[sid] = append(s.effects[sid], e)
	return len(s.effects[sid])
}

func (s *Server) record(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	if !json.Valid(body) {
		http.Error(w, "body is not JSON", http.StatusBadRequest)
		return
	}
	n := s.add(r, Effect{Body: body})
	writeJSON(w, map[string]any{"ok": true, "id": n})
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, maxBody))
	s.add(r, Effect{})
	http.Error(w, `{"error":"refused"}`, http.StatusInternalServerError)
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseMultipartForm(maxBody); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var names []string
	for _, fhs := range r.MultipartForm.File {
		for _, fh := range fhs {
			names = append(names, fh.Filename)
		}
	}
	sort.Strings(names)
	s.add(r, Effect{Files: names})
	name := strings.Join(names, ",")
	writeJSON(w, map[string]any{"name": name, "status": "done", "url": "/files/" + name})
}

// people is the list async selects search; the short delay makes the
// options arrive after the user typed, as a real backend's do.
var people = []string{"Ada Lovelace", "Alan Turing", "Barbara Liskov", "Donald Knuth", "Edsger Dijkstra",
	"Frances Allen", "Grace Hopper", "Ken Thompson", "Margaret Hamilton", "Rob Pike"}

func (s *Server) options(w http.ResponseWriter, r *http.Request) {
	q := strings.ToLower(r.URL.Query().Get("q"))
	out := []string{}
	for _, p := range people {
		if strings.Contains(strings.ToLower(p), q) {
			out = append(out, p)
		}
	}
	select {
	case <-time.After(150 * time.Millisecond):
	case <-r.Context().Done():
		return
	}
	writeJSON(w, out)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

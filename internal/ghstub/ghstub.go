package ghstub

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultToken is the bearer token a stub accepts unless Options.Token is set.
const DefaultToken = "ghstub-token"

// Options configure a stub.
type Options struct {
	// Token is the bearer token requests must carry ("": DefaultToken).
	Token string
	// Now is the fixture's present: issue and commit dates are relative to
	// it (zero: the current time).
	Now time.Time
}

// Write is one recorded write request.
type Write struct {
	Method string         `json:"method"`
	Path   string         `json:"path"`
	Body   map[string]any `json:"body"`
}

// Server is a running stub. Close it when done.
type Server struct {
	*httptest.Server
	token string
	now   time.Time

	mu       sync.Mutex
	repos    map[string]*repo
	writes   []Write
	requests int
}

// New starts a stub on a local port.
func New(o Options) *Server {
	s := &Server{token: o.Token, now: o.Now.UTC().Truncate(time.Second)}
	if s.token == "" {
		s.token = DefaultToken
	}
	if o.Now.IsZero() {
		s.now = time.Now().UTC().Truncate(time.Second)
	}
	s.repos = newFixture(s.now)
	s.Server = httptest.NewServer(s.routes())
	return s
}

// Token returns the bearer token the stub accepts.
func (s *Server) Token() string { return s.token }

// Now returns the fixture's present.
func (s *Server) Now() time.Time { return s.now }

// Writes returns the write requests received so far, in order.
func (s *Server) Writes() []Write {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Write(nil), s.writes...)
}

// Requests returns how many requests the stub has answered (any path).
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Labels returns the labels of an issue or pull request (nil when it does
// not exist).
func (s *Server) Labels(owner, name string, number int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is := s.issue(owner, name, number); is != nil {
		return append([]string{}, is.Labels...)
	}
	return nil
}

// State returns "open" or "closed" for an issue or pull request ("" when it
// does not exist).
func (s *Server) State(owner, name string, number int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is := s.issue(owner, name, number); is != nil {
		return is.State
	}
	return ""
}

func (s *Server) repo(owner, name string) *repo {
	return s.repos[strings.ToLower(owner+"/"+name)]
}

func (s *Server) issue(owner, name string, number int) *issue {
	if r := s.repo(owner, name); r != nil {
		return r.Issues[number]
	}
	return nil
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	api := func(pattern string, h func(w http.ResponseWriter, r *http.Request, rp *repo)) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+s.token {
				writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "Bad credentials"})
				return
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			var rp *repo
			if owner := r.PathValue("owner"); owner != "" {
				if rp = s.repo(owner, r.PathValue("repo")); rp == nil {
					notFound(w)
					return
				}
			}
			h(w, r, rp)
		})
	}
	api("GET /repos/{owner}/{repo}/pulls/{number}", s.getPull)
	api("GET /repos/{owner}/{repo}/pulls/{number}/files", s.getPullFiles)
	api("GET /repos/{owner}/{repo}/issues/{number}", s.getIssue)
	api("PATCH /repos/{owner}/{repo}/issues/{number}", s.patchIssue)
	api("POST /repos/{owner}/{repo}/issues/{number}/labels", s.addLabels)
	api("POST /repos/{owner}/{repo}/issues/{number}/comments", s.addComment)
	api("GET /repos/{owner}/{repo}/compare/{basehead}", s.compare)
	api("GET /repos/{owner}/{repo}/commits", s.listCommits)
	api("GET /repos/{owner}/{repo}/contents", s.contents)
	api("GET /repos/{owner}/{repo}/contents/{path...}", s.contents)
	api("GET /repos/{owner}/{repo}/actions/runs/{id}", s.getRun)
	api("GET /repos/{owner}/{repo}/actions/runs/{id}/jobs", s.getJobs)
	api("GET /repos/{owner}/{repo}/actions/runs/{id}/logs", s.getLogs)
	api("GET /search/issues", s.searchIssues)
	mux.HandleFunc("GET /_blobs/{owner}/{repo}/runs/{id}/logs.zip", s.getLogArchive)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { notFound(w) })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
}

func unprocessable(w http.ResponseWriter, msg string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []any{map[string]any{"message": msg}}})
}

func (s *Server) htmlURL(rp *repo, rest string) string {
	return "https://github.com/" + rp.Owner + "/" + rp.Name + rest
}

func userJSON(u user) map[string]any {
	typ := "User"
	if u.Bot {
		typ = "Bot"
	}
	return map[string]any{"login": u.Login, "type": typ}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *Server) issueJSON(rp *repo, is *issue) map[string]any {
	labels := make([]any, len(is.Labels))
	for i, l := range is.Labels {
		labels[i] = map[string]any{"name": l}
	}
	kind := "issues"
	if is.PR != nil {
		kind = "pull"
	}
	out := map[string]any{
		"number":       is.Number,
		"title":        is.Title,
		"body":         nullable(is.Body),
		"user":         userJSON(is.User),
		"labels":       labels,
		"state":        is.State,
		"state_reason": nullable(is.StateReason),
		"comments":     is.Comments,
		"created_at":   is.Created.Format(time.RFC3339),
		"updated_at":   is.Created.Format(time.RFC3339),
		"html_url":     s.htmlURL(rp, fmt.Sprintf("/%s/%d", kind, is.Number)),
	}
	if is.PR != nil {
		out["pull_request"] = map[string]any{"html_url": out["html_url"]}
		out["draft"] = is.PR.Draft
	}
	return out
}

func (s *Server) number(w http.ResponseWriter, r *http.Request, rp *repo) *issue {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil {
		notFound(w)
		return nil
	}
	is := rp.Issues[n]
	if is == nil {
		notFound(w)
	}
	return is
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request, rp *repo) {
	is := s.number(w, r, rp)
	if is == nil {
		return
	}
	if is.PR == nil {
		notFound(w)
		return
	}
	out := s.issueJSON(rp, is)
	delete(out, "pull_request")
	requested := make([]any, len(is.PR.Requested))
	for i, l := range is.PR.Requested {
		requested[i] = map[string]any{"login": l, "type": "User"}
	}
	out["additions"] = is.PR.Additions
	out["deletions"] = is.PR.Deletions
	out["changed_files"] = len(is.PR.Files)
	out["base"] = map[string]any{"ref": is.PR.BaseRef}
	out["head"] = map[string]any{"ref": is.PR.HeadRef}
	out["requested_reviewers"] = requested
	out["merged"] = false
	writeJSON(w, http.StatusOK, out)
}

// page returns the slice of n items that per_page and page select (GitHub's
// defaults: 30 per page, at most max).
func page(r *http.Request, n, max int) (int, int) {
	per, err := strconv.Atoi(r.URL.Query().Get("per_page"))
	if err != nil || per < 1 {
		per = 30
	}
	per = min(per, max)
	p, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || p < 1 {
		p = 1
	}
	from := min((p-1)*per, n)
	return from, min(from+per, n)
}

func (s *Server) getPullFiles(w http.ResponseWriter, r *http.Request, rp *repo) {
	is := s.number(w, r, rp)
	if is == nil {
		return
	}
	if is.PR == nil {
		notFound(w)
		return
	}
	from, to := page(r, len(is.PR.Files), 100)
	out := []any{}
	for _, f := range is.PR.Files[from:to] {
		out = append(out, map[string]any{"filename": f, "status": "modified", "additions": 1, "deletions": 1, "changes": 2})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getIssue(w http.ResponseWriter, r *http.Request, rp *repo) {
	if is := s.number(w, r, rp); is != nil {
		writeJSON(w, http.StatusOK, s.issueJSON(rp, is))
	}
}

// decode reads a JSON object body; a bad body is answered with 400.
func decode(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	var body map[string]any
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body); err != nil || body == nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON"})
		return nil, false
	}
	return body, true
}

func (s *Server) record(r *http.Request, body map[string]any) {
	s.writes = append(s.writes, Write{Method: r.Method, Path: r.URL.Path, Body: body})
}

func (s *Server) patchIssue(w http.ResponseWriter, r *http.Request, rp *repo) {
	is := s.number(w, r, rp)
	if is == nil {
		return
	}
	body, ok := decode(w, r)
	if !ok {
		return
	}
	if st, ok := body["state"]; ok {
		switch st {
		case "open", "closed":
			is.State = st.(string)
		default:
			unprocessable(w, fmt.Sprintf("state must be open or closed, got %v", st))
			return
		}
	}
	if sr, ok := body["state_reason"].(string); ok {
		if sr != "completed" && sr != "not_planned" && sr != "reopened" {
			unprocessable(w, "state_reason must be completed, not_planned or reopened, got "+sr)
			return
		}
		is.StateReason = sr
	}
	s.record(r, body)
	writeJSON(w, http.StatusOK, s.issueJSON(rp, is))
}

func (s *Server) addLabels(w http.ResponseWriter, r *http.Request, rp *repo) {
	is := s.number(w, r, rp)
	if is == nil {
		return
	}
	body, ok := decode(w, r)
	if !ok {
		return
	}
	list, ok := body["labels"].([]any)
	if !ok || len(list) == 0 {
		unprocessable(w, "labels must be a non-empty list of names")
		return
	}
	for _, l := range list {
		name, ok := l.(string)
		if !ok || strings.TrimSpace(name) == "" {
			unprocessable(w, "label names must be non-empty strings")
			return
		}
		have := false
		for _, x := range is.Labels {
			have = have || strings.EqualFold(x, name)
		}
		if !have {
			is.Labels = append(is.Labels, name)
		}
	}
	s.record(r, body)
	out := make([]any, len(is.Labels))
	for i, l := range is.Labels {
		out[i] = map[string]any{"name": l}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) addComment(w http.ResponseWriter, r *http.Request, rp *repo) {
	is := s.number(w, r, rp)
	if is == nil {
		return
	}
	body, ok := decode(w, r)
	if !ok {
		return
	}
	text, _ := body["body"].(string)
	if strings.TrimSpace(text) == "" {
		unprocessable(w, "body is required")
		return
	}
	is.Comments++
	s.record(r, body)
	writeJSON(w, http.StatusCreated, map[string]any{"id": 9000 + len(s.writes), "body": text,
		"html_url": s.htmlURL(rp, fmt.Sprintf("/issues/%d#issuecomment-%d", is.Number, 9000+len(s.writes)))})
}

// resolve returns the history index a ref names: a tag, the default
// branch, or a commit SHA (or a prefix of at least 7 characters).
func resolve(rp *repo, ref string) (int, bool) {
	if i, ok := rp.Tags[ref]; ok {
		return i, true
	}
	if ref == rp.DefaultBranch || ref == "HEAD" {
		return len(rp.History) - 1, true
	}
	if len(ref) >= 7 {
		for i, c := range rp.History {
			if strings.HasPrefix(c.SHA, ref) {
				return i, true
			}
		}
	}
	return 0, false
}

func (s *Server) commitJSON(rp *repo, c commit) map[string]any {
	var author any
	if c.Author != nil {
		author = userJSON(*c.Author)
	}
	return map[string]any{
		"sha": c.SHA,
		"commit": map[string]any{
			"message": c.Message,
			"author":  map[string]any{"name": c.AuthorName, "email": strings.ToLower(strings.ReplaceAll(c.AuthorName, " ", ".")) + "@example.com", "date": c.Date.Format(time.RFC3339)},
		},
		"author":   author,
		"html_url": s.htmlURL(rp, "/commit/"+c.SHA),
	}
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request, rp *repo) {
	base, head, ok := strings.Cut(r.PathValue("basehead"), "...")
	if !ok {
		notFound(w)
		return
	}
	b, okb := resolve(rp, base)
	h, okh := resolve(rp, head)
	if !okb || !okh {
		notFound(w)
		return
	}
	status, ahead, behind := "ahead", max(h-b, 0), max(b-h, 0)
	switch {
	case b == h:
		status = "identical"
	case h < b:
		status = "behind"
	}
	commits := []any{}
	for i := b + 1; i <= h; i++ {
		commits = append(commits, s.commitJSON(rp, rp.History[i]))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"status":        status,
		"ahead_by":      ahead,
		"behind_by":     behind,
		"total_commits": ahead,
		"html_url":      s.htmlURL(rp, "/compare/"+base+"..."+head),
		"commits":       commits,
		"files":         []any{},
	})
}

func (s *Server) listCommits(w http.ResponseWriter, r *http.Request, rp *repo) {
	q := r.URL.Query()
	end := len(rp.History) - 1
	if ref := q.Get("sha"); ref != "" {
		i, ok := resolve(rp, ref)
		if !ok {
			notFound(w)
			return
		}
		end = i
	}
	path := strings.Trim(q.Get("path"), "/")
	var hits []commit
	for i := end; i >= 0; i-- {
		c := rp.History[i]
		if path == "" {
			hits = append(hits, c)
			continue
		}
		for _, f := range c.Files {
			if f == path || strings.HasPrefix(f, path+"/") {
				hits = append(hits, c)
				break
			}
		}
	}
	from, to := page(r, len(hits), 100)
	out := []any{}
	for _, c := range hits[from:to] {
		out = append(out, s.commitJSON(rp, c))
	}
	writeJSON(w, http.StatusOK, out)
}

// contents serves the contents API: a directory listing or a file with
// base64 content (wrapped at 60 characters, as GitHub does).
func (s *Server) contents(w http.ResponseWriter, r *http.Request, rp *repo) {
	path := strings.Trim(r.PathValue("path"), "/")
	if ref := r.URL.Query().Get("ref"); ref != "" {
		if _, ok := resolve(rp, ref); !ok {
			notFound(w)
			return
		}
	}
	if content, ok := rp.Files[path]; ok && path != "" {
		enc := base64.StdEncoding.EncodeToString([]byte(content))
		var wrapped strings.Builder
		for len(enc) > 60 {
			wrapped.WriteString(enc[:60] + "\n")
			enc = enc[60:]
		}
		wrapped.WriteString(enc + "\n")
		name := path[strings.LastIndex(path, "/")+1:]
		writeJSON(w, http.StatusOK, map[string]any{"type": "file", "name": name, "path": path, "encoding": "base64", "content": wrapped.String(), "size": len(content)})
		return
	}
	entries := map[string]string{}
	prefix := ""
	if path != "" {
		prefix = path + "/"
	}
	for f := range rp.Files {
		rest, ok := strings.CutPrefix(f, prefix)
		if !ok {
			continue
		}
		if name, _, isDir := strings.Cut(rest, "/"); isDir {
			entries[name] = "dir"
		} else {
			entries[name] = "file"
		}
	}
	if len(entries) == 0 {
		notFound(w)
		return
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []any{}
	for _, n := range names {
		out = append(out, map[string]any{"type": entries[n], "name": n, "path": prefix + n})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) findRun(w http.ResponseWriter, r *http.Request, rp *repo) *run {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || rp.Runs[id] == nil {
		notFound(w)
		return nil
	}
	return rp.Runs[id]
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request, rp *repo) {
	run := s.findRun(w, r, rp)
	if run == nil {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": run.ID, "name": run.Name, "status": run.Status, "conclusion": nullable(run.Conclusion),
		"head_branch": run.Branch, "event": run.Event, "run_attempt": 1,
		"html_url": s.htmlURL(rp, fmt.Sprintf("/actions/runs/%d", run.ID)),
	})
}

func (s *Server) getJobs(w http.ResponseWriter, r *http.Request, rp *repo) {
	run := s.findRun(w, r, rp)
	if run == nil {
		return
	}
	jobs := []any{}
	for _, j := range run.Jobs {
		jobs = append(jobs, map[string]any{"id": j.ID, "run_id": run.ID, "name": j.Name, "status": j.Status, "conclusion": nullable(j.Conclusion),
			"html_url": s.htmlURL(rp, fmt.Sprintf("/actions/runs/%d/job/%d", run.ID, j.ID))})
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(jobs), "jobs": jobs})
}

// getLogs answers like GitHub: a redirect to a short-lived archive URL.
func (s *Server) getLogs(w http.ResponseWriter, r *http.Request, rp *repo) {
	run := s.findRun(w, r, rp)
	if run == nil {
		return
	}
	if run.Logs == nil {
		notFound(w)
		return
	}
	http.Redirect(w, r, fmt.Sprintf("/_blobs/%s/%s/runs/%d/logs.zip?sig=stub", rp.Owner, rp.Name, run.ID), http.StatusFound)
}

func (s *Server) getLogArchive(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	rp := s.repo(r.PathValue("owner"), r.PathValue("repo"))
	var logs map[string]string
	if rp != nil {
		if id, err := strconv.ParseInt(r.PathValue("id"), 10, 64); err == nil && rp.Runs[id] != nil {
			logs = rp.Runs[id].Logs
		}
	}
	s.mu.Unlock()
	if logs == nil || r.URL.Query().Get("sig") != "stub" {
		http.Error(w, "AuthenticationFailed", http.StatusForbidden)
		return
	}
	names := make([]string, 0, len(logs))
	for n := range logs {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		f, err := zw.Create(n)
		if err == nil {
			_, err = f.Write([]byte(logs[n]))
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	if err := zw.Close(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	_, _ = w.Write(buf.Bytes())
}

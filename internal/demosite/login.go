package demosite

import (
	"mime"
	"net/http"
	"net/url"
	"strings"
)

type loginInput struct {
	Username string `json:"username"`
	Password string `json:"password"`
	Next     string `json:"next"`
}

// isForm reports whether r carries an HTML form body.
func isForm(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data"
}

// readForm parses r's form body, capped at maxBody. On failure it writes the
// error response and returns false.
func readForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "The form could not be read: "+err.Error(), nil)
		return false
	}
	return true
}

// safeNext returns next if it is a same-site path, else /customers.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/") && !strings.HasPrefix(next, "//") && !strings.HasPrefix(next, `/\`) && !strings.HasPrefix(next, "/api/") {
		return next
	}
	return "/customers"
}

// POST /api/login: JSON {username,password[,next]} -> 200 {user,redirect}, or
// an HTML form post -> 303 to next (or back to /login?error=invalid). For a
// user with a TOTP secret a right password starts no session: it answers
// 202 {user, totp_required, pending_token, redirect: /login/verify?...} and
// sets the pending cookie (form posts: 303 to /login/verify).
func (s *Site) handleLogin(w http.ResponseWriter, r *http.Request) {
	if !allowed(w, r, http.MethodPost) {
		return
	}
	form := isForm(r)
	var in loginInput
	if form {
		if !readForm(w, r) {
			return
		}
		in = loginInput{Username: r.PostForm.Get("username"), Password: r.PostForm.Get("password"), Next: r.PostForm.Get("next")}
	} else if !decodeJSON(w, r, &in, false) {
		return
	}
	in.Username = strings.TrimSpace(in.Username)
	next := safeNext(in.Next)

	fields := map[string]string{}
	if in.Username == "" {
		fields["username"] = "Enter your username."
	}
	if in.Password == "" {
		fields["password"] = "Enter your password."
	}
	ok := len(fields) == 0 && s.checkPassword(in.Username, in.Password)
	if len(fields) == 0 {
		s.mu.Lock()
		s.stats.LoginAttempts++
		if !ok {
			s.stats.LoginFailures++
		}
		s.mu.Unlock()
	}
	if !ok {
		if form {
			http.Redirect(w, r, "/login?error=invalid&next="+url.QueryEscape(next), http.StatusSeeOther)
			return
		}
		if len(fields) > 0 {
			writeError(w, http.StatusBadRequest, "validation_failed", "Enter your username and password.", fields)
			return
		}
		writeError(w, http.StatusUnauthorized, "invalid_credentials", "Invalid username or password.", nil)
		return
	}
	if s.opts.TOTP[in.Username] != "" {
		s.challenge(w, r, in.Username, next, form)
		return
	}
	setSessionCookie(w, s.newSession(in.Username))
	if form {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"user": in.Username, "redirect": next})
}

// POST /api/logout: ends the session (if any) and clears the cookie.
func (s *Site) handleLogout(w http.ResponseWriter, r *http.Request) {
	if !allowed(w, r, http.MethodPost) {
		return
	}
	if c, err := r.Cookie(SessionCookie); err == nil {
		s.endSession(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	if isForm(r) {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// GET /api/session: who is signed in.
func (s *Site) handleSession(w http.ResponseWriter, r *http.Request) {
	if !allowed(w, r, http.MethodGet) {
		return
	}
	var user *string
	if u := s.sessionUser(r); u != "" {
		user = &u
	}
	writeJSON(w, http.StatusOK, map[string]any{"user": user, "require_login": s.opts.RequireLogin})
}

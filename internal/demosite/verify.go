package demosite

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/runtime/totp"
)

// PendingCookie is the cookie that carries a pending second-factor login
// from POST /api/login to POST /api/login/verify.
const PendingCookie = "mk_pending"

// Second-factor limits: how long a right password waits for its code, how
// many wrong codes it survives, and how many 30 s periods a code may be off.
const (
	pendingTTL      = 5 * time.Minute
	maxCodeAttempts = 5
	codeSkew        = 1
)

// InvalidCodeMessage is what a wrong one-time code answers (API message and
// the login page's alert).
const InvalidCodeMessage = "Invalid code"

// pendingLogin is a right password waiting for its one-time code.
type pendingLogin struct {
	user     string
	next     string    // where the session goes once verified (already safe)
	expires  time.Time // by the site's clock
	attempts int       // wrong codes so far
}

// challenge answers a right password of a TOTP user: a pending login, no
// session.
func (s *Site) challenge(w http.ResponseWriter, r *http.Request, user, next string, form bool) {
	token := newToken()
	now := s.clock()
	s.mu.Lock()
	for t, p := range s.pending { // drop the stale ones so the map stays small
		if !now.Before(p.expires) {
			delete(s.pending, t)
		}
	}
	s.pending[token] = pendingLogin{user: user, next: next, expires: now.Add(pendingTTL)}
	s.stats.TOTPChallenges++
	s.mu.Unlock()

	http.SetCookie(w, &http.Cookie{Name: PendingCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	verify := "/login/verify?next=" + url.QueryEscape(next)
	if form {
		http.Redirect(w, r, verify, http.StatusSeeOther)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{
		"user": user, "totp_required": true, "pending_token": token, "redirect": verify,
	})
}

type verifyInput struct {
	Code         string `json:"code"`
	PendingToken string `json:"pending_token"` // else the pending cookie
	Next         string `json:"next"`          // only used to send an expired login back to /login
}

// POST /api/login/verify: {code[, pending_token]} (the token defaults to the
// pending cookie) -> 200 {user, redirect} + the session cookie; 401
// invalid_code for a wrong code (the pending login survives a few of those);
// 401 login_expired when the pending login is unknown, used, expired or out
// of attempts. Form posts get 303s: next, /login/verify?error=invalid or
// /login?error=expired.
func (s *Site) handleVerify(w http.ResponseWriter, r *http.Request) {
	if !allowed(w, r, http.MethodPost) {
		return
	}
	form := isForm(r)
	var in verifyInput
	if form {
		if !readForm(w, r) {
			return
		}
		in = verifyInput{Code: r.PostForm.Get("code"), Next: r.PostForm.Get("next")}
	} else if !decodeJSON(w, r, &in, false) {
		return
	}
	if in.PendingToken == "" {
		if c, err := r.Cookie(PendingCookie); err == nil {
			in.PendingToken = c.Value
		}
	}
	code := strings.Join(strings.Fields(in.Code), "") // "123 456" as apps show it
	next := safeNext(in.Next)
	if code == "" {
		if form {
			http.Redirect(w, r, "/login/verify?error=invalid&next="+url.QueryEscape(next), http.StatusSeeOther)
			return
		}
		writeError(w, http.StatusBadRequest, "validation_failed", "Enter the one-time code.",
			map[string]string{"code": "Enter the code from your authenticator app."})
		return
	}

	now := s.clock()
	s.mu.Lock()
	p, ok := s.pending[in.PendingToken]
	if ok && !now.Before(p.expires) {
		delete(s.pending, in.PendingToken)
		ok = false
	}
	if !ok {
		s.stats.TOTPFailures++
		s.mu.Unlock()
		if form {
			http.Redirect(w, r, "/login?error=expired&next="+url.QueryEscape(next), http.StatusSeeOther)
			return
		}
		writeError(w, http.StatusUnauthorized, "login_expired", "Your sign-in has expired. Sign in again.", nil)
		return
	}
	if !totp.Validate(s.opts.TOTP[p.user], code, now, codeSkew) {
		s.stats.TOTPFailures++
		if p.attempts++; p.attempts >= maxCodeAttempts {
			delete(s.pending, in.PendingToken)
		} else {
			s.pending[in.PendingToken] = p
		}
		s.mu.Unlock()
		if form {
			http.Redirect(w, r, "/login/verify?error=invalid&next="+url.QueryEscape(p.next), http.StatusSeeOther)
			return
		}
		writeError(w, http.StatusUnauthorized, "invalid_code", InvalidCodeMessage, map[string]string{"code": InvalidCodeMessage})
		return
	}
	delete(s.pending, in.PendingToken) // one use: a replay finds nothing
	s.mu.Unlock()

	setSessionCookie(w, s.newSession(p.user))
	http.SetCookie(w, &http.Cookie{Name: PendingCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	if form {
		http.Redirect(w, r, p.next, http.StatusSeeOther)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"user": p.user, "redirect": p.next})
}

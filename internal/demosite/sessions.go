package demosite

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"time"
)

// session is one signed-in browser (or API client).
type session struct {
	user    string
	created time.Time // by the site's clock; expiry counts from here, not from the last use
}

// newToken returns a fresh random session or pending-login token.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// expiredLocked reports whether a session created at created has outlived
// Options.SessionTTL at now. s.mu must be held.
func (s *Site) expiredLocked(created, now time.Time) bool {
	return s.opts.SessionTTL > 0 && !now.Before(created.Add(s.opts.SessionTTL))
}

// sessionUser returns the user signed in with r's session cookie, or "". An
// expired session is forgotten here, so it reads as no session at all.
func (s *Site) sessionUser(r *http.Request) string {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return ""
	}
	now := s.clock()
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[c.Value]
	if !ok {
		return ""
	}
	if s.expiredLocked(sess.created, now) {
		delete(s.sessions, c.Value)
		s.stats.SessionsExpired++
		return ""
	}
	return sess.user
}

// newSession starts a session for user and returns its token. It counts a
// login and, with a TTL, drops the sessions that have expired meanwhile so
// the map does not grow with dead entries.
func (s *Site) newSession(user string) string {
	token := newToken()
	now := s.clock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.SessionTTL > 0 {
		for t, sess := range s.sessions {
			if s.expiredLocked(sess.created, now) {
				delete(s.sessions, t)
				s.stats.SessionsExpired++
			}
		}
	}
	s.sessions[token] = session{user: user, created: now}
	s.stats.Logins++
	return token
}

// endSession forgets a session token (logout).
func (s *Site) endSession(token string) {
	s.mu.Lock()
	delete(s.sessions, token)
	s.mu.Unlock()
}

// ExpireSessions ends every session and pending second-factor login now, as
// if their time had run out, and returns how many sessions it ended. Tests
// use it to expire a session in the middle of a run without moving the
// clock; clients holding the old cookie are anonymous from then on.
func (s *Site) ExpireSessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.sessions)
	s.sessions = map[string]session{}
	s.pending = map[string]pendingLogin{}
	s.stats.SessionsExpired += n
	return n
}

// setSessionCookie sets the session cookie. It has no Max-Age even with a
// SessionTTL: the site alone decides expiry, by its clock, so a test that
// moves the clock sees the same thing as a browser.
func setSessionCookie(w http.ResponseWriter, token string) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
}

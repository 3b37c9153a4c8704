package demosite

import "strings"

// Stats counts the site's sign-in side effects since New or the last Reset,
// so end-to-end tests can assert things like "exactly one login ran".
type Stats struct {
	// LoginAttempts is how many POST /api/login requests carried both a
	// username and a password (right or wrong).
	LoginAttempts int `json:"login_attempts"`
	// LoginFailures is how many of those had a wrong username or password.
	LoginFailures int `json:"login_failures"`
	// TOTPChallenges is how many right passwords were answered with a
	// request for a one-time code instead of a session.
	TOTPChallenges int `json:"totp_challenges"`
	// TOTPFailures is how many POST /api/login/verify requests started no
	// session: a wrong code, or a pending login that is unknown, used,
	// expired or out of attempts.
	TOTPFailures int `json:"totp_failures"`
	// Logins is how many sessions were created: successful logins, with or
	// without a second factor.
	Logins int `json:"logins"`
	// SessionsExpired is how many sessions were forgotten because they
	// outlived Options.SessionTTL or were ended by ExpireSessions (logouts
	// are not counted).
	SessionsExpired int `json:"sessions_expired"`
	// CustomersCreated is how many POST /api/customers stored a customer.
	CustomersCreated int `json:"customers_created"`
	// CustomersFaked is how many were answered 201 under fakeSuccess and
	// stored nothing.
	CustomersFaked int `json:"customers_faked"`
	// CustomerConflicts is how many were refused 409 because the email was
	// taken: a create applied again.
	CustomerConflicts int `json:"customer_conflicts"`
}

// Stats returns the current counters.
func (s *Site) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Logins returns how many sessions have been created (Stats().Logins).
func (s *Site) Logins() int { return s.Stats().Logins }

// CustomerCount returns how many stored customers have this email,
// compared case-insensitively, for tests that check a create was applied
// exactly once (or not at all).
func (s *Site) CustomerCount(email string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.st.customers {
		if strings.EqualFold(c.Email, email) {
			n++
		}
	}
	return n
}

// DarkModeOf reports the dark-mode setting a user's pages show (with
// RequireLogin each user has their own settings), for tests that check
// one identity's save is not another's.
func (s *Site) DarkModeOf(user string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.settingsOf(s.settingsOwner(user)).DarkMode
}

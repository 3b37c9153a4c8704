package demosite

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadUsers is returned by ParseUsers for a list it cannot read; the
// message names the entry's position, never a password.
var ErrBadUsers = errors.New("demosite: users must be user:password pairs separated by commas")

// ParseUsers reads "alice:pw1,bob:pw2" (demo serve --users) into
// Options.Users. Spaces around names and passwords are dropped; a password
// may contain ':'; users must be distinct and neither side empty.
func ParseUsers(list string) (map[string]string, error) {
	users := map[string]string{}
	for i, entry := range strings.Split(list, ",") {
		user, pw, ok := strings.Cut(strings.TrimSpace(entry), ":")
		user, pw = strings.TrimSpace(user), strings.TrimSpace(pw)
		if !ok || user == "" || pw == "" {
			return nil, fmt.Errorf("%w (entry %d)", ErrBadUsers, i+1)
		}
		if _, dup := users[user]; dup {
			return nil, fmt.Errorf("%w (user %q twice)", ErrBadUsers, user)
		}
		users[user] = pw
	}
	return users, nil
}

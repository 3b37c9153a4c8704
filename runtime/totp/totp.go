package totp

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Params are a TOTP's parameters; the zero value is the common one (six
// digits, 30 seconds, SHA-1), which authenticator apps assume.
type Params struct {
	Digits    int           // 6 to 10; 0 means 6
	Period    time.Duration // 0 means 30s
	Algorithm string        // SHA1 (""), SHA256 or SHA512
}

// ErrBadSecret is returned for a secret that is neither base32 nor an
// otpauth://totp/ URI; the message never repeats the secret.
var ErrBadSecret = errors.New("totp: the secret is not base32 or an otpauth://totp/ URI")

func (p Params) norm() (Params, func() hash.Hash, error) {
	if p.Digits == 0 {
		p.Digits = 6
	}
	if p.Period == 0 {
		p.Period = 30 * time.Second
	}
	if p.Digits < 6 || p.Digits > 10 {
		return p, nil, fmt.Errorf("totp: %d digits (want 6 to 10)", p.Digits)
	}
	if p.Period < time.Second {
		return p, nil, fmt.Errorf("totp: period %s (want at least 1s)", p.Period)
	}
	switch strings.ToUpper(p.Algorithm) {
	case "", "SHA1":
		return p, sha1.New, nil
	case "SHA256":
		return p, sha256.New, nil
	case "SHA512":
		return p, sha512.New, nil
	}
	return p, nil, fmt.Errorf("totp: unknown algorithm %q (want SHA1, SHA256 or SHA512)", p.Algorithm)
}

// Code returns the code of key at t (RFC 6238 section 4, the dynamic
// truncation of RFC 4226 section 5.3).
func Code(key []byte, t time.Time, p Params) (string, error) {
	p, h, err := p.norm()
	if err != nil {
		return "", err
	}
	return code(key, counter(t, p.Period), p.Digits, h), nil
}

func counter(t time.Time, period time.Duration) uint64 {
	s := t.Unix()
	if s < 0 {
		return 0
	}
	return uint64(s) / uint64(period/time.Second)
}

func code(key []byte, n uint64, digits int, h func() hash.Hash) string {
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], n)
	m := hmac.New(h, key)
	m.Write(msg[:])
	sum := m.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	v := uint64(binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff)
	mod := uint64(1)
	for range digits {
		mod *= 10
	}
	s := strconv.FormatUint(v%mod, 10)
	return strings.Repeat("0", digits-len(s)) + s
}

// Parse reads a secret as an authenticator app is given it: base32 (any
// case, spaces and padding ignored) or an otpauth://totp/ URI, whose
// digits, period and algorithm it honours.
func Parse(secret string) ([]byte, Params, error) {
	var p Params
	s := strings.TrimSpace(secret)
	if strings.HasPrefix(strings.ToLower(s), "otpauth://") {
		u, err := url.Parse(s)
		if err != nil || !strings.EqualFold(u.Host, "totp") {
			return nil, p, ErrBadSecret
		}
		q := u.Query()
		s = q.Get("secret")
		if d := q.Get("digits"); d != "" {
			if p.Digits, err = strconv.Atoi(d); err != nil {
				return nil, p, fmt.Errorf("totp: digits %q is not a number", d)
			}
		}
		if d := q.Get("period"); d != "" {
			n, err := strconv.Atoi(d)
			if err != nil || n <= 0 {
				return nil, p, fmt.Errorf("totp: period %q is not a positive number of seconds", d)
			}
			p.Period = time.Duration(n) * time.Second
		}
		p.Algorithm = q.Get("algorithm")
	}
	s = strings.ToUpper(strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '=' {
			return -1
		}
		return r
	}, s))
	key, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(s)
	if err != nil || len(key) == 0 {
		return nil, p, ErrBadSecret
	}
	if _, _, err := p.norm(); err != nil {
		return nil, p, err
	}
	return key, p, nil
}

// Generate returns the code of a base32 secret (or otpauth URI) at t.
func Generate(secret string, t time.Time) (string, error) {
	key, p, err := Parse(secret)
	if err != nil {
		return "", err
	}
	return Code(key, t, p)
}

// Validate reports whether got is the secret's code at t or within skew
// periods of it (a clock a little off), comparing in constant time.
func Validate(secret, got string, t time.Time, skew int) bool {
	key, p, err := Parse(secret)
	if err != nil {
		return false
	}
	p, h, err := p.norm()
	if err != nil || len(got) != p.Digits {
		return false
	}
	n := counter(t, p.Period)
	ok := 0
	for d := -skew; d <= skew; d++ {
		if int64(n)+int64(d) < 0 {
			continue
		}
		want := code(key, uint64(int64(n)+int64(d)), p.Digits, h)
		ok |= subtle.ConstantTimeCompare([]byte(want), []byte(got))
	}
	return ok == 1
}

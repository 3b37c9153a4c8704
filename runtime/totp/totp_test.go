package totp

import (
	"encoding/base32"
	"errors"
	"strings"
	"testing"
	"time"
)

// The test vectors of RFC 6238 appendix B: eight digits, 30 s, each
// algorithm with its own ASCII seed.
func TestRFC6238Vectors(t *testing.T) {
	seeds := map[string]string{
		"SHA1":   "12345678901234567890",
		"SHA256": "12345678901234567890123456789012",
		"SHA512": "1234567890123456789012345678901234567890123456789012345678901234",
	}
	tests := []struct {
		unix int64
		alg  string
		want string
	}{
		{59, "SHA1", "94287082"}, {59, "SHA256", "46119246"}, {59, "SHA512", "90693936"},
		{1111111109, "SHA1", "07081804"}, {1111111109, "SHA256", "68084774"}, {1111111109, "SHA512", "25091201"},
		{1111111111, "SHA1", "14050471"}, {1111111111, "SHA256", "67062674"}, {1111111111, "SHA512", "99943326"},
		{1234567890, "SHA1", "89005924"}, {1234567890, "SHA256", "91819424"}, {1234567890, "SHA512", "93441116"},
		{2000000000, "SHA1", "69279037"}, {2000000000, "SHA256", "90698825"}, {2000000000, "SHA512", "38618901"},
		{20000000000, "SHA1", "65353130"}, {20000000000, "SHA256", "77737706"}, {20000000000, "SHA512", "47863826"},
	}
	for _, tt := range tests {
		got, err := Code([]byte(seeds[tt.alg]), time.Unix(tt.unix, 0), Params{Digits: 8, Algorithm: tt.alg})
		if err != nil || got != tt.want {
			t.Errorf("%s at %d = %q, %v; want %q", tt.alg, tt.unix, got, err, tt.want)
		}
	}
}

func TestParseAndGenerate(t *testing.T) {
	seed := base32.StdEncoding.EncodeToString([]byte("12345678901234567890")) // GEZDGNBVGY3TQOJQ...
	at := time.Unix(59, 0)
	tests := []struct {
		name, secret, want string
	}{
		{"base32, six digits", seed, "287082"},
		{"lower case, spaces, no padding", strings.ToLower(strings.TrimRight(seed[:8]+" "+seed[8:], "=")), "287082"},
		{"otpauth URI with eight digits", "otpauth://totp/Demo:admin?secret=" + strings.TrimRight(seed, "=") + "&digits=8&issuer=Demo", "94287082"},
		{"otpauth URI with SHA256", "otpauth://totp/x?secret=" + base32.StdEncoding.EncodeToString([]byte("12345678901234567890123456789012")) + "&algorithm=SHA256&digits=8", "46119246"},
	}
	for _, tt := range tests {
		got, err := Generate(tt.secret, at)
		if err != nil || got != tt.want {
			t.Errorf("%s: Generate = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestBadSecrets(t *testing.T) {
	for _, s := range []string{"", "not base32 !", "otpauth://hotp/x?secret=GEZDGNBV", "otpauth://totp/x?secret=GEZDGNBV&digits=4", "otpauth://totp/x?secret=GEZDGNBV&algorithm=MD5", "otpauth://totp/x?secret=GEZDGNBV&period=-1"} {
		_, err := Generate(s, time.Unix(59, 0))
		if err == nil {
			t.Errorf("Generate(%q) = nil error", s)
			continue
		}
		if s != "" && strings.Contains(err.Error(), "GEZDGNBV") {
			t.Errorf("error %q repeats the secret", err)
		}
	}
	if _, err := Generate("!!", time.Now()); !errors.Is(err, ErrBadSecret) {
		t.Errorf("err = %v, want ErrBadSecret", err)
	}
}

func TestValidate(t *testing.T) {
	seed := base32.StdEncoding.EncodeToString([]byte("12345678901234567890"))
	at := time.Unix(1111111111, 0)
	now, _ := Generate(seed, at)
	prev, _ := Generate(seed, at.Add(-30*time.Second))
	old, _ := Generate(seed, at.Add(-90*time.Second))
	tests := []struct {
		code string
		skew int
		want bool
	}{
		{now, 0, true}, {prev, 0, false}, {prev, 1, true}, {old, 1, false}, {"12345", 1, false}, {"", 1, false},
	}
	for _, tt := range tests {
		if got := Validate(seed, tt.code, at, tt.skew); got != tt.want {
			t.Errorf("Validate(%q, skew %d) = %v, want %v", tt.code, tt.skew, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ")
	f.Add("otpauth://totp/a?secret=GEZDGNBV&digits=8&period=60&algorithm=SHA512")
	f.Fuzz(func(t *testing.T, s string) {
		key, p, err := Parse(s)
		if err != nil {
			return
		}
		c, err := Code(key, time.Unix(1234567890, 0), p)
		if err != nil {
			t.Fatalf("Parse accepted %q but Code failed: %v", s, err)
		}
		if want := p.Digits; want != 0 && len(c) != want || want == 0 && len(c) != 6 {
			t.Fatalf("code %q has the wrong length for %+v", c, p)
		}
	})
}

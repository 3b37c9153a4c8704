package identity

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"strings"
)

// EnvKey names the environment variable holding the store's key: the
// standard base64 of 32 random bytes (`macrokit identity keygen`).
const EnvKey = "MACROKIT_IDENTITY_KEY"

// KeyFromEnv returns the key EnvKey holds (nil when unset). The message of
// a bad key never repeats it.
func KeyFromEnv(getenv func(string) string) ([]byte, error) {
	v := strings.TrimSpace(getenv(EnvKey))
	if v == "" {
		return nil, nil
	}
	k, err := base64.StdEncoding.DecodeString(v)
	if err != nil || len(k) != 32 {
		return nil, &Error{Code: CodeBadKey, Msg: EnvKey + " must be the base64 of 32 random bytes (make one with `macrokit identity keygen`)"}
	}
	return k, nil
}

// NewKey returns a fresh key, encoded as EnvKey wants it.
func NewKey() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b[:]), nil
}

// seal encrypts plain with AES-256-GCM; ad binds the ciphertext to its
// identity name and format version.
func seal(key, plain, ad []byte) (nonce, ct []byte, err error) {
	g, err := gcm(key)
	if err != nil {
		return nil, nil, err
	}
	nonce = make([]byte, g.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, nil, err
	}
	return nonce, g.Seal(nil, nonce, plain, ad), nil
}

func open(key, nonce, ct, ad []byte) ([]byte, error) {
	g, err := gcm(key)
	if err != nil {
		return nil, err
	}
	if len(nonce) != g.NonceSize() {
		return nil, errBadNonce
	}
	return g.Open(nil, nonce, ct, ad)
}

func gcm(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

type sealError string

func (e sealError) Error() string { return string(e) }

const errBadNonce = sealError("bad nonce")

// SealBytes encrypts plain with key (32 bytes, AES-256-GCM), binding it to
// ad; other packages use it to keep what they hand to shared storage (a
// fleet's job arguments) unreadable without the deployment's key.
func SealBytes(key, plain, ad []byte) (nonce, ciphertext []byte, err error) {
	return seal(key, plain, ad)
}

// OpenBytes decrypts what SealBytes sealed with the same key and ad; a
// wrong key, ad or a changed byte is an error.
func OpenBytes(key, nonce, ciphertext, ad []byte) ([]byte, error) {
	return open(key, nonce, ciphertext, ad)
}

package refdata

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Key file headers: the first non-comment line of a key file.
const (
	PublicKeyHeader  = "macrokit-refdata-public-key-v1"
	PrivateKeyHeader = "macrokit-refdata-private-key-v1"
)

// PublicKey is a key that may sign bundles. A deployment trusts a bundle
// exactly when its signed_by names one of its public keys and the
// signature verifies under it.
type PublicKey struct {
	// ID is KeyID(Key).
	ID      string
	Key     ed25519.PublicKey
	Comment string
}

// PrivateKey signs bundles. Keep it off deployments.
type PrivateKey struct {
	ID      string
	Key     ed25519.PrivateKey
	Comment string
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

// KeyID is the lower-case hex of the first 8 bytes of the SHA-256 of the
// 32-byte public key: short enough to read, long enough not to collide by
// accident. It names a key; it does not authenticate one.
func KeyID(pub ed25519.PublicKey) string {
	h := sha256.Sum256(pub)
	return hex.EncodeToString(h[:8])
}

// GenerateKey makes a new signing key from rand (nil: crypto/rand).
func GenerateKey(rand io.Reader, comment string) (*PrivateKey, error) {
	_, priv, err := ed25519.GenerateKey(rand)
	if err != nil {
		return nil, err
	}
	return &PrivateKey{ID: KeyID(priv.Public().(ed25519.PublicKey)), Key: priv, Comment: comment}, nil
}

// Public returns the key's public half.
func (k *PrivateKey) Public() *PublicKey {
	return &PublicKey{ID: k.ID, Key: k.Key.Public().(ed25519.PublicKey), Comment: k.Comment}
}

// Marshal renders the key file (docs/refdata.md, "Keys"):
//
//	macrokit-refdata-public-key-v1
//	id: 1f0c9a3b5e7d2468
//	key: <standard base64 of the 32-byte public key>
//	comment: <free text, optional>
func (k *PublicKey) Marshal() []byte {
	return marshalKey(PublicKeyHeader, k.ID, "key", k.Key, k.Comment)
}

// Marshal renders the private key file: like the public one with
// "seed: <standard base64 of the 32-byte ed25519 seed>" instead of key.
func (k *PrivateKey) Marshal() []byte {
	return marshalKey(PrivateKeyHeader, k.ID, "seed", k.Key.Seed(), k.Comment)
}

func marshalKey(header, id, field string, b []byte, comment string) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s\nid: %s\n%s: %s\n", header, id, field, base64.StdEncoding.EncodeToString(b))
	if c := strings.Join(strings.Fields(comment), " "); c != "" {
		fmt.Fprintf(&buf, "comment: %s\n", c)
	}
	return buf.Bytes()
}

// ParsePublicKey parses a public key file. Blank lines and lines starting
// with # are ignored; the id must match the key.
func ParsePublicKey(data []byte) (*PublicKey, error) {
	f, err := parseKeyFile(data, PublicKeyHeader, "key")
	if err != nil {
		return nil, err
	}
	if len(f.material) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("public key file: key is %d bytes, want %d", len(f.material), ed25519.PublicKeySize)
	}
	pub := ed25519.PublicKey(f.material)
	if id := KeyID(pub); f.id != id {
		return nil, fmt.Errorf("public key file: id %s does not match the key (its id is %s)", f.id, id)
	}
	return &PublicKey{ID: f.id, Key: pub, Comment: f.comment}, nil
}

// ParsePrivateKey parses a private key file.
func ParsePrivateKey(data []byte) (*PrivateKey, error) {
	f, err := parseKeyFile(data, PrivateKeyHeader, "seed")
	if err != nil {
		return nil, err
	}
	if len(f.material) != ed25519.SeedSize {
		return nil, fmt.Errorf("private key file: seed is %d bytes, want %d", len(f.material), ed25519.SeedSize)
	}
	priv := ed25519.NewKeyFromSeed(f.material)
	if id := KeyID(priv.Public().(ed25519.PublicKey)); f.id != id {
		return nil, fmt.Errorf("private key file: id %s does not match the key (its id is %s)", f.id, id)
	}
	return &PrivateKey{ID: f.id, Key: priv, Comment: f.comment}, nil
}

type keyFile struct {
	id, comment string
	material    []byte
}

func parseKeyFile(data []byte, header, field string) (keyFile, error) {
	var f keyFile
	kind := strings.TrimSuffix(strings.TrimPrefix(header, "macrokit-refdata-"), "-v1")
	sc := bufio.NewScanner(bytes.NewReader(data))
	seenHeader := false
	seen := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !seenHeader {
			if line != header {
				if line == PrivateKeyHeader || line == PublicKeyHeader {
					return f, fmt.Errorf("%s file: this is a %s", kind, strings.TrimSuffix(strings.TrimPrefix(line, "macrokit-refdata-"), "-v1"))
				}
				return f, fmt.Errorf("%s file: line %d: want %q", kind, n, header)
			}
			seenHeader = true
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok {
			return f, fmt.Errorf("%s file: line %d: want name: value", kind, n)
		}
		if seen[name] {
			return f, fmt.Errorf("%s file: line %d: %s given twice", kind, n, name)
		}
		seen[name] = true
		switch name {
		case "id":
			f.id = value
		case field:
			b, err := base64.StdEncoding.Strict().DecodeString(value)
			if err != nil {
				return f, fmt.Errorf("%s file: line %d: %s is not standard base64", kind, n, field)
			}
			f.material = b
		case "comment":
			f.comment = value
		default:
			return f, fmt.Errorf("%s file: line %d: unknown field %q", kind, n, name)
		}
	}
	if err := sc.Err(); err != nil {
		return f, err
	}
	switch {
	case !seenHeader:
		return f, fmt.Errorf("%s file: no %q line", kind, header)
	case !keyIDRE.MatchString(f.id):
		return f, fmt.Errorf("%s file: id: want 16 lower-case hex digits", kind)
	case f.material == nil:
		return f, fmt.Errorf("%s file: no %s line", kind, field)
	}
	return f, nil
}

// ReadPublicKeyFile reads and parses a public key file.
func ReadPublicKeyFile(path string) (*PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	k, err := ParsePublicKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// ReadPrivateKeyFile reads and parses a private key file.
func ReadPrivateKeyFile(path string) (*PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	k, err := ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// Sign sets m's published_at (when zero, to now), signed_by and signature.
// It signs what it is given: use Seal to fill sha256 and rows from the
// files first.
func Sign(m *Manifest, k *PrivateKey, now time.Time) error {
	if m.PublishedAt.IsZero() {
		m.PublishedAt = now.UTC().Truncate(time.Second)
	}
	m.SignedBy = k.ID
	m.Signature = ""
	m.raw = nil
	if err := m.check(false); err != nil {
		return err
	}
	msg, err := m.signingBytes()
	if err != nil {
		return invalidManifest("%v", err)
	}
	m.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(k.Key, msg))
	return nil
}

// VerifySignature checks m's signature against the trusted keys:
// untrusted_key when signed_by names none of them, signature_invalid when
// the signature does not verify.
func VerifySignature(m *Manifest, trusted []*PublicKey) error {
	var key *PublicKey
	for _, k := range trusted {
		if k != nil && k.ID == m.SignedBy {
			key = k
			break
		}
	}
	if key == nil {
		return &Error{Code: CodeUntrustedKey, Bundle: m.Ref(), File: ManifestFile,
			Msg: fmt.Sprintf("signed by %s, which is not among the %d trusted key(s)", m.SignedBy, len(trusted))}
	}
	sig, err := base64.StdEncoding.Strict().DecodeString(m.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return &Error{Code: CodeSignatureInvalid, Bundle: m.Ref(), File: ManifestFile, Msg: "signature is not the base64 of 64 bytes"}
	}
	msg, err := m.signingBytes()
	if err != nil {
		return &Error{Code: CodeManifestInvalid, Bundle: m.Ref(), File: ManifestFile, Msg: err.Error()}
	}
	if !ed25519.Verify(key.Key, msg, sig) {
		return &Error{Code: CodeSignatureInvalid, Bundle: m.Ref(), File: ManifestFile,
			Msg: fmt.Sprintf("the signature does not verify under key %s", key.ID)}
	}
	return nil
}

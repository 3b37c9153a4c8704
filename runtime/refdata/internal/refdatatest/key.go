package refdatatest

import (
	"bytes"
	"crypto/ed25519"
	"fmt"

	"github.com/macrokit/macrokit-go/runtime/refdata"
)

// Key is a deterministic signing key: seed is repeated to 32 bytes, so the
// same seed always yields the same key ID.
func Key(seed byte) *refdata.PrivateKey {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
	return &refdata.PrivateKey{ID: refdata.KeyID(priv.Public().(ed25519.PublicKey)), Key: priv, Comment: fmt.Sprintf("test key %d", seed)}
}

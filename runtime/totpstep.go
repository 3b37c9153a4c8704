package runtime

import (
	"context"
	"time"

	"github.com/macrokit/macrokit-go/runtime/totp"
)

// TOTP runs a totp step: the RFC 6238 code of secret (base32 or an
// otpauth URI) at this moment. The secret and the code become secrets of
// the call before anything can record them; the step's evidence names
// neither.
func (x *Exec) TOTP(ctx context.Context, path, secret string) (string, error) {
	start := time.Now()
	rec := StepRecord{Path: path, Kind: "totp", Status: "passed"}
	x.addSecrets(secret)
	code, err := totp.Generate(secret, time.Now())
	rec.Duration = time.Since(start)
	if err != nil {
		return "", x.fail(ctx, rec, err) // totp's errors never repeat the secret
	}
	x.addSecrets(code)
	x.record(rec)
	return code, nil
}

// addSecrets makes values secrets of the call from now on: redacted from
// its evidence, its page's traces and the session log.
func (x *Exec) addSecrets(vals ...string) {
	root := x.root()
	root.mu.Lock()
	p := root.page
	for _, v := range vals {
		if v == "" {
			continue
		}
		x.secrets = append(x.secrets, v)
		if root != x {
			root.secrets = append(root.secrets, v) // the page, opened by the root, gets them
		}
	}
	root.mu.Unlock()
	for _, v := range vals {
		if v == "" {
			continue
		}
		if p != nil {
			p.AddSecret(v)
		}
		if x.d != nil && x.d.Log != nil {
			x.d.Log.AddSecret(v)
		}
	}
}

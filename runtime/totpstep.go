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

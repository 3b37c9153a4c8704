package queue

import (
	"encoding/json"

	"github.com/macrokit/macrokit-go/runtime/identity"
)

// SealedArgs are a job's arguments encrypted with the queue's key.
type SealedArgs struct {
	Nonce []byte `json:"nonce"`
	Data  []byte `json:"data"`
}

// argsAD binds sealed arguments to their job: a sealed blob copied into
// another job (another ID or macro) does not open.
func argsAD(job Job) []byte {
	return []byte("macrokit-job-args-v1\x00" + job.ID + "\x00" + job.Macro)
}

// sealArgs returns job with its Args sealed under key (unchanged without
// a key or arguments).
func sealArgs(key []byte, job Job) (Job, error) {
	if key == nil || len(job.Args) == 0 {
		return job, nil
	}
	nonce, ct, err := identity.SealBytes(key, job.Args, argsAD(job))
	if err != nil {
		return job, &Error{Code: CodeInvalidJob, Message: "sealing the arguments of " + job.ID, Err: err}
	}
	job.Args, job.Sealed = nil, &SealedArgs{Nonce: nonce, Data: ct}
	return job, nil
}

// openArgs returns job with its sealed Args opened; false when it cannot
// be (no key, another key, a changed blob). The message never holds the
// arguments.
func openArgs(key []byte, job Job) (Job, bool) {
	if job.Sealed == nil {
		return job, true
	}
	if key == nil {
		return job, false
	}
	plain, err := identity.OpenBytes(key, job.Sealed.Nonce, job.Sealed.Data, argsAD(job))
	if err != nil {
		return job, false
	}
	job.Args, job.Sealed = json.RawMessage(plain), nil
	return job, true
}

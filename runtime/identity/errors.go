package identity

// Code classifies an Error.
type Code string

// The error codes.
const (
	CodeNotFound    Code = "not_found"   // no such identity
	CodeBadName     Code = "bad_name"    // not ^[a-z0-9][a-z0-9_.-]{0,63}$
	CodeBadKey      Code = "bad_key"     // the key is not base64 of 32 bytes
	CodeNeedKey     Code = "need_key"    // the file is sealed and no key is set
	CodeDecrypt     Code = "decrypt"     // wrong key or a tampered file
	CodePermissions Code = "permissions" // the file or directory is open to others
	CodeCorrupt     Code = "corrupt"     // not a state file
	CodeIO          Code = "io"          // reading, writing or locking failed
	CodeBadConfig   Code = "bad_config"  // a store's configuration cannot work (a bucket name, a TTL)
)

// Error is an identity store error. Its message names paths and codes,
// never a stored value.
type Error struct {
	Code Code
	Path string
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// IsCode reports whether err is an *Error with the code.
func IsCode(err error, c Code) bool {
	for err != nil {
		if e, ok := err.(*Error); ok {
			return e.Code == c
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

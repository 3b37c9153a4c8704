package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/atomicfile"
	"github.com/macrokit/macrokit-go/runtime/redact"
)

// Fingerprints remembers, per macro step, the fingerprint of the element
// its target resolved to in a passing run. A page step whose written target
// no longer resolves is healed from it (docs/heal.md); a step whose target
// changed since (a different written or rendered target) has none.
type Fingerprints interface {
	Lookup(macro, step string, target engine.Target) *engine.Fingerprint
}

// Remembered is what a passing page step leaves for Fingerprints: the
// macro and step, the target as the step ran it, and the element's
// fingerprint (its names redacted).
type Remembered struct {
	Macro       string             `json:"macro"`
	Step        string             `json:"step"`
	Target      engine.Target      `json:"target"`
	Fingerprint engine.Fingerprint `json:"fingerprint"`
}

// FingerprintsVersion is the format version of a fingerprint file.
const FingerprintsVersion = 1

// FingerprintDir is the fingerprints of a project: one file per macro,
// <Dir>/<macro>.json, committed beside the specs (macros.d/.fingerprints
// by default). Files are read once and cached; Record rewrites them
// atomically. Safe for concurrent use.
type FingerprintDir struct {
	Dir string

	mu    sync.Mutex
	files map[string]*fingerprintFile
}

// fingerprintFile is the content of one <macro>.json.
type fingerprintFile struct {
	Version int                          `json:"macrokit_fingerprints"`
	Macro   string                       `json:"macro"`
	Steps   map[string]fingerprintRecord `json:"steps"`
}

type fingerprintRecord struct {
	Target      engine.Target      `json:"target"`
	Fingerprint engine.Fingerprint `json:"fingerprint"`
}

// FingerprintFileError is a fingerprint file that cannot be read or
// written.
type FingerprintFileError struct {
	Path string
	Err  error
}

func (e *FingerprintFileError) Error() string { return "fingerprints " + e.Path + ": " + e.Err.Error() }
func (e *FingerprintFileError) Unwrap() error { return e.Err }

// Path is the file of macro's fingerprints.
func (d *FingerprintDir) Path(macro string) string { return filepath.Join(d.Dir, macro+".json") }

// load returns macro's file, reading it once; a missing or unreadable file
// is empty (an unreadable one is reported by Record, which would replace it).
func (d *FingerprintDir) load(macro string) (*fingerprintFile, error) {
	if f, ok := d.files[macro]; ok {
		return f, nil
	}
	if d.files == nil {
		d.files = map[string]*fingerprintFile{}
	}
	f := &fingerprintFile{Version: FingerprintsVersion, Macro: macro, Steps: map[string]fingerprintRecord{}}
	data, err := os.ReadFile(d.Path(macro))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return f, &FingerprintFileError{Path: d.Path(macro), Err: err}
	default:
		var got fingerprintFile
		if err := json.Unmarshal(data, &got); err != nil {
			return f, &FingerprintFileError{Path: d.Path(macro), Err: err}
		}
		if got.Version != FingerprintsVersion {
			return f, &FingerprintFileError{Path: d.Path(macro), Err: fmt.Errorf("format version %d, want %d", got.Version, FingerprintsVersion)}
		}
		if got.Steps != nil {
			f.Steps = got.Steps
		}
	}
	d.files[macro] = f
	return f, nil
}

// Lookup returns the fingerprint remembered for the step when it was
// remembered for this very target, else nil.
func (d *FingerprintDir) Lookup(macro, step string, target engine.Target) *engine.Fingerprint {
	d.mu.Lock()
	defer d.mu.Unlock()
	f, _ := d.load(macro)
	r, ok := f.Steps[step]
	if !ok || !reflect.DeepEqual(r.Target, target) {
		return nil
	}
	fp := r.Fingerprint
	return &fp
}

// Record remembers the fingerprints of passing steps, replacing what each
// step had, and rewrites the files it changed.
func (d *FingerprintDir) Record(rs []Remembered) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	changed := map[string]bool{}
	for _, r := range rs {
		f, _ := d.load(r.Macro)
		old, ok := f.Steps[r.Step]
		nr := fingerprintRecord{Target: r.Target, Fingerprint: r.Fingerprint}
		if ok && reflect.DeepEqual(old, nr) {
			continue
		}
		f.Steps[r.Step] = nr
		changed[r.Macro] = true
	}
	macros := make([]string, 0, len(changed))
	for m := range changed {
		macros = append(macros, m)
	}
	sort.Strings(macros)
	for _, m := range macros {
		data, err := json.MarshalIndent(d.files[m], "", "  ")
		if err != nil {
			return &FingerprintFileError{Path: d.Path(m), Err: err}
		}
		if err := os.MkdirAll(d.Dir, 0o755); err != nil {
			return &FingerprintFileError{Path: d.Path(m), Err: err}
		}
		if err := atomicfile.WriteBytes(d.Path(m), 0o644, append(data, '\n')); err != nil {
			return &FingerprintFileError{Path: d.Path(m), Err: err}
		}
	}
	return nil
}

// RememberedOf returns what the passing, unhealed page steps of a call
// leave to remember (a healed step keeps the fingerprint it was healed
// from until its spec is patched).
func RememberedOf(o *Outcome) []Remembered {
	if o == nil || !o.OK {
		return nil
	}
	var out []Remembered
	for _, s := range o.Steps {
		if s.Status == "passed" && s.Remember != nil && s.Heal == nil {
			out = append(out, *s.Remember)
		}
	}
	return out
}

// redactFingerprint removes secret values from a fingerprint's texts.
func redactFingerprint(fp engine.Fingerprint, secrets []string) engine.Fingerprint {
	if len(secrets) == 0 {
		return fp
	}
	fp.Name, fp.Text = redact.String(fp.Name, secrets), redact.String(fp.Text, secrets)
	if len(fp.Attrs) > 0 {
		attrs := make(map[string]string, len(fp.Attrs))
		for k, v := range fp.Attrs {
			attrs[k] = redact.String(v, secrets)
		}
		fp.Attrs = attrs
	}
	return fp
}

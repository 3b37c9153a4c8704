package refdata

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"
)

// ManifestFile is the manifest's name at the root of a bundle.
const ManifestFile = "manifest.json"

// Limits on a manifest; a bundle beyond them is manifest_invalid.
const (
	MaxManifestBytes = 1 << 20 // manifest.json size
	MaxFiles         = 1000    // files per bundle
)

// Format is how a bundle file's rows are written.
type Format string

// The file formats.
const (
	// FormatJSON is a JSON array of objects, one per row.
	FormatJSON Format = "json"
	// FormatCSV is RFC 4180 CSV with a header row; cells are typed by the
	// file's schema (docs/refdata.md, "CSV typing").
	FormatCSV Format = "csv"
)

// Manifest describes a bundle: what it is, which files it holds and who
// vouches for them. The signature covers every other field.
type Manifest struct {
	Name        string      `json:"name"`
	Version     string      `json:"version"`
	Description string      `json:"description,omitempty"`
	PublishedAt time.Time   `json:"published_at"`
	ExpiresAt   *time.Time  `json:"expires_at,omitempty"`
	Files       []FileEntry `json:"files"`
	// SignedBy is the key id of the signing key.
	SignedBy string `json:"signed_by"`
	// Signature is the standard base64 of the ed25519 signature over the
	// canonical JSON of the manifest without its signature member.
	Signature string `json:"signature"`

	// raw is the manifest as parsed: signatures are checked over what was
	// received, not over a re-encoding of the struct.
	raw map[string]any
}

// FileEntry is one file of a bundle.
type FileEntry struct {
	// Path is slash-separated, relative to the bundle root.
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Format Format `json:"format"`
	// Rows is the number of data rows.
	Rows int `json:"rows"`
	// Key is the column rows are looked up by; "" for a file read only as a
	// whole. Key values must be strings or integers, present and unique.
	Key string `json:"key,omitempty"`
	// Schema is the JSON Schema (draft-07) of one row; only local "#..."
	// references are allowed.
	Schema      json.RawMessage `json:"schema"`
	Description string          `json:"description,omitempty"`
}

var (
	nameRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)
	keyIDRE  = regexp.MustCompile(`^[0-9a-f]{16}$`)

	manifestKeys = map[string]bool{"name": true, "version": true, "description": true, "published_at": true,
		"expires_at": true, "files": true, "signed_by": true, "signature": true}
	fileKeys = map[string]bool{"path": true, "sha256": true, "format": true, "rows": true, "key": true,
		"schema": true, "description": true}
)

// ParseManifest parses and checks a signed manifest: every field present
// and well-formed. It does not verify the signature (see Load).
func ParseManifest(data []byte) (*Manifest, error) {
	return parseManifest(data, true)
}

// ParseManifestTemplate parses a manifest about to be signed: sha256, rows,
// published_at, signed_by and signature may be missing (Seal fills them).
func ParseManifestTemplate(data []byte) (*Manifest, error) {
	return parseManifest(data, false)
}

func invalidManifest(format string, args ...any) *Error {
	return &Error{Code: CodeManifestInvalid, File: ManifestFile, Msg: fmt.Sprintf(format, args...)}
}

func parseManifest(data []byte, signed bool) (*Manifest, error) {
	if len(data) > MaxManifestBytes {
		return nil, invalidManifest("larger than %d bytes", MaxManifestBytes)
	}
	v, err := DecodeStrict(data)
	if err != nil {
		return nil, invalidManifest("%v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, invalidManifest("not a JSON object")
	}
	if err := checkKeys(obj, manifestKeys, ""); err != nil {
		return nil, err
	}
	if files, ok := obj["files"].([]any); ok {
		for i, f := range files {
			fo, ok := f.(map[string]any)
			if !ok {
				return nil, invalidManifest("files[%d] is not an object", i)
			}
			if err := checkKeys(fo, fileKeys, fmt.Sprintf("files[%d].", i)); err != nil {
				return nil, err
			}
		}
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, invalidManifest("%v", err)
	}
	m.raw = obj
	if err := m.check(signed); err != nil {
		return nil, err
	}
	return &m, nil
}

func checkKeys(obj map[string]any, allowed map[string]bool, prefix string) error {
	var unknown []string
	for k := range obj {
		if !allowed[k] {
			unknown = append(unknown, prefix+k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return invalidManifest("unknown field(s) %s", strings.Join(unknown, ", "))
	}
	return nil
}

// check validates the fields; signed requires the fields Seal fills.
func (m *Manifest) check(signed bool) error {
	if !nameRE.MatchString(m.Name) {
		return invalidManifest("name %q: want 1-64 of [a-z0-9._-], starting with a letter or digit", m.Name)
	}
	if _, err := ParseVersion(m.Version); err != nil {
		return invalidManifest("%v", err)
	}
	if signed && m.PublishedAt.IsZero() {
		return invalidManifest("published_at is missing")
	}
	if m.ExpiresAt != nil && !m.PublishedAt.IsZero() && !m.ExpiresAt.After(m.PublishedAt) {
		return invalidManifest("expires_at %s is not after published_at %s", m.ExpiresAt.Format(time.RFC3339), m.PublishedAt.Format(time.RFC3339))
	}
	if len(m.Files) == 0 {
		return invalidManifest("files is empty")
	}
	if len(m.Files) > MaxFiles {
		return invalidManifest("%d files; at most %d", len(m.Files), MaxFiles)
	}
	seen := map[string]bool{}
	for i := range m.Files {
		f := &m.Files[i]
		if err := checkPath(f.Path); err != nil {
			return invalidManifest("files[%d].path: %v", i, err)
		}
		if lower := strings.ToLower(f.Path); seen[lower] {
			return invalidManifest("files[%d].path %q is listed twice", i, f.Path)
		} else {
			seen[lower] = true
		}
		if (signed || f.SHA256 != "") && !sha256RE.MatchString(f.SHA256) {
			return invalidManifest("files[%d].sha256: want 64 lower-case hex digits", i)
		}
		if f.Format != FormatJSON && f.Format != FormatCSV {
			return invalidManifest("files[%d].format %q: want json or csv", i, f.Format)
		}
		if f.Rows < 0 {
			return invalidManifest("files[%d].rows is negative", i)
		}
		if err := checkSchema(f); err != nil {
			return invalidManifest("files[%d].schema: %v", i, err)
		}
	}
	if signed || m.SignedBy != "" {
		if !keyIDRE.MatchString(m.SignedBy) {
			return invalidManifest("signed_by %q: want a key id (16 lower-case hex digits)", m.SignedBy)
		}
	}
	if signed || m.Signature != "" {
		sig, err := base64.StdEncoding.Strict().DecodeString(m.Signature)
		if err != nil || len(sig) != 64 {
			return invalidManifest("signature: want the standard base64 of 64 bytes")
		}
	}
	return nil
}

func checkPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("empty")
	case len(p) > 255:
		return fmt.Errorf("longer than 255 bytes")
	case strings.ContainsAny(p, "\\:") || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("%q: no backslashes, colons or control characters", p)
	case path.IsAbs(p) || path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("%q: want a clean relative path inside the bundle", p)
	case p == ManifestFile:
		return fmt.Errorf("%q is the manifest", p)
	}
	return nil
}

// checkSchema checks a row schema without compiling it: compiling waits
// until the signature is verified (Load), and only local references are
// allowed, so no schema ever makes us fetch anything.
func checkSchema(f *FileEntry) error {
	if len(bytes.TrimSpace(f.Schema)) == 0 {
		return fmt.Errorf("missing")
	}
	v, err := DecodeStrict(f.Schema)
	if err != nil {
		return err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("not an object")
	}
	if t, ok := obj["type"]; ok && t != "object" {
		return fmt.Errorf(`type must be "object" (one row)`)
	}
	if err := localRefs(obj, 0); err != nil {
		return err
	}
	if f.Key != "" {
		if props, ok := obj["properties"].(map[string]any); ok {
			if _, ok := props[f.Key]; !ok {
				return fmt.Errorf("key %q is not one of its properties", f.Key)
			}
		}
	}
	return nil
}

func localRefs(v any, depth int) error {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if k == "$ref" {
				if s, ok := e.(string); !ok || !strings.HasPrefix(s, "#") {
					return fmt.Errorf("$ref %v: only local references (#...) are allowed", e)
				}
			}
			if err := localRefs(e, depth+1); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range t {
			if err := localRefs(e, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// File returns the entry for path, or nil.
func (m *Manifest) File(path string) *FileEntry {
	for i := range m.Files {
		if m.Files[i].Path == path {
			return &m.Files[i]
		}
	}
	return nil
}

// Ref is "name@version".
func (m *Manifest) Ref() string { return m.Name + "@" + m.Version }

// Properties returns the row schema's top-level properties and their JSON
// types ("string", "integer", ...; several for a union, none when the
// schema does not say). Generate-time checks of lookup steps use it.
func (f *FileEntry) Properties() map[string][]string {
	out := map[string][]string{}
	v, err := DecodeStrict(f.Schema)
	if err != nil {
		return out
	}
	obj, _ := v.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	for name, p := range props {
		out[name] = schemaTypes(p)
	}
	return out
}

func schemaTypes(p any) []string {
	po, _ := p.(map[string]any)
	switch t := po["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// signingBytes is what the signature covers: the canonical JSON of the
// manifest as received, without its "signature" member.
func (m *Manifest) signingBytes() ([]byte, error) {
	obj := m.raw
	if obj == nil {
		var err error
		if obj, err = m.generic(); err != nil {
			return nil, err
		}
	}
	cp := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "signature" {
			cp[k] = v
		}
	}
	return AppendCanonical(nil, cp)
}

// generic is the manifest struct as plain decoded JSON.
func (m *Manifest) generic() (map[string]any, error) {
	b, err := m.MarshalIndent()
	if err != nil {
		return nil, err
	}
	v, err := DecodeStrict(b)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// MarshalIndent renders the manifest as manifest.json is written: two-space
// indent, no HTML escaping, a final newline.
func (m *Manifest) MarshalIndent() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Digest is the hex sha256 of the canonical manifest including its
// signature: two syncs of one name@version are the same artifact exactly
// when their digests are equal.
func (m *Manifest) Digest() (string, error) {
	c, err := m.Canonical()
	if err != nil {
		return "", err
	}
	return sha256Hex(c), nil
}

// Canonical is the canonical JSON of the whole manifest, signature
// included.
func (m *Manifest) Canonical() ([]byte, error) {
	obj := m.raw
	if obj == nil {
		var err error
		if obj, err = m.generic(); err != nil {
			return nil, err
		}
	}
	return AppendCanonical(nil, obj)
}

func sha256Hex(b []byte) string {
	h := sha256Sum(b)
	return hex.EncodeToString(h[:])
}

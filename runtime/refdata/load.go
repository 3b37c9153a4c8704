package refdata

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// DefaultMaxBytes bounds a bundle's size when Options.MaxBytes is 0: the
// download, and separately the sum of its unpacked files.
const DefaultMaxBytes = 512 << 20

// maxArchiveEntries bounds the entries of an archive.
const maxArchiveEntries = 10 * MaxFiles

// Options configure loading and verification. The zero value trusts no
// key, so it verifies nothing successfully.
type Options struct {
	// TrustedKeys are the keys this deployment accepts bundles from.
	TrustedKeys []*PublicKey
	// MaxBytes bounds a bundle's size (0: DefaultMaxBytes).
	MaxBytes int64
	// HTTPClient fetches URL sources (nil: http.DefaultClient; the ctx of
	// the call bounds the fetch).
	HTTPClient *http.Client
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// CurrentTime is the time by o's clock (Now, else time.Now).
func (o *Options) CurrentTime() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o *Options) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

// Bundle is a verified bundle: only Load makes one, so holding a *Bundle
// means every check passed.
type Bundle struct {
	Manifest *Manifest
	// Files are in manifest order.
	Files []*File
	// Source is where it was loaded from.
	Source string

	verified bool
}

// Verified reports whether Load made b: only a verified bundle may be
// cached.
func (b *Bundle) Verified() bool { return b != nil && b.verified }

// File is one verified file of a bundle.
type File struct {
	Entry *FileEntry
	Rows  []Row
}

// File returns the file at path, or nil.
func (b *Bundle) File(path string) *File {
	for _, f := range b.Files {
		if f.Entry.Path == path {
			return f
		}
	}
	return nil
}

// Rows is the number of rows over all files.
func (b *Bundle) Rows() int {
	n := 0
	for _, f := range b.Files {
		n += len(f.Rows)
	}
	return n
}

// source yields a bundle's manifest and files.
type source interface {
	manifest() ([]byte, error)
	file(path string) ([]byte, error)
	close()
}

// Load reads a bundle from src — a directory, a .tar.gz archive file, or
// the http(s) URL of one — and verifies it, in this order: manifest,
// signature (untrusted_key, signature_invalid), every file's presence and
// sha256 (file_missing, sha256_mismatch), expiry (expired), and every row
// against its schema (schema_invalid). The first failure is returned as an
// *Error; nothing of a failed bundle is returned.
func Load(ctx context.Context, src string, o Options) (*Bundle, error) {
	s, err := openSource(ctx, src, o)
	if err != nil {
		return nil, err
	}
	defer s.close()
	b, err := verify(ctx, s, o)
	if err != nil {
		return nil, err
	}
	b.Source = sourceLabel(src)
	return b, nil
}

// sourceLabel is how the cache records a source: URLs without userinfo,
// query or fragment (they may carry credentials, e.g. a presigned URL's
// signature), paths made absolute.
func sourceLabel(src string) string {
	if isURL(src) {
		if u, err := url.Parse(src); err == nil {
			u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
			return u.String()
		}
		return "(unparsable URL)"
	}
	if abs, err := filepath.Abs(src); err == nil {
		return abs
	}
	return src
}

func isURL(src string) bool {
	return strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://")
}

func openSource(ctx context.Context, src string, o Options) (source, error) {
	if isURL(src) {
		data, err := fetch(ctx, src, o)
		if err != nil {
			return nil, err
		}
		return readArchive(bytes.NewReader(data), o.maxBytes())
	}
	st, err := os.Stat(src)
	if err != nil {
		return nil, &Error{Code: CodeFetchFailed, Msg: err.Error(), Err: err}
	}
	if st.IsDir() {
		root, err := os.OpenRoot(src)
		if err != nil {
			return nil, &Error{Code: CodeFetchFailed, Msg: err.Error(), Err: err}
		}
		return &dirSource{root: root, max: o.maxBytes()}, nil
	}
	if st.Size() > o.maxBytes() {
		return nil, &Error{Code: CodeTooLarge, Msg: fmt.Sprintf("%s is %d bytes; the limit is %d", src, st.Size(), o.maxBytes())}
	}
	f, err := os.Open(src)
	if err != nil {
		return nil, &Error{Code: CodeFetchFailed, Msg: err.Error(), Err: err}
	}
	defer f.Close()
	return readArchive(f, o.maxBytes())
}

func fetch(ctx context.Context, url string, o Options) ([]byte, error) {
	client := o.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, &Error{Code: CodeFetchFailed, Msg: err.Error(), Err: err}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, &Error{Code: CodeFetchFailed, Msg: err.Error(), Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &Error{Code: CodeFetchFailed, Msg: fmt.Sprintf("GET %s: %s", url, resp.Status)}
	}
	max := o.maxBytes()
	if resp.ContentLength > max {
		return nil, &Error{Code: CodeTooLarge, Msg: fmt.Sprintf("GET %s: %d bytes; the limit is %d", url, resp.ContentLength, max)}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, &Error{Code: CodeTruncated, Msg: fmt.Sprintf("GET %s: the body ended after %d of %d bytes", url, len(data), resp.ContentLength), Err: err}
	case err != nil:
		return nil, &Error{Code: CodeFetchFailed, Msg: fmt.Sprintf("GET %s: %v", url, err), Err: err}
	case int64(len(data)) > max:
		return nil, &Error{Code: CodeTooLarge, Msg: fmt.Sprintf("GET %s: more than %d bytes", url, max)}
	}
	return data, nil
}

// dirSource reads a bundle directory; os.Root keeps every read inside it,
// symlinks included.
type dirSource struct {
	root *os.Root
	max  int64
	read int64
}

func (d *dirSource) manifest() ([]byte, error) {
	b, err := d.readFile(ManifestFile, MaxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Code: CodeFileMissing, File: ManifestFile, Msg: "no manifest.json in the bundle", Err: err}
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

func (d *dirSource) file(p string) ([]byte, error) {
	b, err := d.readFile(filepath.FromSlash(p), d.max-d.read)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Code: CodeFileMissing, File: p, Msg: "listed in the manifest but absent", Err: err}
	}
	if err != nil {
		return nil, err
	}
	d.read += int64(len(b))
	return b, nil
}

func (d *dirSource) readFile(name string, limit int64) ([]byte, error) {
	f, err := d.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{Code: CodeFileMissing, File: filepath.ToSlash(name), Msg: "not a regular file"}
	}
	if st.Size() > limit {
		return nil, &Error{Code: CodeTooLarge, File: filepath.ToSlash(name), Msg: fmt.Sprintf("%d bytes; the limit is %d", st.Size(), limit)}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &Error{Code: CodeFetchFailed, File: filepath.ToSlash(name), Msg: err.Error(), Err: err}
	}
	if int64(len(b)) > limit {
		return nil, &Error{Code: CodeTooLarge, File: filepath.ToSlash(name), Msg: fmt.Sprintf("more than %d bytes", limit)}
	}
	return b, nil
}

func (d *dirSource) close() { _ = d.root.Close() }

// archiveSource is an unpacked .tar.gz held in memory.
type archiveSource struct {
	files map[string][]byte
}

func (a *archiveSource) manifest() ([]byte, error) {
	b, ok := a.files[ManifestFile]
	if !ok {
		return nil, &Error{Code: CodeFileMissing, File: ManifestFile, Msg: "no manifest.json in the archive"}
	}
	return b, nil
}

func (a *archiveSource) file(p string) ([]byte, error) {
	b, ok := a.files[p]
	if !ok {
		return nil, &Error{Code: CodeFileMissing, File: p, Msg: "listed in the manifest but not in the archive"}
	}
	return b, nil
}

func (a *archiveSource) close() {}

func archiveErr(err error) *Error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Code: CodeTruncated, Msg: "the archive ends early", Err: err}
	}
	return &Error{Code: CodeArchiveInvalid, Msg: err.Error(), Err: err}
}

// readArchive unpacks a gzip'd tar. Its bundle root is the archive root, or
// its one top-level directory when manifest.json is there ("name/...", as
// `tar czf x.tar.gz name/` makes).
func readArchive(r io.Reader, max int64) (*archiveSource, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, archiveErr(err)
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	var total int64
	for n := 0; ; n++ {
		if n > maxArchiveEntries {
			return nil, &Error{Code: CodeTooLarge, Msg: fmt.Sprintf("more than %d archive entries", maxArchiveEntries)}
		}
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, archiveErr(err)
		}
		name := strings.TrimPrefix(h.Name, "./")
		switch h.Typeflag {
		case tar.TypeDir, tar.TypeXGlobalHeader:
			continue
		case tar.TypeReg:
		default:
			return nil, &Error{Code: CodeArchiveInvalid, File: name, Msg: "not a regular file (bundles hold regular files only)"}
		}
		if name == "" || path.Clean(name) != name || path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return nil, &Error{Code: CodeArchiveInvalid, File: h.Name, Msg: "entry name is not a clean relative path"}
		}
		if _, dup := files[name]; dup {
			return nil, &Error{Code: CodeArchiveInvalid, File: name, Msg: "entry appears twice"}
		}
		if total+h.Size > max {
			return nil, &Error{Code: CodeTooLarge, File: name, Msg: fmt.Sprintf("the unpacked archive exceeds %d bytes", max)}
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, archiveErr(err)
		}
		total += int64(len(b))
		files[name] = b
	}
	// Read to the gzip trailer so its CRC and length are checked: a cut in
	// the padding after the tar's end would otherwise pass unnoticed.
	if _, err := io.Copy(io.Discard, io.LimitReader(gz, max)); err != nil {
		return nil, archiveErr(err)
	}
	if _, ok := files[ManifestFile]; !ok {
		prefix := ""
		for name := range files {
			if dir, base := path.Split(name); base == ManifestFile && strings.Count(dir, "/") == 1 {
				if prefix != "" {
					return nil, &Error{Code: CodeArchiveInvalid, Msg: fmt.Sprintf("two bundle roots: %s and %s", prefix, dir)}
				}
				prefix = dir
			}
		}
		if prefix != "" {
			rooted := map[string][]byte{}
			for name, b := range files {
				if rest, ok := strings.CutPrefix(name, prefix); ok {
					rooted[rest] = b
				}
			}
			files = rooted
		}
	}
	return &archiveSource{files: files}, nil
}

func verify(ctx context.Context, s source, o Options) (*Bundle, error) {
	raw, err := s.manifest()
	if err != nil {
		return nil, err
	}
	m, err := ParseManifest(raw)
	if err != nil {
		return nil, err
	}
	ref := m.Ref()
	tag := func(err error) error {
		var e *Error
		if errors.As(err, &e) && e.Bundle == "" {
			e.Bundle = ref
		}
		return err
	}
	if len(o.TrustedKeys) == 0 {
		return nil, &Error{Code: CodeUntrustedKey, Bundle: ref, File: ManifestFile, Msg: "no trusted keys are configured"}
	}
	if err := VerifySignature(m, o.TrustedKeys); err != nil {
		return nil, err
	}
	datas := make([][]byte, len(m.Files))
	for i := range m.Files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := &m.Files[i]
		b, err := s.file(f.Path)
		if err != nil {
			return nil, tag(err)
		}
		if got := sha256Sum(b); hex.EncodeToString(got[:]) != f.SHA256 {
			return nil, &Error{Code: CodeSHA256Mismatch, Bundle: ref, File: f.Path,
				Msg: fmt.Sprintf("sha256 is %s, the manifest says %s", hex.EncodeToString(got[:]), f.SHA256)}
		}
		datas[i] = b
	}
	if now := o.CurrentTime(); m.ExpiresAt != nil && !now.Before(*m.ExpiresAt) {
		return nil, &Error{Code: CodeExpired, Bundle: ref, File: ManifestFile,
			Msg: fmt.Sprintf("expired at %s", m.ExpiresAt.UTC().Format(time.RFC3339))}
	}
	b := &Bundle{Manifest: m, verified: true}
	for i := range m.Files {
		f, err := readFile(ctx, &m.Files[i], datas[i])
		if err != nil {
			return nil, tag(err)
		}
		datas[i] = nil
		b.Files = append(b.Files, f)
	}
	return b, nil
}

// readFile compiles a file's schema and parses its rows.
func readFile(ctx context.Context, e *FileEntry, data []byte) (*File, error) {
	rs, err := compileSchema(e)
	if err != nil {
		return nil, &Error{Code: CodeManifestInvalid, File: ManifestFile, Msg: fmt.Sprintf("schema of %s: %v", e.Path, err)}
	}
	rows, err := parseRows(ctx, e, data, rs)
	if err != nil {
		return nil, err
	}
	if len(rows) != e.Rows {
		return nil, &Error{Code: CodeManifestInvalid, File: ManifestFile,
			Msg: fmt.Sprintf("%s has %d rows; the manifest says %d", e.Path, len(rows), e.Rows)}
	}
	return &File{Entry: e, Rows: rows}, nil
}

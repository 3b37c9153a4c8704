package refdata

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/macrokit/macrokit-go/internal/atomicfile"
)

// SealOptions tune Seal.
type SealOptions struct {
	// PublishedAt is the publication time (zero: now, to the second).
	PublishedAt time.Time
	// ExpiresAt, when set, replaces the manifest's expires_at.
	ExpiresAt *time.Time
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Seal is the publisher's step: it reads dir's manifest.json (a template:
// sha256, rows, published_at, signed_by and signature may be missing),
// fills each file's sha256 and row count, refuses rows that do not fit
// their schema, signs with k and writes manifest.json back (atomically).
func Seal(ctx context.Context, dir string, k *PrivateKey, o SealOptions) (*Manifest, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, &Error{Code: CodeFetchFailed, Msg: err.Error(), Err: err}
	}
	defer root.Close()
	d := &dirSource{root: root, max: DefaultMaxBytes}
	raw, err := d.manifest()
	if err != nil {
		return nil, err
	}
	m, err := ParseManifestTemplate(raw)
	if err != nil {
		return nil, err
	}
	for i := range m.Files {
		e := &m.Files[i]
		data, err := d.file(e.Path)
		if err != nil {
			return nil, err
		}
		e.SHA256 = sha256Hex(data)
		rs, err := compileSchema(e)
		if err != nil {
			return nil, invalidManifest("schema of %s: %v", e.Path, err)
		}
		rows, err := parseRows(ctx, e, data, rs)
		if err != nil {
			return nil, err
		}
		e.Rows = len(rows)
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	m.PublishedAt = o.PublishedAt
	if m.PublishedAt.IsZero() {
		m.PublishedAt = now().UTC().Truncate(time.Second)
	}
	if o.ExpiresAt != nil {
		t := o.ExpiresAt.UTC()
		m.ExpiresAt = &t
	}
	if err := Sign(m, k, now()); err != nil {
		return nil, err
	}
	out, err := m.MarshalIndent()
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, ManifestFile), 0o644, out); err != nil {
		return nil, err
	}
	return m, nil
}

// Pack writes dir's bundle — manifest.json, then each listed file in
// manifest order — to w as a .tar.gz. Entries are rooted at the archive
// root, with mode 0644 and the publication time, so the same bundle packs
// to the same bytes. Pack does not verify; Load does.
func Pack(dir string, w io.Writer) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	d := &dirSource{root: root, max: DefaultMaxBytes}
	raw, err := d.manifest()
	if err != nil {
		return err
	}
	m, err := ParseManifest(raw)
	if err != nil {
		return err
	}
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	put := func(name string, b []byte) error {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(b)), ModTime: m.PublishedAt.UTC(), Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err := tw.Write(b)
		return err
	}
	if err := put(ManifestFile, raw); err != nil {
		return err
	}
	for _, e := range m.Files {
		b, err := d.file(e.Path)
		if err != nil {
			return err
		}
		if err := put(e.Path, b); err != nil {
			return fmt.Errorf("%s: %w", e.Path, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

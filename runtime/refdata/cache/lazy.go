package cache

import (
	"context"
	"encoding/json"
	"sync"
)

// Lazy opens the store on its first lookup, so binaries can offer reference
// data without touching the cache in runs whose macros never read it.
type Lazy struct {
	Options Options

	once  sync.Once
	store *Store
	err   error
}

// Store opens the store once and returns it.
func (l *Lazy) Store(ctx context.Context) (*Store, error) {
	l.once.Do(func() {
		// The store outlives the call that opened it; Close ends it.
		l.store, l.err = Open(context.WithoutCancel(ctx), l.Options)
	})
	return l.store, l.err
}

// Lookup opens the store if needed and reads the row.
func (l *Lazy) Lookup(ctx context.Context, bundle, file, key string) (map[string]any, error) {
	s, err := l.Store(ctx)
	if err != nil {
		return nil, err
	}
	return s.Lookup(ctx, bundle, file, key)
}

// LookupRef opens the store if needed and reads the row and the
// name@version it came from.
func (l *Lazy) LookupRef(ctx context.Context, bundle, file, key string) (map[string]any, string, error) {
	s, err := l.Store(ctx)
	if err != nil {
		return nil, "", err
	}
	return s.LookupRef(ctx, bundle, file, key)
}

// LookupRaw opens the store if needed and reads the row as canonical JSON.
func (l *Lazy) LookupRaw(ctx context.Context, bundle, file, key string) (json.RawMessage, error) {
	s, err := l.Store(ctx)
	if err != nil {
		return nil, err
	}
	return s.LookupRaw(ctx, bundle, file, key)
}

// Close closes the store if it was opened.
func (l *Lazy) Close() error {
	l.once.Do(func() {}) // a later Store call must not open one
	if l.store != nil {
		return l.store.Close()
	}
	return nil
}

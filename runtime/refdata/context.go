package refdata

import "context"

// Lookuper reads one row of reference data by key. The cache's Store and
// Lazy (package [github.com/macrokit/macrokit-go/runtime/refdata/cache]) are
// Lookupers; tests can supply a map-backed one.
//
// bundle is "name" (its current version) or "name@version"; file is the
// path of a file in the bundle; key is the value of that file's key column
// as text (integers in decimal). The row comes back as a map of its
// columns with numbers as json.Number, ready for runtime.Convert.
type Lookuper interface {
	Lookup(ctx context.Context, bundle, file, key string) (map[string]any, error)
}

// RefLookuper is a Lookuper that also says which version it read: the
// name@version of the bundle ("" when it does not know, e.g. the bundle is
// not cached). The cache's Store and Lazy are RefLookupers.
type RefLookuper interface {
	Lookuper
	LookupRef(ctx context.Context, bundle, file, key string) (row map[string]any, ref string, err error)
}

type ctxKey struct{}

// NewContext returns ctx carrying l: the binary puts its store in the
// context of each run, and generated lookup steps find it there.
func NewContext(ctx context.Context, l Lookuper) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// FromContext returns the Lookuper in ctx, or nil.
func FromContext(ctx context.Context) Lookuper {
	l, _ := ctx.Value(ctxKey{}).(Lookuper)
	return l
}

// Lookup is what a generated `lookup` step calls: the row of file in bundle
// whose key is key, from the Lookuper in ctx (not_configured when there is
// none). Its errors are *Error: not_found, expired, stale, untrusted_key,
// cache.
func Lookup(ctx context.Context, bundle, file, key string) (map[string]any, error) {
	l := FromContext(ctx)
	if l == nil {
		return nil, &Error{Code: CodeNotConfigured, Bundle: bundle, File: file, Msg: "no reference-data store in this binary's context (refdata.NewContext)"}
	}
	return l.Lookup(ctx, bundle, file, key)
}

// LookupRef is Lookup through l (the Lookuper in ctx when l is nil) that
// also returns the name@version read, when l is a RefLookuper that knows
// it. The runtime's lookup step records it as evidence.
func LookupRef(ctx context.Context, l Lookuper, bundle, file, key string) (map[string]any, string, error) {
	if l == nil {
		l = FromContext(ctx)
	}
	if l == nil {
		return nil, "", &Error{Code: CodeNotConfigured, Bundle: bundle, File: file, Msg: "no reference-data store in this binary's context (refdata.NewContext)"}
	}
	if rl, ok := l.(RefLookuper); ok {
		return rl.LookupRef(ctx, bundle, file, key)
	}
	row, err := l.Lookup(ctx, bundle, file, key)
	return row, "", err
}

// Package goprim reads a deployment's typed Go primitives from source, so
// `macrokit generate --primitives DIR` knows their signatures without a
// hand-kept copy, and writes the registration the deployment's binary uses.
//
// A primitive is an exported top-level function marked with a
// //macrokit:primitive directive (optionally followed by its spec name;
// the default is the function's name in snake_case):
//
//	// Greeting builds a greeting line.
//	//macrokit:primitive
//	func FormatGreeting(ctx context.Context, a GreetingArgs) (Greeting, error)
//
// The arguments are a struct type of the same package whose exported
// fields, named by their json tags, are the primitive's parameters
// (required unless omitempty or a pointer); the result is any JSON-shaped
// type (or none: func(context.Context, A) error). Doc comments become the
// descriptions editors and `macrokit lint` show.
//
// A primitive that works on the page takes the call's page right after
// the context, as *runtime.Page (the typed handle whose actions and reads
// are recorded as the call's steps):
//
//	//macrokit:primitive
//	func OpenNewest(ctx context.Context, page *runtime.Page, a OpenArgs) (Opened, error)
//
// Its signature says so (spec.Signature.Page): a macro that calls it is a
// page macro. It is registered with runtime.TypedPagePrimitive (or
// TypedPageAction).
package goprim

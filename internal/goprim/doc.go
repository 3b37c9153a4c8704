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
package goprim

package runtime

import (
	"context"
	"encoding/json"
	"fmt"
)

// TypedPrimitive adapts a typed Go function to a Primitive: the step's
// arguments are decoded into A (a struct whose json tags name the
// arguments), and the returned R becomes the step's `into` value. This is
// the shape `macrokit generate --primitives` reads signatures from, and the
// registration it generates (generated.Primitives) uses.
func TypedPrimitive[A, R any](f func(context.Context, A) (R, error)) Primitive {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("arguments: %v", err)
		}
		return f(ctx, a)
	}
}

// TypedAction is TypedPrimitive for a function with no result (a primitive
// step without `into`).
func TypedAction[A any](f func(context.Context, A) error) Primitive {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var a A
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("arguments: %v", err)
		}
		return nil, f(ctx, a)
	}
}

package spec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// assignable reports why a value of type src cannot go where dst is
// expected ("" when it can). Unknown (any) types are accepted: they are
// checked at run time.
func assignable(src, dst *Type) string {
	if src == nil || dst == nil || src.Kind == KindAny || dst.Kind == KindAny {
		return ""
	}
	if src.Kind == kindNull {
		return fmt.Sprintf("expected %s, got null", article(dst))
	}
	mismatch := fmt.Sprintf("expected %s, got %s", article(dst), article(src))
	switch dst.Kind {
	case KindNumber:
		if src.Kind != KindNumber && src.Kind != KindInteger {
			return mismatch
		}
	case KindString, KindInteger, KindBoolean:
		if src.Kind != dst.Kind {
			return mismatch
		}
	case KindArray:
		if src.Kind != KindArray {
			return mismatch
		}
		if why := assignable(src.Items, dst.Items); why != "" {
			return "list element: " + why
		}
	case KindObject:
		if src.Kind != KindObject {
			return mismatch
		}
		if len(src.Props) == 0 || len(dst.Props) == 0 {
			return ""
		}
		for _, sp := range src.Props {
			dp := dst.Prop(sp.Name)
			if dp == nil {
				return fmt.Sprintf("unknown field %q%s", sp.Name, didYouMean(sp.Name, dst.propNames()))
			}
			if why := assignable(sp.Type, dp.Type); why != "" {
				return fmt.Sprintf("field %q: %s", sp.Name, why)
			}
		}
		for _, dp := range dst.Props {
			if dp.Required && src.Prop(dp.Name) == nil {
				return fmt.Sprintf("missing required field %q", dp.Name)
			}
		}
	}
	return ""
}

// comparable reports whether values of a and b can be compared for equality.
func comparable(a, b *Type) bool {
	return assignable(a, b) == "" || assignable(b, a) == ""
}

// jsonText renders a literal value as JSON, for messages.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// enumHas reports whether v is one of enum (numbers compare by value).
func enumHas(enum []any, v any) bool {
	for _, e := range enum {
		if reflect.DeepEqual(normalizeNumber(e), normalizeNumber(v)) {
			return true
		}
	}
	return false
}

func normalizeNumber(v any) any {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case uint64:
		return float64(n)
	}
	return v
}

// enumText renders enum values for messages: "free", "pro" or "enterprise".
func enumText(enum []any) string {
	s := make([]string, len(enum))
	for i, e := range enum {
		s[i] = jsonText(e)
	}
	if len(s) > 10 {
		return strings.Join(s[:10], ", ") + ", ..."
	}
	return orList(s)
}

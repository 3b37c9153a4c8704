package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/refdata"
)

// mapRefdata is a RefLookuper over rows in memory: bundle "tiers" at
// version 1.0.0, file tiers.csv keyed by tier.
type mapRefdata map[string]map[string]any

func (m mapRefdata) Lookup(ctx context.Context, bundle, file, key string) (map[string]any, error) {
	row, _, err := m.LookupRef(ctx, bundle, file, key)
	return row, err
}

func (m mapRefdata) LookupRef(ctx context.Context, bundle, file, key string) (map[string]any, string, error) {
	if bundle != "tiers" {
		return nil, "", &refdata.Error{Code: refdata.CodeNotFound, Bundle: bundle, Msg: "no current version cached (sync it, or widen its pin)"}
	}
	row, ok := m[key]
	if !ok {
		return nil, "tiers@1.0.0", &refdata.Error{Code: refdata.CodeNotFound, Bundle: "tiers@1.0.0", File: file, Column: "tier", Msg: "no row with key \"" + key + "\""}
	}
	return row, "tiers@1.0.0", nil
}

func TestLookupStep(t *testing.T) {
	rows := mapRefdata{"pro": {"tier": "pro", "monthly_price": json.Number("29")}}
	cases := []struct {
		name      string
		d         *Dispatcher
		ctx       refdata.Lookuper // put on the call's context
		bundle    string
		key       string
		ok        bool
		result    string
		diagnosis string
		msg       string
		detail    map[string]any
	}{
		{name: "found", d: &Dispatcher{Refdata: rows}, bundle: "tiers", key: "pro", ok: true, result: `{"monthly_price":29,"tier":"pro"}`,
			detail: map[string]any{"bundle": "tiers@1.0.0", "file": "tiers.csv", "key": "pro", "found": true}},
		{name: "found through the context", d: &Dispatcher{}, ctx: rows, bundle: "tiers", key: "pro", ok: true, result: `{"monthly_price":29,"tier":"pro"}`},
		{name: "missing key", d: &Dispatcher{Refdata: rows}, bundle: "tiers", key: "gold", diagnosis: "not_found",
			msg:    `steps[0] (lookup) failed: lookup of key "gold" in tiers tiers.csv: not_found: tiers@1.0.0: tiers.csv: column tier: no row with key "gold"`,
			detail: map[string]any{"bundle": "tiers@1.0.0", "file": "tiers.csv", "key": "gold", "found": false}},
		{name: "bundle not synced", d: &Dispatcher{Refdata: rows}, bundle: "other", key: "pro", diagnosis: "not_found", msg: "not_found: other: no current version cached"},
		{name: "no store", d: &Dispatcher{}, bundle: "tiers", key: "pro", diagnosis: "not_configured", msg: "not_configured: tiers: tiers.csv: no reference-data store"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := &Macro{Name: "m", Intent: "test", Risk: RiskRead, Handler: func(ctx context.Context, x *Exec, _ json.RawMessage) (any, error) {
				return x.Lookup(ctx, "steps[0]", tc.bundle, "tiers.csv", tc.key)
			}}
			reg, err := NewRegistry(m)
			if err != nil {
				t.Fatal(err)
			}
			tc.d.Registry = reg
			ctx := context.Background()
			if tc.ctx != nil {
				ctx = refdata.NewContext(ctx, tc.ctx)
			}
			out := tc.d.Dispatch(ctx, Call{ID: "c", Name: "m", Args: json.RawMessage(`{}`)})
			if out.OK != tc.ok {
				t.Fatalf("ok = %v, want %v: %+v", out.OK, tc.ok, out.Error)
			}
			if len(out.Steps) != 1 || out.Steps[0].Kind != "lookup" {
				t.Fatalf("steps = %+v", out.Steps)
			}
			st := out.Steps[0]
			if tc.ok {
				if string(out.Result) != tc.result || st.Status != "passed" {
					t.Errorf("result = %s, step %+v", out.Result, st)
				}
			} else {
				if out.Error.Code != CodeStepFailed || !strings.Contains(out.Error.Message, tc.msg) || st.Diagnosis != tc.diagnosis || st.Status != "failed" {
					t.Errorf("error = %+v, step = %+v", out.Error, st)
				}
			}
			for k, v := range tc.detail {
				if st.Detail[k] != v {
					t.Errorf("detail[%s] = %v, want %v", k, st.Detail[k], v)
				}
			}
		})
	}
}

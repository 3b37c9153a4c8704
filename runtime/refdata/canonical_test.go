package refdata_test

import (
	"strings"
	"testing"

	"github.com/macrokit/macrokit-go/runtime/refdata"
)

func TestCanonical(t *testing.T) {
	cases := []struct {
		name, in, want, err string
	}{
		{name: "sorted keys, no whitespace", in: "{ \"b\" : 1,\n \"a\" : [ true, false, null ] }", want: `{"a":[true,false,null],"b":1}`},
		{name: "nested objects sorted", in: `{"z":{"y":1,"x":2},"a":{}}`, want: `{"a":{},"z":{"x":2,"y":1}}`},
		{name: "keys by UTF-8 bytes", in: `{"é":1,"z":2,"Z":3,"":4}`, want: `{"":4,"Z":3,"z":2,"é":1}`},
		{name: "escapes", in: `"a\"b\\c\/d\u0001\b\f\n\r\t"`, want: `"a\"b\\c/d\u0001\b\f\n\r\t"`},
		{name: "non-ASCII raw", in: `"\u00e9\u2028😀<>&"`, want: "\"é\u2028😀<>&\""},
		{name: "DEL and 0x1f", in: `"\u001f\u007f"`, want: "\"\\u001f\x7f\""},
		{name: "integers plain", in: `[0, -0, 1.0, 1e2, 100, -5, 12345678901234567]`, want: `[0,0,1,100,100,-5,12345678901234568]`},
		{name: "fractions shortest", in: `[0.5, 1.25e-7, 3.14159, 1e21, 1.5e300]`, want: `[0.5,1.25e-07,3.14159,1e+21,1.5e+300]`},
		{name: "duplicate key", in: `{"a":1,"a":2}`, err: "duplicate key"},
		{name: "nested duplicate key", in: `{"x":[{"a":1,"b":2,"a":3}]}`, err: "duplicate key"},
		{name: "trailing data", in: `{} {}`, err: "trailing"},
		{name: "invalid UTF-8", in: "\"\xff\"", err: "UTF-8"},
		{name: "overflow", in: `1e400`, err: "number"},
		{name: "too deep", in: strings.Repeat("[", 70) + strings.Repeat("]", 70), err: "deeper"},
		{name: "truncated", in: `{"a":`, err: "EOF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := refdata.Canonical([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			again, err := refdata.Canonical(got)
			if err != nil || string(again) != string(got) {
				t.Fatalf("not idempotent: %s, %v", again, err)
			}
		})
	}
}

package demosite

import (
	"bytes"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDriftEditsApply: every drift edit matches its page exactly once, so
// a change to a page cannot silently turn a drift mode into no drift; and
// the drifted pages say what the mode promises.
func TestDriftEditsApply(t *testing.T) {
	for mode, files := range driftEdits {
		for file, edits := range files {
			body, err := staticFiles.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range edits {
				if n := bytes.Count(body, []byte(e[0])); n != 1 {
					t.Errorf("%s %s: %q matches %d times, want once", mode, file, e[0], n)
				}
				body = bytes.Replace(body, []byte(e[0]), []byte(e[1]), 1)
			}
		}
	}
	cases := []struct {
		mode, page   string
		want, absent []string
	}{
		{DriftRelabel, "/customers", []string{"Create customer</button>", ">E-mail address<", ">Add<", ">Find a customer<", `id="new-customer-title">New customer<`},
			[]string{"New customer</button>", `customer-email">Email<`, ">Save<"}},
		{DriftRelabel, "/settings", []string{">Weekly summary<", ">Apply settings<", ">Email notifications<"}, []string{">Weekly report<"}},
		{DriftDecoy, "/customers", []string{"Import customers</button>", "data-decoy", `data-testid="new-customer"`}, []string{"New customer</button>"}},
		{DriftNone, "/customers", []string{"New customer</button>", `customer-email">Email<`}, []string{"data-decoy"}},
	}
	for _, tc := range cases {
		srv := httptest.NewServer(New(Options{Drift: tc.mode}).Handler())
		resp, err := srv.Client().Get(srv.URL + tc.page)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		for _, w := range tc.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%q %s lacks %q", tc.mode, tc.page, w)
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(string(b), a) {
				t.Errorf("%q %s still has %q", tc.mode, tc.page, a)
			}
		}
	}
	if err := (Options{Drift: "bogus"}).Check(); err == nil {
		t.Error("Check accepted drift mode bogus")
	}
}

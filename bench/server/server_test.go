package server

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestPagesServed(t *testing.T) {
	s := New()
	defer s.Close()
	for page, want := range map[string]string{
		"/click.html":      `id="add"`,
		"/async.html":      `/api/slow?ms=`,
		"/fill.html":       `<label for="name">Full name</label>`,
		"/perception.html": `['button', 500]`,
		"/":                `perception.html`,
	} {
		res, err := http.Get(s.URL + page)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("%s: status %d, body lacks %q", page, res.StatusCode, want)
		}
		if cc := res.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("%s: Cache-Control %q", page, cc)
		}
	}
}

func TestSlow(t *testing.T) {
	s := New()
	defer s.Close()
	res, err := http.Get(s.URL + "/api/slow?ms=0&seq=7")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got struct {
		MS  int    `json:"ms"`
		Seq string `json:"seq"`
	}
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.MS != 0 || got.Seq != "7" || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("got %+v, content-type %q", got, res.Header.Get("Content-Type"))
	}
	for _, bad := range []string{"-1", "x", "10001"} {
		r, err := http.Get(s.URL + "/api/slow?ms=" + bad)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusBadRequest {
			t.Errorf("ms=%s: status %d, want 400", bad, r.StatusCode)
		}
	}
}

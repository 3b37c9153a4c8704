package ghstub

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestTokens(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{in: `repo:a/b  is:issue`, want: []string{"repo:a/b", "is:issue"}},
		{in: `-label:"good first issue" x`, want: []string{"-label:good first issue", "x"}},
		{in: `"two words"`, want: []string{"two words"}},
		{in: `label:"open`, err: true},
		{in: ``, want: nil},
	}
	for _, tc := range cases {
		got, err := tokens(tc.in)
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("tokens(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func TestSearchIssues(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	s := New(Options{Now: now})
	defer s.Close()
	cases := []struct {
		name    string
		q       string
		extra   string
		numbers []float64
		status  int
		message string
	}{
		{name: "stale issues", q: `repo:acme/widgets is:issue is:open created:<2025-03-03T12:00:00Z comments:<=3 -label:bug -label:"good first issue" -label:security -label:pinned`,
			extra: "&sort=created&order=asc", numbers: []float64{1, 5, 8}, status: 200},
		{name: "title words, created before", q: `repo:acme/widgets is:issue in:title created:<2025-05-29T12:00:00Z App crashes when config file is missing`,
			numbers: []float64{4}, status: 200},
		{name: "pull requests only", q: `repo:ACME/widgets is:pr label:enhancement`, numbers: []float64{14}, status: 200},
		{name: "date only, descending", q: `repo:acme/widgets is:issue state:closed created:>=2025-01-01`, numbers: []float64{4}, status: 200},
		{name: "page size capped at 100", q: `repo:acme/widgets`, extra: "&per_page=500&sort=created&order=asc", status: 200,
			numbers: []float64{6, 1, 7, 3, 16, 2, 5, 9, 8, 4, 15, 14, 20, 21, 10, 11, 22, 12, 13, 23}},
		{name: "unknown repository", q: `repo:acme/nope is:issue`, numbers: []float64{}, status: 200},
		{name: "unsupported qualifier", q: `repo:acme/widgets author:alice`, status: 422, message: "author"},
		{name: "negated qualifier", q: `repo:acme/widgets -is:open`, status: 422, message: "-label"},
		{name: "bad date", q: `repo:acme/widgets created:<yesterday`, status: 422, message: "created"},
		{name: "no repo", q: `is:issue crash`, status: 422, message: "repo:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.URL+"/search/issues?q="+url.QueryEscape(tc.q)+tc.extra, nil)
			req.Header.Set("Authorization", "Bearer "+DefaultToken)
			resp, err := s.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				TotalCount int `json:"total_count"`
				Items      []struct {
					Number float64 `json:"number"`
				} `json:"items"`
				Errors []struct {
					Message string `json:"message"`
				} `json:"errors"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d (%+v)", resp.StatusCode, tc.status, body)
			}
			if tc.status != 200 {
				if len(body.Errors) == 0 || !strings.Contains(body.Errors[0].Message, tc.message) {
					t.Errorf("errors %+v, want one mentioning %q", body.Errors, tc.message)
				}
				return
			}
			got := []float64{}
			for _, it := range body.Items {
				got = append(got, it.Number)
			}
			if !reflect.DeepEqual(got, tc.numbers) || body.TotalCount != len(tc.numbers) {
				t.Errorf("got %v (total %d), want %v", got, body.TotalCount, tc.numbers)
			}
		})
	}
}

func TestAuthAndWrites(t *testing.T) {
	s := New(Options{Token: "t0k"})
	defer s.Close()
	do := func(method, path, token, body string) int {
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	cases := []struct {
		method, path, token, body string
		status                    int
	}{
		{"GET", "/repos/acme/widgets/issues/1", "", "", 401},
		{"GET", "/repos/acme/widgets/issues/1", "t0k", "", 200},
		{"GET", "/repos/acme/widgets/pulls/1", "t0k", "", 404},
		{"GET", "/repos/acme/nope/issues/1", "t0k", "", 404},
		{"POST", "/repos/acme/widgets/issues/1/labels", "t0k", `{"labels":[]}`, 422},
		{"POST", "/repos/acme/widgets/issues/1/labels", "t0k", `{"labels":["x","X"]}`, 200},
		{"PATCH", "/repos/acme/widgets/issues/1", "t0k", `{"state":"gone"}`, 422},
		{"PATCH", "/repos/acme/widgets/issues/1", "t0k", `{"state":"closed","state_reason":"not_planned"}`, 200},
		{"POST", "/repos/acme/widgets/issues/1/comments", "t0k", `{"body":""}`, 422},
		{"POST", "/repos/acme/widgets/issues/1/comments", "t0k", `not json`, 400},
	}
	for _, tc := range cases {
		if got := do(tc.method, tc.path, tc.token, tc.body); got != tc.status {
			t.Errorf("%s %s (token %q) %s: %d, want %d", tc.method, tc.path, tc.token, tc.body, got, tc.status)
		}
	}
	if got := s.Labels("acme", "widgets", 1); !reflect.DeepEqual(got, []string{"x"}) {
		t.Errorf("labels %v", got)
	}
	if s.State("acme", "widgets", 1) != "closed" || len(s.Writes()) != 2 {
		t.Errorf("state %s, writes %+v", s.State("acme", "widgets", 1), s.Writes())
	}
}

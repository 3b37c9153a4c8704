package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macrokit/macrokit-go/runtime/vocab"
)

func TestActSelectPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, label string
		path        []string
		shown       string // what the control displays after
		picks       string // the entries the page saw clicked, in order
		code        Code
	}{
		{"menus with roles", "Location", []string{"Zhejiang", "Hangzhou", "West Lake"}, "Zhejiang / Hangzhou / West Lake", "Zhejiang,Hangzhou,West Lake", ""},
		{"levels rendered late", "Late location", []string{"Jiangsu", "Nanjing", "Zhong Hua Men"}, "Jiangsu / Nanjing / Zhong Hua Men", "Jiangsu,Nanjing,Zhong Hua Men", ""},
		{"a level named like its parent", "Category", []string{"Other", "Other", "Misc"}, "Other / Other / Misc", "Other,Other,Misc", ""},
		{"case-insensitive names", "Location", []string{"zhejiang", "HANGZHOU", "west lake"}, "Zhejiang / Hangzhou / West Lake", "Zhejiang,Hangzhou,West Lake", ""},
		{"entries without roles", "Plain location", []string{"Zhejiang", "Hangzhou", "Xiaoshan"}, "Zhejiang / Hangzhou / Xiaoshan", "Zhejiang,Hangzhou,Xiaoshan", ""},
		{"missing level", "Location", []string{"Zhejiang", "Ningbo"}, "Pick…", "Zhejiang", CodeNotFound},
		{"control never shows it", "Mute location", []string{"Zhejiang", "Hangzhou", "West Lake"}, "Pick…", "Zhejiang,Hangzhou,West Lake", CodeValueNotApplied},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, ctx := actPage(t, "act_path.html")
			el, err := p.Resolve(ctx, Target{Label: tc.label})
			if err != nil {
				t.Fatal(err)
			}
			actx, cancel := context.WithTimeout(ctx, 8*time.Second)
			defer cancel()
			res, err := p.SelectPath(actx, el, tc.path, ActOptions{})
			if tc.code == "" && err != nil {
				t.Fatalf("select path: %v (%+v)", err, res)
			}
			if tc.code != "" {
				e := actWantCode(t, err, tc.code)
				if tc.code == CodeNotFound && !strings.Contains(e.Msg, `"Hangzhou`) {
					t.Errorf("not_found should list the visible options: %s", e.Msg)
				}
			}
			id := el.Selector
			if got := actJS(t, ctx, p, `document.querySelector('`+id+`').textContent`); got != tc.shown {
				t.Errorf("control shows %q, want %q", got, tc.shown)
			}
			if got := actJS(t, ctx, p, `picks[document.querySelector('`+id+`').id].join(',')`); got != tc.picks {
				t.Errorf("page saw clicks on %q, want %q", got, tc.picks)
			}
			if tc.code == "" && !slices.Equal(res.SelectedAfter, []string{tc.shown}) {
				t.Errorf("selected after %q, want %q", res.SelectedAfter, tc.shown)
			}
		})
	}
}

func TestDoSelectPath(t *testing.T) {
	t.Parallel()
	p, ctx := actPage(t, "act_path.html")
	res, err := p.Do(ctx, Step{Action: vocab.ActSelect, Target: &Target{Label: "Location"}, Path: []string{"Zhejiang", "Hangzhou", "West Lake"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checks) != 1 || res.Checks[0].Expected != "Zhejiang / Hangzhou / West Lake" || res.Checks[0].Actual != "Zhejiang / Hangzhou / West Lake" {
		t.Errorf("implicit check %+v", res.Checks)
	}
	_, err = p.Do(ctx, Step{Action: vocab.ActSelect, Target: &Target{Label: "Location"}, Options: []string{"x"}, Path: []string{"y"}})
	actWantCode(t, err, CodeInvalid)
}

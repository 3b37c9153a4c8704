package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/macrokit/macrokit-go/runtime/audit"
)

// SitePolicy is the set of origins a deployment's page and http steps may
// reach (macrokit.yaml allowed_sites), so a macro, an argument or a model
// cannot send the browser or a request anywhere else. A nil policy allows
// every site.
type SitePolicy struct {
	sites   []string // as configured, for messages
	origins []siteOrigin
}

type siteOrigin struct {
	scheme string
	host   string // lower case; "*.example.com" matches subdomains only
	port   string // explicit or the scheme's default
}

// SiteError is the error of a URL outside the allowed sites.
type SiteError struct {
	URL     string
	Allowed []string
}

// Error names the URL and the origins that are allowed.
func (e *SiteError) Error() string {
	return fmt.Sprintf("%s is outside the allowed sites (allowed_sites: %s)", e.URL, strings.Join(e.Allowed, ", "))
}

// NewSitePolicy parses origins such as "https://example.com",
// "http://localhost:8080" or "https://*.example.com" (any subdomain). An
// empty list returns nil: no restriction.
func NewSitePolicy(sites []string) (*SitePolicy, error) {
	if len(sites) == 0 {
		return nil, nil
	}
	p := &SitePolicy{}
	for _, s := range sites {
		o, err := parseSiteOrigin(s)
		if err != nil {
			return nil, err
		}
		p.sites = append(p.sites, s)
		p.origins = append(p.origins, o)
	}
	return p, nil
}

func parseSiteOrigin(s string) (siteOrigin, error) {
	bad := func(why string) (siteOrigin, error) {
		return siteOrigin{}, fmt.Errorf("allowed site %q: %s (want an origin like https://example.com, http://localhost:8080 or https://*.example.com)", s, why)
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return bad(err.Error())
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return bad("the scheme must be http or https")
	}
	if u.Host == "" || u.User != nil {
		return bad("no host")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return bad("an origin has no path, query or fragment")
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(strings.TrimPrefix(host, "*."), "*") {
		return bad("a wildcard is only allowed as the first label (*.example.com)")
	}
	return siteOrigin{scheme: u.Scheme, host: host, port: portOf(u)}, nil
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// Sites returns the configured origins.
func (p *SitePolicy) Sites() []string {
	if p == nil {
		return nil
	}
	return append([]string(nil), p.sites...)
}

// Allows reports whether u may be reached. Only http and https URLs are
// sites; about:blank, data: and the like are always allowed, file: never
// (it is not a site a deployment can list).
func (p *SitePolicy) Allows(u *url.URL) bool {
	if p == nil {
		return true
	}
	switch u.Scheme {
	case "http", "https":
	case "file":
		return false
	default:
		return true
	}
	host := strings.ToLower(u.Hostname())
	port := portOf(u)
	for _, o := range p.origins {
		if o.scheme != u.Scheme || o.port != port {
			continue
		}
		if o.host == host || (strings.HasPrefix(o.host, "*.") && strings.HasSuffix(host, o.host[1:])) {
			return true
		}
	}
	return false
}

// Check returns a *SiteError when rawURL is not allowed (or is not a URL).
func (p *SitePolicy) Check(rawURL string) error {
	if p == nil {
		return nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme == "" && u.Host == "") {
		return &SiteError{URL: rawURL, Allowed: p.sites}
	}
	if !p.Allows(u) {
		return &SiteError{URL: redactURL(u), Allowed: p.sites}
	}
	return nil
}

// redactURL drops credentials and the query from a URL shown in an error:
// the origin and path are what the operator needs.
func redactURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment = nil, "", ""
	return c.String()
}

// Client returns a copy of c (nil: http.DefaultClient's settings) whose
// redirects are checked too, so an allowed site cannot bounce a request
// elsewhere.
func (p *SitePolicy) Client(c *http.Client) *http.Client {
	if p == nil {
		return c
	}
	var cp http.Client
	if c != nil {
		cp = *c
	}
	next := cp.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := p.Check(req.URL.String()); err != nil {
			return err
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cp
}

type siteKey struct{}

// WithSitePolicy returns a context carrying p. Dispatchers without their
// own Sites enforce the policy of the call's context, so a command can
// restrict every dispatcher it builds (app.Main does, from allowed_sites).
func WithSitePolicy(ctx context.Context, p *SitePolicy) context.Context {
	return context.WithValue(ctx, siteKey{}, p)
}

// SitePolicyFrom returns the policy WithSitePolicy put on ctx, or nil.
func SitePolicyFrom(ctx context.Context) *SitePolicy {
	p, _ := ctx.Value(siteKey{}).(*SitePolicy)
	return p
}

// sites is the policy in force for a call: the dispatcher's, else the
// context's.
func (d *Dispatcher) sites(ctx context.Context) *SitePolicy {
	if d == nil {
		return SitePolicyFrom(ctx)
	}
	return policyIn(ctx, d.Sites)
}

// policyIn is own when set, else the policy on ctx: a dispatcher's or an
// explore executor's own Sites win over the command's.
func policyIn(ctx context.Context, own *SitePolicy) *SitePolicy {
	if own != nil {
		return own
	}
	return SitePolicyFrom(ctx)
}

// siteFail records a step refused by the site policy and returns its
// site_not_allowed error (not step_failed: nothing was attempted, and
// retrying elsewhere will not help).
func (x *Exec) siteFail(rec StepRecord, err error) error {
	rec.Status = "failed"
	rec.Diagnosis = string(CodeSiteNotAllowed)
	rec.Message = x.redact(err.Error())
	x.record(rec)
	target := rec.Message
	if se := (*SiteError)(nil); errors.As(err, &se) {
		target = x.redact(se.URL)
	}
	// The call fails either way; a block the log missed is still refused.
	_ = x.auditRecord(audit.Event{Kind: audit.SiteBlocked, Target: target, Reason: rec.Path + " (" + rec.Kind + ")"})
	r := rec
	return &CallError{Code: CodeSiteNotAllowed, Message: fmt.Sprintf("%s (%s) refused: %s", rec.Path, rec.Kind, rec.Message), Step: &r, Err: err}
}

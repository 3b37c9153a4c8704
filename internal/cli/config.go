package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/editdist"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/mcpclient"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"
)

// ConfigFile is the deployment configuration read from the working
// directory when neither --config nor MACROKIT_CONFIG names another.
const ConfigFile = "macrokit.yaml"

// Environment variables of the settings macrokit.yaml holds (the model's
// are EnvModel, EnvBaseURL and EnvFallbackModel; the browser binary's is
// engine.EnvBrowser). Each one overrides the file.
const (
	EnvConfig       = "MACROKIT_CONFIG"
	EnvAPIKeyEnv    = "MACROKIT_API_KEY_ENV"
	EnvCDPURL       = "MACROKIT_CDP_URL"
	EnvAllowedSites = "MACROKIT_ALLOWED_SITES" // comma-separated origins
	EnvSessionDir   = "MACROKIT_SESSION_DIR"
	EnvApproval     = "MACROKIT_APPROVAL"
	EnvAudit        = "MACROKIT_AUDIT" // the audit log's path; "off" disables it
)

// ApprovalPolicy says what happens when a dangerous macro (or a call
// recovered from a model's text) needs an approval.
type ApprovalPolicy string

// The approval policies.
const (
	// ApprovalAsk asks on the terminal and refuses without one (the default).
	ApprovalAsk ApprovalPolicy = "ask"
	// ApprovalDeny refuses without asking, even at a terminal; an explicit
	// --yes on the command line still approves.
	ApprovalDeny ApprovalPolicy = "deny"
	// ApprovalYes approves as if --yes were given (for unattended use).
	ApprovalYes ApprovalPolicy = "yes"
)

// FileConfig is macrokit.yaml. Every key is optional.
type FileConfig struct {
	Model        ModelSettings    `yaml:"model"`
	Browser      BrowserSettings  `yaml:"browser"`
	AllowedSites []string         `yaml:"allowed_sites"`
	BlockedSites []string         `yaml:"blocked_sites"` // win over allowed_sites
	SessionDir   *string          `yaml:"session_dir"`   // "" disables session logs
	Approval     ApprovalSettings `yaml:"approval"`
	Refdata      RefdataSettings  `yaml:"refdata"`
	Serve        ServeSettings    `yaml:"serve"`
	Audit        *string          `yaml:"audit"` // the audit log's path; "off" (or "") disables it
	// Identity is the identity calls run as by default; Identities name
	// each one's login credentials (docs/identity.md).
	Identity   string                      `yaml:"identity"`
	Identities map[string]IdentitySettings `yaml:"identities"`
	// MCPServers are the MCP servers mcp steps call, by name.
	MCPServers map[string]MCPServerSettings `yaml:"mcp_servers"`
}

// ServeSettings configure `serve --http`: where its bearer tokens are and
// its TLS certificate. Relative paths are relative to the config file's
// directory.
type ServeSettings struct {
	TokenEnv string `yaml:"token_env"` // the variable holding the token(s), never a token
	TLSCert  string `yaml:"tls_cert"`
	TLSKey   string `yaml:"tls_key"`
}

// RefdataSettings configure the reference-data store lookup steps read:
// the public keys bundles must be signed with and the cache database.
// Relative paths are relative to the config file's directory.
type RefdataSettings struct {
	Trust []string `yaml:"trust"` // public key files
	Cache string   `yaml:"cache"` // the SQLite cache ("" : the user cache dir)
	// Bundles is the directory of the project's own bundles
	// (<Bundles>/<name>/manifest.json), which `test` syncs before it runs.
	Bundles string `yaml:"bundles"`
}

// ModelSettings are the model endpoint and the escalation model.
type ModelSettings struct {
	BaseURL   string `yaml:"base_url"`
	Name      string `yaml:"name"`
	APIKeyEnv string `yaml:"api_key_env"` // the variable holding the key, never the key
	Fallback  string `yaml:"fallback"`    // a stronger model at the same endpoint
}

// BrowserSettings choose the browser: a binary to launch or a running
// one's CDP websocket URL.
type BrowserSettings struct {
	Bin    string `yaml:"bin"`
	CDPURL string `yaml:"cdp_url"`
}

// ApprovalSettings hold the approval policy.
type ApprovalSettings struct {
	Policy ApprovalPolicy `yaml:"policy"`
}

// configKeys is the shape of macrokit.yaml: each mapping's keys, by the
// dotted path of the mapping ("" is the top level).
var configKeys = map[string][]string{
	"":         {"model", "browser", "allowed_sites", "blocked_sites", "session_dir", "approval", "refdata", "serve", "audit", "identity", "identities", "mcp_servers"},
	"model":    {"base_url", "name", "api_key_env", "fallback"},
	"browser":  {"bin", "cdp_url"},
	"approval": {"policy"},
	"refdata":  {"trust", "cache", "bundles"},
	"serve":    {"token_env", "tls_cert", "tls_key"},
}

// ConfigError is one problem in a config file, at its line and column.
type ConfigError struct {
	File      string
	Line, Col int    // 0 when unknown
	Key       string // dotted path, e.g. "model.name"
	Msg       string
}

// Error renders file:line:col: key: message.
func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ConfigErrors are every problem of a config file.
type ConfigErrors []*ConfigError

// Error joins the problems, one per line.
func (es ConfigErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// ParseConfig parses and checks a macrokit.yaml: unknown keys (with a
// "did you mean"), wrong types, an unknown approval policy, malformed
// allowed sites or CDP URL. All problems are returned as ConfigErrors.
func ParseConfig(file string, data []byte) (*FileConfig, error) {
	fc := &FileConfig{}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return fc, nil // empty or only comments
		}
		return nil, ConfigErrors{{File: file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return fc, nil
	}
	var errs ConfigErrors
	add := func(n *yaml.Node, key, format string, args ...any) {
		e := &ConfigError{File: file, Key: key, Msg: fmt.Sprintf(format, args...)}
		if n != nil {
			e.Line, e.Col = n.Line, n.Column
		}
		errs = append(errs, e)
	}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		keys := configKeys[path]
		if n.Kind != yaml.MappingNode {
			what := "the file"
			if path != "" {
				what = path
			}
			add(n, path, "%s must be a mapping of %s", what, strings.Join(keys, ", "))
			return
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			full := joinKey(path, k.Value)
			if !contains(keys, k.Value) {
				add(k, full, "unknown key%s (keys: %s)", suggestKey(k.Value, keys), strings.Join(keys, ", "))
				continue
			}
			if seen[k.Value] {
				add(k, full, "duplicate key")
			}
			seen[k.Value] = true
			if _, nested := configKeys[full]; nested {
				walk(v, full)
			}
		}
	}
	walk(root, "")
	checkIdentities(&FileConfig{Identity: scalarAt(root, "identity")}, root, add)
	checkMCPServers(root, add)
	if len(errs) > 0 {
		return nil, errs
	}
	if err := root.Decode(fc); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			for _, m := range te.Errors {
				add(nil, "", "%s", strings.TrimPrefix(m, "yaml: "))
			}
			return nil, errs
		}
		return nil, ConfigErrors{{File: file, Msg: err.Error()}}
	}
	// Values: located by the key's node where we can find it.
	at := func(path ...string) *yaml.Node { return findKey(root, path...) }
	switch fc.Approval.Policy {
	case "", ApprovalAsk, ApprovalDeny, ApprovalYes:
	default:
		add(at("approval", "policy"), "approval.policy", "%q is not a policy: ask, deny or yes%s", fc.Approval.Policy, suggestKey(string(fc.Approval.Policy), []string{"ask", "deny", "yes"}))
	}
	if _, err := runtime.NewSitePolicy(fc.AllowedSites); err != nil {
		add(at("allowed_sites"), "allowed_sites", "%v", err)
	}
	if _, err := runtime.NewSites(nil, fc.BlockedSites); err != nil {
		add(at("blocked_sites"), "blocked_sites", "%v", err)
	}
	if v := fc.Serve.TokenEnv; v != "" && !envNameRE.MatchString(v) {
		// Not echoed: what was written there may be the token itself.
		add(at("serve", "token_env"), "serve.token_env", "not an environment variable name (letters, digits and _): name the variable that holds the token, never the token")
	}
	if (fc.Serve.TLSCert == "") != (fc.Serve.TLSKey == "") {
		add(at("serve"), "serve", "tls_cert and tls_key go together")
	}
	if u := fc.Browser.CDPURL; u != "" {
		if err := checkCDPURL(u); err != nil {
			add(at("browser", "cdp_url"), "browser.cdp_url", "%v", err)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return fc, nil
}

// scalarAt is the value of a top-level scalar key ("" when absent).
func scalarAt(root *yaml.Node, key string) string {
	if n := findKey(root, key); n != nil && n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return ""
}

// envNameRE matches an environment variable's name.
var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func checkCDPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not a URL (want ws://host:port/devtools/browser/...)", s)
	}
	switch u.Scheme {
	case "ws", "wss", "http", "https":
		return nil
	}
	return fmt.Errorf("%q: the scheme must be ws, wss, http or https", s)
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggestKey is ` (did you mean "x"?)` for the closest candidate, or "".
func suggestKey(s string, candidates []string) string {
	best := editdist.Closest(s, candidates, 2)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// findKey returns the value node at a key path of a mapping, or nil.
func findKey(n *yaml.Node, path ...string) *yaml.Node {
	for _, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// LoadConfig reads the config file: path when given, else ./macrokit.yaml
// when it exists. It returns nil (and no error) when there is none.
// Relative paths inside it (session_dir, audit, refdata.trust, refdata.cache,
// refdata.bundles, serve.tls_cert, serve.tls_key) are resolved against the file's
// directory.
func LoadConfig(path string) (*FileConfig, string, error) {
	explicit := path != ""
	if !explicit {
		path = ConfigFile
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, os.ErrNotExist) {
			return nil, "", nil
		}
		return nil, path, fmt.Errorf("config: %w", err)
	}
	fc, err := ParseConfig(path, data)
	if err != nil {
		return nil, path, err
	}
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(filepath.Dir(path), p)
	}
	if fc.SessionDir != nil && *fc.SessionDir != "" {
		d := rel(*fc.SessionDir)
		fc.SessionDir = &d
	}
	if fc.Audit != nil && *fc.Audit != "" && *fc.Audit != auditOff {
		a := rel(*fc.Audit)
		fc.Audit = &a
	}
	for i, k := range fc.Refdata.Trust {
		fc.Refdata.Trust[i] = rel(k)
	}
	fc.Refdata.Cache = rel(fc.Refdata.Cache)
	fc.Refdata.Bundles = rel(fc.Refdata.Bundles)
	fc.Serve.TLSCert, fc.Serve.TLSKey = rel(fc.Serve.TLSCert), rel(fc.Serve.TLSKey)
	return fc, path, nil
}

// Settings are the deployment settings after environment > file >
// defaults; each command's flags override them.
type Settings struct {
	// File is the config file read ("" when none).
	File string `json:"file,omitempty"`
	// Model, BaseURL and Fallback are empty when unset (NewModels then
	// applies its own defaults).
	Model     string `json:"model,omitempty"`
	BaseURL   string `json:"base_url,omitempty"`
	APIKeyEnv string `json:"api_key_env"`
	Fallback  string `json:"fallback,omitempty"`
	// BrowserBin and CDPURL are empty for engine.FindBrowser's default.
	BrowserBin   string         `json:"browser_bin,omitempty"`
	CDPURL       string         `json:"cdp_url,omitempty"`
	AllowedSites []string       `json:"allowed_sites,omitempty"`
	BlockedSites []string       `json:"blocked_sites,omitempty"`
	SessionDir   string         `json:"session_dir"` // "" disables logs
	AuditFile    string         `json:"audit_file"`  // "" disables the audit log
	Approval     ApprovalPolicy `json:"approval"`
	// RefdataTrust and RefdataCache are the reference-data store's trusted
	// key files and cache path (empty: unset; RefdataOptions reads them).
	RefdataTrust []string `json:"refdata_trust,omitempty"`
	RefdataCache string   `json:"refdata_cache,omitempty"`
	// RefdataBundles is the directory of the project's own bundles that
	// `test` syncs (empty: none).
	RefdataBundles string `json:"refdata_bundles,omitempty"`
	// ServeTokenEnv, TLSCert and TLSKey are serve's defaults from the file
	// (empty: the flags' own defaults).
	ServeTokenEnv string `json:"serve_token_env,omitempty"`
	TLSCert       string `json:"tls_cert,omitempty"`
	TLSKey        string `json:"tls_key,omitempty"`
	// Identity is the default identity (MACROKIT_IDENTITY over the file's
	// identity:); Identities are the file's identities (their credentials
	// are sources, never shown).
	Identity   string                      `json:"identity,omitempty"`
	Identities map[string]IdentitySettings `json:"-"`
	// MCPServers are the file's MCP servers (their header and variable
	// values are sources, never shown).
	MCPServers map[string]mcpclient.Server `json:"-"`
	// Sites is AllowedSites and BlockedSites parsed (nil: no restriction).
	Sites *runtime.SitePolicy `json:"-"`
}

// ResolveSettings layers the environment (getenv) over the file (nil: none)
// over the defaults.
func ResolveSettings(fc *FileConfig, file string, getenv func(string) string) (*Settings, error) {
	if fc == nil {
		fc = &FileConfig{}
	}
	s := &Settings{
		File:           file,
		Model:          firstOf(getenv(EnvModel), fc.Model.Name),
		BaseURL:        firstOf(getenv(EnvBaseURL), fc.Model.BaseURL),
		APIKeyEnv:      firstOf(getenv(EnvAPIKeyEnv), fc.Model.APIKeyEnv, "OPENAI_API_KEY"),
		Fallback:       firstOf(getenv(EnvFallbackModel), fc.Model.Fallback),
		BrowserBin:     firstOf(getenv(engine.EnvBrowser), fc.Browser.Bin),
		CDPURL:         firstOf(getenv(EnvCDPURL), fc.Browser.CDPURL),
		SessionDir:     sessionlog.DefaultDir,
		Approval:       ApprovalPolicy(firstOf(getenv(EnvApproval), string(fc.Approval.Policy), string(ApprovalAsk))),
		RefdataTrust:   fc.Refdata.Trust,
		RefdataCache:   firstOf(getenv(EnvRefdataCache), fc.Refdata.Cache),
		RefdataBundles: firstOf(getenv(EnvRefdataBundles), fc.Refdata.Bundles),
		ServeTokenEnv:  fc.Serve.TokenEnv,
		TLSCert:        fc.Serve.TLSCert,
		TLSKey:         fc.Serve.TLSKey,
		Identity:       firstOf(getenv(EnvIdentity), fc.Identity),
		Identities:     fc.Identities,
		MCPServers:     fc.mcpServers(filepath.Dir(firstOf(file, ConfigFile))),
	}
	if v := getenv(EnvRefdataTrust); v != "" {
		s.RefdataTrust = nil
		for _, f := range filepath.SplitList(v) {
			if f != "" {
				s.RefdataTrust = append(s.RefdataTrust, f)
			}
		}
	}
	if fc.SessionDir != nil {
		s.SessionDir = *fc.SessionDir
	}
	s.AuditFile = auditDefault
	if fc.Audit != nil {
		s.AuditFile = *fc.Audit
	}
	if v := getenv(EnvAudit); v != "" {
		s.AuditFile = v
	}
	if s.AuditFile == auditOff {
		s.AuditFile = ""
	}
	if v := getenv(EnvSessionDir); v != "" {
		s.SessionDir = v
	}
	s.AllowedSites, s.BlockedSites = fc.AllowedSites, fc.BlockedSites
	if v := getenv(EnvAllowedSites); v != "" {
		s.AllowedSites = nil
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				s.AllowedSites = append(s.AllowedSites, p)
			}
		}
	}
	switch s.Approval {
	case ApprovalAsk, ApprovalDeny, ApprovalYes:
	default:
		return nil, fmt.Errorf("%s=%q is not a policy: ask, deny or yes", EnvApproval, s.Approval)
	}
	if s.CDPURL != "" {
		if err := checkCDPURL(s.CDPURL); err != nil {
			return nil, fmt.Errorf("CDP URL: %v", err)
		}
	}
	var err error
	if s.Sites, err = runtime.NewSites(s.AllowedSites, s.BlockedSites); err != nil {
		return nil, err
	}
	return s, nil
}

// fileEnv is the layer of Config.getenv the file's settings fill, below
// the environment: NewModels and RefdataOptions read these variables when
// the flags are not given.
func (s *Settings) fileEnv() map[string]string {
	m := map[string]string{}
	trust := strings.Join(s.RefdataTrust, string(os.PathListSeparator))
	for k, v := range map[string]string{EnvModel: s.Model, EnvBaseURL: s.BaseURL, EnvFallbackModel: s.Fallback,
		EnvRefdataTrust: trust, EnvRefdataCache: s.RefdataCache, EnvRefdataBundles: s.RefdataBundles} {
		if v != "" {
			m[k] = v
		}
	}
	return m
}

// flagDefaults are the command flags whose defaults come from the settings.
func (s *Settings) flagDefaults() map[string]any {
	return map[string]any{
		"session-dir": s.SessionDir,
		"browser":     s.BrowserBin,
		"cdp":         s.CDPURL,
		"api-key-env": s.APIKeyEnv,
		"yes":         s.Approval == ApprovalYes,
		"token-env":   s.ServeTokenEnv,
		"tls-cert":    s.TLSCert,
		"tls-key":     s.TLSKey,
	}
}

// applyDefaults sets the defaults of every command's (and subcommand's)
// flags the settings cover, so a flag given on the command line still wins
// and commands need not know where a default came from.
func applyDefaults(cmds []*cli.Command, defaults map[string]any) {
	for _, c := range cmds {
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				v, ok := defaults[n]
				if !ok {
					continue
				}
				switch fl := f.(type) {
				case *cli.StringFlag:
					if s, _ := v.(string); s != "" || n == "session-dir" {
						fl.Value = s
					}
				case *cli.BoolFlag:
					if b, _ := v.(bool); b {
						fl.Value = true
					}
				case *cli.StringSliceFlag: // worker's repeatable --cdp
					if s, _ := v.(string); s != "" {
						fl.Value = cli.NewStringSlice(s)
					}
				}
			}
		}
		applyDefaults(c.Subcommands, defaults)
	}
}

// configure loads the config file and applies the settings to cfg and the
// commands; execute calls it before any command runs.
func (cfg *Config) configure(c *cli.Context, cmds []*cli.Command) error {
	get := cfg.Getenv
	if get == nil {
		get = os.Getenv
	}
	path := firstOf(c.String("config"), get(EnvConfig))
	fc, file, err := LoadConfig(path)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	s, err := ResolveSettings(fc, file, get)
	if err != nil {
		return Usagef("%v", err)
	}
	cfg.Settings = s
	cfg.fileEnv = s.fileEnv()
	applyDefaults(cmds, s.flagDefaults())
	if s.Approval == ApprovalDeny {
		// Approver and the chat's line approver ask only at a terminal:
		// hiding it makes every approval a refusal unless --yes is given.
		c.App.Reader = notTerminal{c.App.Reader}
	}
	if s.Sites != nil {
		c.Context = runtime.WithSitePolicy(c.Context, s.Sites)
	}
	return nil
}

// notTerminal hides that a reader is a terminal.
type notTerminal struct{ io.Reader }

// SitePolicy is the allowed-sites policy in force (nil: none, or Run has
// not configured cfg). Commands that build their own Dispatcher set it as
// Dispatcher.Sites.
func (cfg *Config) SitePolicy() *runtime.SitePolicy {
	if cfg == nil || cfg.Settings == nil {
		return nil
	}
	return cfg.Settings.Sites
}

package cli

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/llm/script"
	"github.com/macrokit/macrokit-go/runtime/fixture"
	"github.com/urfave/cli/v2"
)

// Environment variables the model flags fall back to, so OpenAI and Ollama
// work with no flags at all.
const (
	EnvModel         = "MACROKIT_MODEL"
	EnvBaseURL       = "MACROKIT_BASE_URL"
	EnvFallbackModel = "MACROKIT_FALLBACK_MODEL"
	EnvScripted      = "MACROKIT_SCRIPTED"
)

// OllamaBaseURL is Ollama's OpenAI-compatible endpoint on its default port.
const OllamaBaseURL = "http://localhost:11434/v1"

// ModelFlags are the flags of commands that talk to a model.
func ModelFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model name at the endpoint, e.g. qwen2.5:7b-instruct or gpt-4o-mini (env " + EnvModel + ")"},
		&cli.StringFlag{Name: "base-url", Usage: "OpenAI-compatible endpoint (env " + EnvBaseURL + ", OPENAI_BASE_URL or OLLAMA_HOST; default: OpenAI when OPENAI_API_KEY is set, else Ollama at " + OllamaBaseURL + ")"},
		&cli.StringFlag{Name: "api-key-env", Value: "OPENAI_API_KEY", Usage: "the environment variable holding the API key (the key itself is never a flag)"},
		&cli.StringFlag{Name: "fallback-model", Usage: "a stronger model for turns the detector flags (env " + EnvFallbackModel + ")"},
		&cli.StringFlag{Name: "fallback-base-url", Usage: "the fallback model's endpoint (default: --base-url)"},
		&cli.StringFlag{Name: "fallback-api-key-env", Usage: "the fallback endpoint's API key variable (default: --api-key-env)"},
		&cli.StringFlag{Name: "scripted", Usage: "use a scripted playbook instead of a model: a YAML file, or the name of an embedded one (env " + EnvScripted + ")"},
		&cli.StringFlag{Name: "tools", Value: "auto", Usage: "how tools are offered: auto (native, falling back to prompted JSON when refused), native, prompted"},
		&cli.DurationFlag{Name: "model-timeout", Value: 2 * time.Minute, Usage: "bound for one model request"},
		&cli.StringFlag{Name: "record", Usage: "record into this directory: model responses appended to DIR/" + RecordModelFile + " (for --replay), http step exchanges to DIR/" + RecordHTTPDir + "/<macro>.jsonl, secrets redacted (see docs/fixtures.md)"},
		&cli.StringFlag{Name: "replay", Usage: "answer from a --record directory (its " + RecordModelFile + ") or a JSONL file of model responses instead of calling a model"},
	}
}

// ModelOptions are the model flags (ModelFlags) of a command.
type ModelOptions struct {
	Model, BaseURL, APIKeyEnv                         string
	FallbackModel, FallbackBaseURL, FallbackAPIKeyEnv string
	Scripted                                          string
	Tools                                             string // auto, native or prompted
	Timeout                                           time.Duration
	Record, Replay                                    string
}

// modelOptions decodes ModelFlags.
func modelOptions(c *cli.Context) ModelOptions {
	return ModelOptions{Model: c.String("model"), BaseURL: c.String("base-url"), APIKeyEnv: c.String("api-key-env"),
		FallbackModel: c.String("fallback-model"), FallbackBaseURL: c.String("fallback-base-url"), FallbackAPIKeyEnv: c.String("fallback-api-key-env"),
		Scripted: c.String("scripted"), Tools: c.String("tools"), Timeout: c.Duration("model-timeout"),
		Record: c.String("record"), Replay: c.String("replay")}
}

// Models are the model adapters a command uses.
type Models struct {
	Primary  llm.Model
	Fallback llm.Model
	// HTTPClient records the http steps of the macros a session runs when
	// --record DIR is set (DIR/http/<macro>.jsonl); nil otherwise. It is the
	// session's runtime.Dispatcher.HTTPClient.
	HTTPClient *http.Client
	closers    []io.Closer
	httpRec    *fixture.Recorder
}

// Close flushes recordings; an incomplete record is an error.
func (m *Models) Close() error {
	var first error
	for _, c := range m.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	if err := recorderErr(m.httpRec); err != nil && first == nil {
		first = err
	}
	return first
}

// NewModels builds the adapters from the model flags and environment.
func NewModels(cfg *Config, o ModelOptions) (*Models, error) {
	get := cfg.getenv
	ms := &Models{}
	var err error
	switch {
	case o.Replay != "":
		ms.Primary, err = llm.LoadReplay(replayFile(o.Replay))
		if err != nil {
			return nil, Usagef("--replay: %v", err)
		}
	case o.Scripted != "" || (o.Model == "" && get(EnvScripted) != ""):
		name := o.Scripted
		if name == "" {
			name = get(EnvScripted)
		}
		ms.Primary, err = scripted(cfg, name)
		if err != nil {
			return nil, err
		}
	default:
		model := firstOf(o.Model, get(EnvModel))
		if model == "" {
			return nil, Usagef("no model: pass --model NAME (with --base-url for a non-default endpoint) or --scripted PLAYBOOK; or set %s", EnvModel)
		}
		ms.Primary, err = openAI(o, get, model, o.BaseURL, o.APIKeyEnv)
		if err != nil {
			return nil, err
		}
	}
	if fb := firstOf(o.FallbackModel, get(EnvFallbackModel)); fb != "" {
		ms.Fallback, err = openAI(o, get, fb, firstOf(o.FallbackBaseURL, o.BaseURL), firstOf(o.FallbackAPIKeyEnv, o.APIKeyEnv))
		if err != nil {
			return nil, err
		}
	}
	if o.Record != "" {
		dir, err := recordDir(o.Record)
		if err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(dir, RecordModelFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, Failf("--record: %v", err)
		}
		rec := llm.NewRecorder(ms.Primary, f)
		rec.SetSecrets(answerSecrets(cfg))
		ms.Primary = rec
		// Recorders first: Close checks them before the file closes.
		ms.closers = append(ms.closers, rec)
		if ms.Fallback != nil {
			fb := llm.NewRecorder(ms.Fallback, f)
			fb.SetSecrets(answerSecrets(cfg))
			ms.Fallback = fb
			ms.closers = append(ms.closers, fb)
		}
		ms.closers = append(ms.closers, f)
		ms.httpRec = httpRecorder(cfg, dir)
		ms.HTTPClient = recordingClient(ms.httpRec)
	}
	return ms, nil
}

func scripted(cfg *Config, name string) (llm.Model, error) {
	if data, ok := cfg.Playbooks[name]; ok {
		pb, err := script.Parse(name, data)
		if err != nil {
			return nil, Failf("embedded playbook %s: %v", name, err)
		}
		return script.New(pb), nil
	}
	pb, err := script.Load(name)
	if err != nil {
		if os.IsNotExist(err) && len(cfg.Playbooks) > 0 {
			return nil, Usagef("--scripted: no file %q and no embedded playbook of that name (embedded: %s)", name, strings.Join(sortedKeys(cfg.Playbooks), ", "))
		}
		return nil, Usagef("--scripted: %v", err)
	}
	return script.New(pb), nil
}

// openAI builds an OpenAI-compatible adapter. The base URL resolves flag ->
// MACROKIT_BASE_URL -> OPENAI_BASE_URL -> OLLAMA_HOST -> OpenAI when a key
// is set -> local Ollama.
func openAI(o ModelOptions, get func(string) string, model, baseURL, keyEnv string) (llm.Model, error) {
	key := ""
	if keyEnv != "" {
		key = get(keyEnv)
	}
	if baseURL == "" {
		baseURL = firstOf(get(EnvBaseURL), get("OPENAI_BASE_URL"))
	}
	if baseURL == "" {
		if h := get("OLLAMA_HOST"); h != "" {
			if !strings.Contains(h, "://") {
				h = "http://" + h
			}
			baseURL = strings.TrimRight(h, "/") + "/v1"
		}
	}
	if baseURL == "" {
		if key != "" {
			baseURL = "https://api.openai.com/v1"
		} else {
			baseURL = OllamaBaseURL
		}
	}
	var mode llm.ToolMode
	switch o.Tools {
	case "auto", "":
	case "native":
		mode = llm.ToolsNative
	case "prompted":
		mode = llm.ToolsPromptJSON
	default:
		return nil, Usagef("--tools must be auto, native or prompted")
	}
	m, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: baseURL, APIKey: key, Model: model, Timeout: o.Timeout, ToolMode: mode})
	if err != nil {
		return nil, Usagef("model %s: %v", model, err)
	}
	return m, nil
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// describeModels is the one-line banner of which models a session uses.
func describeModels(ms *Models) string {
	s := "model " + ms.Primary.Name()
	if ms.Fallback != nil {
		s += fmt.Sprintf(", fallback %s", ms.Fallback.Name())
	}
	return s
}

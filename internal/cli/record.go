package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/macrokit/macrokit-go/llm"
	"github.com/macrokit/macrokit-go/runtime/fixture"
	"github.com/macrokit/macrokit-go/runtime/route"
	"github.com/urfave/cli/v2"
)

// Names inside a --record directory (docs/fixtures.md).
const (
	// RecordModelFile holds the model's responses (llm.NewRecorder's JSONL).
	RecordModelFile = "model.jsonl"
	// RecordHTTPDir holds the http steps' exchanges, one <macro>.jsonl per
	// dispatched macro, in the fixture format.
	RecordHTTPDir = "http"
)

// recordFlag is `--record DIR` of run (ask and chat have it in ModelFlags).
func recordFlag() cli.Flag {
	return &cli.StringFlag{Name: "record", Usage: "record into this directory: the http steps' exchanges under DIR/" + RecordHTTPDir + "/<macro>.jsonl, secrets redacted (see docs/fixtures.md)"}
}

// answerSecrets finds, for the model recorder, the values a model's answer
// gives the secret parameters of cfg's macros (the router hides the values
// it already knows behind placeholders; this is for the first time a value
// with no credential's shape is routed to a secret parameter).
func answerSecrets(cfg *Config) func(*llm.Response) []string {
	return func(resp *llm.Response) []string {
		var out []string
		for _, tc := range resp.ToolCalls {
			m, ok := cfg.Registry.Lookup(tc.Name)
			if !ok {
				continue
			}
			norm, _ := m.NormalizeArgs(tc.Args)
			for _, v := range append(m.SecretsIn(context.Background(), norm), m.SecretsIn(context.Background(), tc.Args)...) {
				if !route.IsPlaceholder(v) {
					out = append(out, v)
				}
			}
		}
		return out
	}
}

// recordDir prepares a --record directory: it is created when missing, and
// a path that is a file is a usage error (--record took a file before it
// took a directory).
func recordDir(path string) (string, error) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return "", Usagef("--record %s: is a file; --record takes a directory (the model's responses go to DIR/%s)", path, RecordModelFile)
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return "", Failf("--record: %v", err)
	}
	return path, nil
}

// replayFile resolves --replay: a directory written by --record means its
// model.jsonl, anything else is the file itself.
func replayFile(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return filepath.Join(path, RecordModelFile)
	}
	return path
}

// httpRecorder records the http steps of a command's macro calls under
// dir/http/, redacting secrets and the deployment's URLs (the variables the
// registry's macros read).
func httpRecorder(cfg *Config, dir string) *fixture.Recorder {
	scrub := fixture.NewScrubber(cfg.Registry, cfg.getenv)
	return fixture.NewRecorder(nil, scrub, fixture.Dir{Path: filepath.Join(dir, RecordHTTPDir)})
}

// recordingClient is the Dispatcher.HTTPClient of a recording command: the
// default http step client's timeout, through the recorder.
func recordingClient(rec *fixture.Recorder) *http.Client {
	return rec.Client(&http.Client{Timeout: defaultHTTPTimeout})
}

// defaultHTTPTimeout matches the runtime's default http step client.
const defaultHTTPTimeout = 30 * time.Second

// recorderErr reports a recorder that stopped writing: a record that is
// incomplete must not pass for a complete one.
func recorderErr(rec *fixture.Recorder) error {
	if rec == nil || rec.Err() == nil {
		return nil
	}
	return Failf("--record: the HTTP record is incomplete: %v", rec.Err())
}

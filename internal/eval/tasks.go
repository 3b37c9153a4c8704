package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/llm"
)

// Expectation is the call a router should produce; Tool is "" when the
// right answer is plain text.
type Expectation struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args,omitempty"`
}

// Task is one benchmark request.
type Task struct {
	ID          string       `json:"id"`
	Bucket      string       `json:"bucket"`
	Difficulty  string       `json:"difficulty"`
	Prompt      string       `json:"prompt"`
	Expected    Expectation  `json:"expected"`
	Alternative *Expectation `json:"alternative,omitempty"`
	Notes       string       `json:"notes,omitempty"`
}

// LoadTasks reads task files (one JSON task a line; blank lines ignored).
// Every malformed line is reported with its file and line number.
func LoadTasks(paths ...string) ([]Task, error) {
	var tasks []Task
	var errs []string
	seen := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			var t Task
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.UseNumber()
			if err := dec.Decode(&t); err != nil {
				errs = append(errs, fmt.Sprintf("%s:%d: %v", p, n, err))
				continue
			}
			switch {
			case t.ID == "":
				errs = append(errs, fmt.Sprintf("%s:%d: task without an id", p, n))
				continue
			case t.Prompt == "":
				errs = append(errs, fmt.Sprintf("%s:%d: task %s has no prompt", p, n, t.ID))
				continue
			}
			if prev, dup := seen[t.ID]; dup {
				errs = append(errs, fmt.Sprintf("%s:%d: task %s already defined at %s", p, n, t.ID, prev))
				continue
			}
			seen[t.ID] = fmt.Sprintf("%s:%d", p, n)
			tasks = append(tasks, t)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("bad task files:\n  %s", strings.Join(errs, "\n  "))
	}
	return tasks, nil
}

// UpstreamRecord is one task line of an upstream run file.
type UpstreamRecord struct {
	Type        string          `json:"type"`
	TaskID      string          `json:"taskId"`
	Prompt      string          `json:"prompt"`
	ActualTool  *string         `json:"actualTool"`
	ActualArgs  json.RawMessage `json:"actualArgs"`
	Verdict     string          `json:"verdict"`
	ToolScore   float64         `json:"toolScore"`
	ArgsScore   float64         `json:"argsScore"`
	BailOutCode *string         `json:"bailOutCode"`
	LatencyMS   float64         `json:"latencyMs"`
	RawText     string          `json:"rawText"`
}

// UpstreamRun is a recorded run of the TypeScript harness.
type UpstreamRun struct {
	ModelID string
	Display string
	Records map[string]UpstreamRecord // by task id
	// Score is the upstream points total (toolScore + argsScore).
	Score float64
}

// IsUpstreamRun reports whether a JSONL file starts with the upstream
// run header ({"type":"header","modelId":...}).
func IsUpstreamRun(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	if !sc.Scan() {
		return false
	}
	var h struct {
		Type    string `json:"type"`
		ModelID string `json:"modelId"`
	}
	return json.Unmarshal(sc.Bytes(), &h) == nil && h.Type == "header" && h.ModelID != ""
}

// LoadUpstreamRun reads an upstream run file.
func LoadUpstreamRun(path string) (*UpstreamRun, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	run := &UpstreamRun{Records: map[string]UpstreamRecord{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var head struct {
			Type         string `json:"type"`
			ModelID      string `json:"modelId"`
			ModelDisplay string `json:"modelDisplay"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		switch head.Type {
		case "header":
			run.ModelID, run.Display = head.ModelID, head.ModelDisplay
		case "task":
			var rec UpstreamRecord
			if err := json.Unmarshal(line, &rec); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
			run.Records[rec.TaskID] = rec
			run.Score += rec.ToolScore + rec.ArgsScore
		}
	}
	if run.ModelID == "" {
		return nil, fmt.Errorf("%s: not an upstream run (no header line)", path)
	}
	return run, nil
}

// Model returns a model that answers each task's prompt with what the
// upstream model answered: its native call (if any), its raw text and its
// latency. The router then treats that answer exactly as a live one.
func (u *UpstreamRun) Model() llm.Model {
	byPrompt := make(map[string]UpstreamRecord, len(u.Records))
	for _, r := range u.Records {
		byPrompt[r.Prompt] = r
	}
	return &upstreamModel{name: u.ModelID, byPrompt: byPrompt}
}

type upstreamModel struct {
	name     string
	byPrompt map[string]UpstreamRecord
}

func (m *upstreamModel) Name() string { return m.name }

func (m *upstreamModel) Chat(_ context.Context, req *llm.Request) (*llm.Response, error) {
	var last string
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			last = req.Messages[i].Content
			break
		}
	}
	rec, ok := m.byPrompt[last]
	if !ok {
		return nil, &llm.Error{Code: llm.ErrReplayMiss, Message: fmt.Sprintf("the recorded run has no answer for %q", last)}
	}
	resp := &llm.Response{Text: rec.RawText, Latency: time.Duration(rec.LatencyMS * float64(time.Millisecond)), Model: m.name, Mode: llm.ToolsNative, FinishReason: "stop"}
	if rec.ActualTool != nil && *rec.ActualTool != "" {
		args := rec.ActualArgs
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage(`{}`)
		}
		resp.ToolCalls = []llm.ToolCall{{ID: "call_" + rec.TaskID, Name: *rec.ActualTool, Args: args}}
		resp.FinishReason = "tool_calls"
	}
	return resp, nil
}

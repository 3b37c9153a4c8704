package mcpclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SchemaFile is a server's tools as `macrokit generate` caches them beside
// the specs (macros.d/.mcp/<server>.json): the listing, sorted by name, so
// that generate checks mcp steps the same way offline and on every
// machine.
type SchemaFile struct {
	Server string      `json:"server"`
	Tools  []*mcp.Tool `json:"tools"`
}

// EncodeSchemas renders a server's tools as a SchemaFile: indented, sorted
// (keys and tools), with a final newline, so an unchanged listing is an
// unchanged file.
func EncodeSchemas(server string, tools []*mcp.Tool) ([]byte, error) {
	sorted := append([]*mcp.Tool(nil), tools...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	// Through a generic value: map keys are then sorted at every level.
	raw, err := json.Marshal(SchemaFile{Server: server, Tools: sorted})
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// DecodeSchemas reads a SchemaFile.
func DecodeSchemas(data []byte) (*SchemaFile, error) {
	var f SchemaFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a tool schema file: %v", err)
	}
	for i, t := range f.Tools {
		if t == nil || t.Name == "" {
			return nil, fmt.Errorf("tools[%d] has no name", i)
		}
	}
	return &f, nil
}

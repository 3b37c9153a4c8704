package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxStdioLine bounds one JSON-RPC message on stdio (a tools/call with
// arguments of up to maxBody, in its envelope).
const maxStdioLine = maxMCPBody

// JSON-RPC error codes the stdio filter answers with.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// stdioFilter sits between stdin and the SDK's transport, which ends the
// session (and serve --mcp with it) on the first line that is not a
// JSON-RPC message. It passes each valid line on and answers the others
// itself — -32700 for a line that is not JSON (or too long), -32600 for
// JSON that is not a JSON-RPC message, id null either way — so one bad
// line costs the client one error reply, not the server. Lines are read
// in bounded chunks: an over-long line is discarded as it streams by.
type stdioFilter struct {
	r       *bufio.Reader
	out     *lockedWriter
	pending []byte
	err     error
}

func newStdioFilter(in io.Reader, out *lockedWriter) *stdioFilter {
	return &stdioFilter{r: bufio.NewReaderSize(in, 64<<10), out: out}
}

func (f *stdioFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.line()
		if err != nil {
			f.err = err
		}
		if line == nil {
			continue
		}
		if code, msg := checkRPCLine(line); code != 0 {
			if werr := f.out.writeError(code, msg); werr != nil {
				return 0, werr
			}
			continue
		}
		f.pending = append(line, '\n')
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// line returns the next non-blank line without its end (nil for a blank
// one, or one too long, which it answers itself).
func (f *stdioFilter) line() ([]byte, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxStdioLine+2 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			if werr := f.out.writeError(rpcParseError, fmt.Sprintf("parse error: a message longer than %d bytes was discarded", maxStdioLine)); werr != nil {
				return nil, werr
			}
			return nil, err
		}
		buf = bytes.TrimSpace(buf)
		if len(buf) == 0 {
			return nil, err
		}
		return buf, err
	}
}

// checkRPCLine says why a line is not a JSON-RPC message or batch (code 0:
// it is one), as the SDK would decode it.
func checkRPCLine(line []byte) (int, string) {
	if !utf8.Valid(line) {
		return rpcParseError, "parse error: the line is not valid UTF-8"
	}
	if !json.Valid(line) {
		return rpcParseError, "parse error: the line is not JSON (one JSON-RPC message per line)"
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return rpcInvalidRequest, "invalid request: an empty or malformed batch"
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return rpcInvalidRequest, "invalid request: " + err.Error()
			}
		}
		return 0, ""
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return rpcInvalidRequest, "invalid request: " + err.Error()
	}
	return 0, ""
}

// lockedWriter serialises the filter's error replies with the SDK's
// messages: each Write is one whole line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func (w *lockedWriter) Close() error { return nil }

func (w *lockedWriter) writeError(code int, msg string) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

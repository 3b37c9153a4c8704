package sessionlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// MaxReadLineBytes bounds a line [Read] decodes; a longer one (only a log
// from before [MaxLineBytes] bounded lines can hold one) is skipped and
// counted as Oversized, so a reader's memory stays bounded.
const MaxReadLineBytes = 8 << 20

// Stats says what [Read] skipped.
type Stats struct {
	Lines   int `json:"lines"`
	Records int `json:"records"`
	Torn    int `json:"torn"`    // lines that are not valid JSON (a torn write)
	Foreign int `json:"foreign"` // valid JSON that is not a session record
	// Oversized counts lines longer than MaxReadLineBytes, skipped unread.
	Oversized int `json:"oversized,omitempty"`
}

// Read decodes a session log, skipping (and counting) torn, foreign and
// oversized lines instead of failing, so one bad write never hides a whole
// session. It holds one line at a time.
func Read(r io.Reader, fn func(Record) error) (Stats, error) {
	var st Stats
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				if long != nil && len(long)+len(line) > MaxReadLineBytes {
					long = nil // too long: drain the rest of the line unread
				} else if long != nil {
					long = append(long, line...)
				}
			}
			if long == nil {
				st.Lines++
				st.Oversized++
				line = nil
			} else {
				line = long
			}
		}
		if len(bytes.TrimSpace(line)) > 0 {
			st.Lines++
			var rec Record
			if jerr := json.Unmarshal(line, &rec); jerr != nil {
				st.Torn++
			} else if rec.V == 0 || rec.Type == "" {
				st.Foreign++
			} else {
				st.Records++
				if ferr := fn(rec); ferr != nil {
					return st, ferr
				}
			}
		}
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			return st, err
		}
	}
}

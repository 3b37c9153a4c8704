package sessionlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// Stats says what [Read] skipped.
type Stats struct {
	Lines   int `json:"lines"`
	Records int `json:"records"`
	Torn    int `json:"torn"`    // lines that are not valid JSON (a torn write)
	Foreign int `json:"foreign"` // valid JSON that is not a session record
}

// Read decodes a session log, skipping (and counting) torn and foreign
// lines instead of failing, so one bad write never hides a whole session.
func Read(r io.Reader, fn func(Record) error) (Stats, error) {
	var st Stats
	br := bufio.NewReaderSize(r, 256<<10)
	for {
		line, err := br.ReadBytes('\n')
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

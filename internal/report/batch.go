package report

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
)

// BatchSource is what a batch's files say (internal/cli reads batch.json
// and report.jsonl, or the journal of a batch that did not finish).
type BatchSource struct {
	ID    string
	Macro string
	Input string
	// SessionDir holds the batch's session logs; Sessions are their ids,
	// one per run of the batch (the first and each resume), oldest first.
	// An absolute path is a log elsewhere (a fleet worker's).
	SessionDir string
	Sessions   []string
	Rows       []Row
}

// FromBatch builds the report of a batch: its rows, counted, each linked
// to every run of its call in the batch's session logs (a log that is gone
// is a note, not an error).
func FromBatch(src BatchSource) (*Report, error) {
	rep := &Report{Kind: KindBatch, Title: "batch " + src.ID}
	bt := &Batch{ID: src.ID, Macro: src.Macro, Input: src.Input, Rows: make([]Row, len(src.Rows))}
	copy(bt.Rows, src.Rows)
	rep.Batch = bt
	b := &builder{rep: rep}
	var seen []string
	for _, id := range src.Sessions {
		if slices.Contains(seen, id) {
			continue
		}
		seen = append(seen, id)
		path := filepath.Join(src.SessionDir, id+".jsonl")
		if filepath.IsAbs(id) {
			path = id // a fleet worker's log, named by its path (batch --nats)
		}
		if _, err := b.session(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				rep.Notes = append(rep.Notes, fmt.Sprintf("session log %s is gone: the steps of the rows it ran cannot be shown", path))
				continue
			}
			return nil, err
		}
	}
	// Every run of a call id, in log order.
	runs := map[string][]string{}
	for _, s := range rep.Sessions {
		for _, it := range s.Items {
			if c := it.Call; c != nil && c.ID != "" && (c.Batch == "" || c.Batch == src.ID) {
				runs[c.ID] = append(runs[c.ID], c.Anchor)
			}
		}
	}
	for i := range bt.Rows {
		r := &bt.Rows[i]
		if r.Status == "" {
			r.Status = RowNotRun
		}
		r.Result = compact([]byte(r.Result))
		if r.CallID != "" {
			r.Calls = runs[r.CallID]
		}
		count(&bt.Counts, r.Status)
	}
	ok := bt.Counts.OK + bt.Counts.Skipped
	if ok+bt.Counts.Failed > 0 {
		a := float64(ok) / float64(ok+bt.Counts.Failed)
		bt.Accuracy = &a
	}
	return rep, nil
}

func count(c *Counts, status string) {
	c.Total++
	switch status {
	case RowOK:
		c.OK++
	case RowFailed:
		c.Failed++
	case RowUnverified:
		c.Unverified++
	case RowSkipped:
		c.Skipped++
	case RowUncertain:
		c.Uncertain++
	default:
		c.NotRun++
	}
}

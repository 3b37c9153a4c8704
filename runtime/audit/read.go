package audit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Filter selects entries for reading. Zero fields select everything.
type Filter struct {
	Since, Until time.Time // inclusive bounds on Event.Time
	Identity     string
	Macro        string
	Kinds        []Kind
}

// Match reports whether e passes the filter.
func (f Filter) Match(e Entry) bool {
	switch {
	case !f.Since.IsZero() && e.Time.Before(f.Since):
		return false
	case !f.Until.IsZero() && e.Time.After(f.Until):
		return false
	case f.Identity != "" && e.Identity != f.Identity:
		return false
	case f.Macro != "" && e.Macro != f.Macro:
		return false
	case len(f.Kinds) > 0 && !slices.Contains(f.Kinds, e.Kind):
		return false
	}
	return true
}

// Read streams the entries of a log from r that pass f to fn, in file
// order, one line in memory at a time. It reads, it does not verify: lines
// that are not records (torn ones) and lines longer than MaxLine are
// skipped, and their count returned. fn's error stops the reading and is
// returned.
func Read(ctx context.Context, r io.Reader, f Filter, fn func(Entry) error) (skipped int, err error) {
	br := bufio.NewReaderSize(r, MaxLine+1)
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return skipped, err
			}
		}
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			skipped++
			if err := skipLine(br); err != nil {
				return skipped, err
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return skipped, err
		}
		if len(line) == 0 {
			return skipped, nil
		}
		e, ok := decodeLine(trimNL(line))
		if !ok {
			skipped++
			continue
		}
		if f.Match(e) {
			if err := fn(e); err != nil {
				return skipped, err
			}
		}
	}
}

func trimNL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}

// skipLine discards the rest of an over-long line.
func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
}

// ParseTime reads a time bound as `audit show --since/--until` take it: an
// RFC 3339 time, a date (2006-01-02, UTC), or a duration before now ("2h",
// "90m").
func ParseTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time: want RFC 3339 (2026-01-02T15:04:05Z), a date (2026-01-02) or a duration before now (2h)", s)
}

// Kinds are every event kind, in the order docs/audit.md lists them.
var Kinds = []Kind{ApprovalAsked, ApprovalGranted, ApprovalDenied, DangerousRun, ActionBlocked, SiteBlocked, Login, SecretRead, TornLine}

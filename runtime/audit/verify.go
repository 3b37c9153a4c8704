package audit

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
)

// Problem names what Verify found wrong at a line.
type Problem string

// The problems Verify reports.
const (
	// ProblemEdited: the line's prev is not the hash of the line before it
	// (that line, or this one, was changed).
	ProblemEdited Problem = "line edited"
	// ProblemMissing: the seq skips ahead: lines before it were deleted
	// (or lines were reordered).
	ProblemMissing Problem = "line missing"
	// ProblemMoved: the seq goes back: the line was moved, duplicated or
	// inserted.
	ProblemMoved Problem = "line moved"
	// ProblemMalformed: the line is not an audit record, and no torn_line
	// entry accounts for it.
	ProblemMalformed Problem = "not an audit record"
	// ProblemTorn: the file ends in a cut-off line (a crash mid-write, or a
	// cut); the next append records it.
	ProblemTorn Problem = "torn last line"
	// ProblemTooLong: a line longer than MaxLine.
	ProblemTooLong Problem = "line too long"
	// ProblemTruncated: the log ends before VerifyOptions.ExpectSeq.
	ProblemTruncated Problem = "log truncated"
	// ProblemAnchor: the line at ExpectSeq does not hash to ExpectHash.
	ProblemAnchor Problem = "anchor mismatch"
)

// ChainError is the first problem Verify found: its 1-based line number,
// what, and the detail.
type ChainError struct {
	Line    int
	Problem Problem
	Detail  string
}

// Error renders "line 17: line edited: prev hash does not match line 16".
func (e *ChainError) Error() string {
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Problem, e.Detail)
}

// Report is what Verify read.
type Report struct {
	Lines   int   `json:"lines"`   // physical lines
	Records int64 `json:"records"` // entries in the chain, torn_line ones included
	Head    Head  `json:"head"`    // the last record (seq 0 and Genesis for an empty log)
	// Repairs are the lines of torn_line entries: places where a crash cut
	// a line and a later append accounted for it.
	Repairs []int `json:"repairs,omitempty"`
}

// VerifyOptions anchor a verification to a head saved earlier, which a
// chain alone cannot provide: lines deleted from the end leave a shorter
// chain that is still whole.
type VerifyOptions struct {
	// ExpectSeq, when > 0, is a seq the log must reach.
	ExpectSeq int64
	// ExpectHash, when set, is the hash the line of ExpectSeq must have.
	ExpectHash string
}

// Verify reads a log from r and checks its chain; see [VerifyWith].
func Verify(r io.Reader) (Report, error) {
	return VerifyWith(context.Background(), r, VerifyOptions{})
}

// VerifyWith streams a log from r (one line in memory at a time, each at
// most MaxLine bytes) and checks that every line is a record whose seq
// follows the previous one and whose prev is the SHA-256 of the previous
// line's bytes, the first one's being Genesis, with torn bytes only where
// a torn_line entry binds them. The first problem is returned as a
// *ChainError with its line number; other errors are read errors or ctx's.
func VerifyWith(ctx context.Context, r io.Reader, o VerifyOptions) (Report, error) {
	var rep Report
	rep.Head = Head{Hash: Genesis}
	br := bufio.NewReaderSize(r, MaxLine+1)
	headLine := 0 // the physical line of rep.Head
	// Debris: lines after the last record that are not records, waiting
	// for the torn_line entry that accounts for them.
	debrisLine, debrisBytes := 0, int64(0)
	var debris hash.Hash
	fail := func(line int, p Problem, format string, a ...any) (Report, error) {
		return rep, &ChainError{Line: line, Problem: p, Detail: fmt.Sprintf(format, a...)}
	}
	for {
		if rep.Lines%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
		}
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return fail(rep.Lines+1, ProblemTooLong, "longer than %d bytes", MaxLine)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return rep, err
		}
		if len(line) == 0 {
			break
		}
		rep.Lines++
		n := rep.Lines
		terminated := line[len(line)-1] == '\n'
		body := line
		if terminated {
			body = line[:len(line)-1]
		}
		if len(body) > MaxLine {
			return fail(n, ProblemTooLong, "longer than %d bytes", MaxLine)
		}
		e, ok := decodeChain(body)
		if !ok {
			if debris == nil {
				debris, debrisLine, debrisBytes = sha256.New(), n, 0
			}
			debris.Write(line)
			debrisBytes += int64(len(line))
			if !terminated {
				return fail(debrisLine, ProblemTorn, "the log ends in %d byte(s) that are not a complete record (a crash mid-write, or a cut); the next append accounts for them", debrisBytes)
			}
			continue
		}
		if debris != nil || e.Torn != nil {
			if debris == nil {
				return fail(n, ProblemMalformed, "a torn_line entry with no torn line before it")
			}
			sum := hex.EncodeToString(debris.Sum(nil))
			if e.Kind != TornLine || e.Torn == nil || e.Torn.SHA256 != sum || e.Torn.Bytes != debrisBytes {
				return fail(debrisLine, ProblemMalformed, "line %d is not a record, and no torn_line entry after it accounts for it", debrisLine)
			}
			debris = nil
			rep.Repairs = append(rep.Repairs, n)
		}
		want := rep.Head.Seq + 1
		switch {
		case e.Seq > want && want == 1:
			return fail(n, ProblemMissing, "the log starts at seq %d: the first line(s) were deleted", e.Seq)
		case e.Seq > want:
			return fail(n, ProblemMissing, "seq %d follows seq %d (line %d): a line before it was deleted, or lines were reordered", e.Seq, rep.Head.Seq, headLine)
		case e.Seq < want:
			return fail(n, ProblemMoved, "seq %d where %d was expected: this line was moved or duplicated, or a line before it was inserted", e.Seq, want)
		case e.Prev != rep.Head.Hash && want == 1:
			return fail(n, ProblemEdited, "prev is not the genesis value")
		case e.Prev != rep.Head.Hash:
			return fail(n, ProblemEdited, "prev hash does not match line %d", headLine)
		}
		rep.Head = Head{Seq: e.Seq, Hash: hashLine(body)}
		rep.Records++
		headLine = n
		if o.ExpectSeq > 0 && e.Seq == o.ExpectSeq && o.ExpectHash != "" && rep.Head.Hash != o.ExpectHash {
			return fail(n, ProblemAnchor, "seq %d hashes to %s, not the expected %s: this line was changed", e.Seq, rep.Head.Hash, o.ExpectHash)
		}
	}
	if debris != nil {
		return fail(debrisLine, ProblemMalformed, "line %d is not a record, and no torn_line entry after it accounts for it", debrisLine)
	}
	if o.ExpectSeq > rep.Head.Seq {
		return fail(rep.Lines+1, ProblemTruncated, "the log ends at seq %d, but seq %d was expected: lines were deleted from the end", rep.Head.Seq, o.ExpectSeq)
	}
	return rep, nil
}

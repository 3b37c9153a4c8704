package batch

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"github.com/macrokit/macrokit-go/runtime"
)

// MaxProblems is how many problems Check reports; the rest are counted.
const MaxProblems = 1000

// Prepared is a row ready to run: its line, key and checked arguments.
type Prepared struct {
	Line int
	Key  string
	Args runtime.ValidArgs
}

// Report is what checking an input found.
type Report struct {
	Rows     int       // rows read
	Problems []Problem // at most MaxProblems, in input order
	More     int       // problems past MaxProblems
}

// OK reports whether every row can run.
func (r *Report) OK() bool { return len(r.Problems) == 0 && r.More == 0 }

func (r *Report) add(p ...Problem) {
	for _, x := range p {
		if len(r.Problems) < MaxProblems {
			r.Problems = append(r.Problems, x)
		} else {
			r.More++
		}
	}
}

// Check reads every row, builds and validates its arguments, and calls
// each for the rows that can run (each may be nil: a dry run). Two rows
// with one key are a problem: a key names one row. A *Error (the file
// cannot be read on) ends the check with what was found so far.
func Check(ctx context.Context, file string, r *Reader, b *Builder, each func(Prepared) error) (*Report, error) {
	rep := &Report{}
	// Keys are kept as 128-bit hashes, not strings: a million-row file's
	// duplicate check costs tens of megabytes, not its keys' size.
	keys := map[[16]byte]int{}
	for {
		row, prob, err := r.Next(ctx)
		if errors.Is(err, io.EOF) {
			return rep, nil
		}
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				rep.add(e.Problem)
				return rep, nil
			}
			return rep, err
		}
		rep.Rows++
		if prob != nil {
			rep.add(*prob)
			continue
		}
		key, args, probs := b.Args(file, row)
		if len(probs) > 0 {
			rep.add(probs...)
			continue
		}
		h := keyHash(key)
		if first, dup := keys[h]; dup {
			rep.add(Problem{File: file, Line: row.Line, Column: b.key, Message: fmt.Sprintf("the row's key %q is the key of line %d too: a key names one row", key, first)})
			continue
		}
		keys[h] = row.Line
		if each != nil && rep.OK() {
			if err := each(Prepared{Line: row.Line, Key: key, Args: args}); err != nil {
				return rep, err
			}
		}
	}
}

func keyHash(key string) [16]byte {
	sum := sha256.Sum256([]byte(key))
	return [16]byte(sum[:16])
}

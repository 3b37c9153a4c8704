package llm

import (
	"context"
	"errors"
	"fmt"
)

// MaxScanBytes bounds the model text the lenient parsers read
// (ExtractObject, ParsePromptedAnswer, the router's bail-out detector): a
// routing answer is a sentence or one call, so a longer text is refused as
// a whole (ErrTextTooLarge), never silently cut.
const MaxScanBytes = 64 << 10

// Scan errors. A text over MaxScanBytes is ErrTextTooLarge; a text whose
// fragments would take more than the Scanner's budget to examine (deeply
// nested, broken almost-JSON) is ErrScanBudget. Both are verdicts on the
// text, not failures to retry.
var (
	ErrTextTooLarge = errors.New("the model's text is too large to read")
	ErrScanBudget   = errors.New("the model's text is too tangled to read within the scan budget")
)

// scanChunk is how much work a Scanner does between two looks at its
// context.
const scanChunk = 4096

// Scanner reads one model text for the lenient parsers in bounded,
// cancellable work. It answers Balanced for any offset of the text while
// scanning each byte about once (a pass from one bracket resolves every
// bracket it meets outside quotes), and it meters all work — its own and
// what callers Charge — against a budget linear in the text's length,
// looking at the context every scanChunk units.
type Scanner struct {
	ctx  context.Context
	text string
	// match holds, per offset, 0 when unknown, -1 when the bracket there
	// never closes, else the end (exclusive) of Balanced(text[i:]).
	match  []int32
	stack  []int32
	work   int
	budget int
	next   int // work at which to look at ctx again
}

// BudgetPerByte and BudgetBase size a Scanner's work budget:
// BudgetBase + BudgetPerByte*len(text) units, a unit being about one byte
// scanned, decoded or matched. Ordinary answers use a few units per byte.
const (
	BudgetPerByte = 32
	BudgetBase    = 1 << 16
)

// NewScanner starts a scanner over text. It does not check the size:
// callers refuse texts over their cap (MaxScanBytes) first.
func NewScanner(ctx context.Context, text string) *Scanner {
	if ctx == nil {
		ctx = context.Background()
	}
	return &Scanner{ctx: ctx, text: text, match: make([]int32, len(text)),
		budget: BudgetBase + BudgetPerByte*len(text), next: scanChunk}
}

// Text is the text being scanned.
func (s *Scanner) Text() string { return s.text }

// Work is the work done so far, in units: what tests count to show that
// the parsers are linear.
func (s *Scanner) Work() int { return s.work }

// Charge meters n units of work done by a caller (decoding a fragment,
// running a regexp over it). It fails with ErrScanBudget once the budget
// is spent, and with the context's error once it is done.
func (s *Scanner) Charge(n int) error {
	s.work += n
	if s.work > s.budget {
		return fmt.Errorf("%w (%d units for %d bytes)", ErrScanBudget, s.budget, len(s.text))
	}
	if s.work >= s.next {
		s.next = s.work + scanChunk
		if err := s.ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// Err is the context's error, if any.
func (s *Scanner) Err() error { return s.ctx.Err() }

// Balanced is Balanced(text[i:]) as an end offset: the bracket at i (a
// '{', '[' or '(') closes at end-1. ok is false when it never closes or i
// holds no opening bracket.
func (s *Scanner) Balanced(i int) (end int, ok bool, err error) {
	if i < 0 || i >= len(s.text) || !isOpen(s.text[i]) {
		return 0, false, nil
	}
	if s.match[i] == 0 {
		if err := s.pass(i); err != nil {
			return 0, false, err
		}
	}
	if m := s.match[i]; m > 0 {
		return int(m), true, nil
	}
	return 0, false, nil
}

// pass runs Balanced's scan from i, recording the match of every bracket
// it meets outside quotes: a scan from any of them would follow the same
// path (the quote state is the same there), so they never need their own.
// A bracket already resolved by an earlier pass is jumped over, or, when
// it never closes, ends the pass: nothing on the stack closes either.
func (s *Scanner) pass(i int) error {
	text := s.text
	stack := s.stack[:0]
	defer func() { s.stack = stack[:0] }()
	var quote byte
	start := i
	budgetCheck := i + scanChunk
	for k := i; k < len(text); k++ {
		if k >= budgetCheck {
			if err := s.Charge(k - start); err != nil {
				return err
			}
			start, budgetCheck = k, k+scanChunk
		}
		c := text[k]
		if quote != 0 {
			switch c {
			case '\\':
				k++
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			quote = c
		case '{', '[', '(':
			if m := s.match[k]; m != 0 && k != i {
				if m < 0 {
					s.unclosed(stack)
					return s.Charge(k - start + 1)
				}
				k = int(m) - 1 // the same path up to its close
				if len(stack) == 0 {
					return s.Charge(k - start + 1)
				}
				continue
			}
			stack = append(stack, int32(k))
		case '}', ']', ')':
			if len(stack) == 0 { // only after a jump; cannot happen from an open
				return s.Charge(k - start + 1)
			}
			t := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			s.match[t] = int32(k + 1)
			if len(stack) == 0 {
				return s.Charge(k - start + 1)
			}
		}
	}
	s.unclosed(stack)
	return s.Charge(len(text) - start)
}

func (s *Scanner) unclosed(stack []int32) {
	for _, t := range stack {
		s.match[t] = -1
	}
}

func isOpen(c byte) bool { return c == '{' || c == '[' || c == '(' }

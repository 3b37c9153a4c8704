package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeLog appends n events to a fresh log and returns its path.
func writeLog(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "a", "audit.jsonl")
	l, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range n {
		if err := l.Append(context.Background(), Event{Kind: ApprovalGranted, Macro: fmt.Sprintf("m%d", i+1), Channel: ChannelYes}); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func lines(t *testing.T, p string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(b, []byte("\n"))
}

func verifyFile(t *testing.T, p string, o VerifyOptions) (Report, error) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return VerifyWith(context.Background(), f, o)
}

func TestVerifyDetectsTampering(t *testing.T) {
	join := func(ls [][]byte) []byte { return bytes.Join(ls, nil) }
	cases := []struct {
		name    string
		tamper  func(ls [][]byte) []byte
		opts    func(rep Report) VerifyOptions
		line    int
		problem Problem
	}{
		{name: "intact", tamper: join},
		{name: "edited middle line", tamper: func(ls [][]byte) []byte {
			ls[3] = bytes.Replace(ls[3], []byte(`"m4"`), []byte(`"mX"`), 1)
			return join(ls)
		}, line: 5, problem: ProblemEdited},
		{name: "edited prev", tamper: func(ls [][]byte) []byte {
			i := bytes.Index(ls[2], []byte(`"prev":"`)) + len(`"prev":"`)
			ls[2][i] = "01"[bytes.IndexByte([]byte("0"), ls[2][i])+1]
			return join(ls)
		}, line: 3, problem: ProblemEdited},
		{name: "prev no longer a hash", tamper: func(ls [][]byte) []byte {
			ls[2] = bytes.Replace(ls[2], []byte(`"prev":"`), []byte(`"prev":"x`), 1)
			return join(ls)
		}, line: 3, problem: ProblemMalformed},
		{name: "reordered", tamper: func(ls [][]byte) []byte {
			ls[2], ls[3] = ls[3], ls[2]
			return join(ls)
		}, line: 3, problem: ProblemMissing},
		{name: "deleted middle line", tamper: func(ls [][]byte) []byte {
			return join(append(ls[:4:4], ls[5:]...))
		}, line: 5, problem: ProblemMissing},
		{name: "deleted first line", tamper: func(ls [][]byte) []byte { return join(ls[1:]) }, line: 1, problem: ProblemMissing},
		{name: "duplicated line", tamper: func(ls [][]byte) []byte {
			return join(append(ls[:3:3], append([][]byte{ls[2]}, ls[3:]...)...))
		}, line: 4, problem: ProblemMoved},
		{name: "inserted foreign line", tamper: func(ls [][]byte) []byte {
			return join(append(ls[:3:3], append([][]byte{[]byte("hello\n")}, ls[3:]...)...))
		}, line: 4, problem: ProblemMalformed},
		{name: "deleted last line goes unseen by the chain", tamper: func(ls [][]byte) []byte { return join(ls[:7]) }},
		{name: "deleted last line caught by the expected seq", tamper: func(ls [][]byte) []byte { return join(ls[:7]) },
			opts: func(Report) VerifyOptions { return VerifyOptions{ExpectSeq: 8} }, line: 8, problem: ProblemTruncated},
		{name: "edited last line caught by the expected hash", tamper: func(ls [][]byte) []byte {
			ls[7] = bytes.Replace(ls[7], []byte(`"m8"`), []byte(`"mX"`), 1)
			return join(ls)
		}, opts: func(rep Report) VerifyOptions { return VerifyOptions{ExpectSeq: 8, ExpectHash: rep.Head.Hash} }, line: 8, problem: ProblemAnchor},
		{name: "truncated tail", tamper: func(ls [][]byte) []byte {
			return join(append(ls[:7:7], ls[7][:20]))
		}, line: 8, problem: ProblemTorn},
		{name: "over-long line", tamper: func(ls [][]byte) []byte {
			return join(append(ls[:2:2], []byte(strings.Repeat("x", MaxLine+10)+"\n")))
		}, line: 3, problem: ProblemTooLong},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeLog(t, 8)
			intact, err := verifyFile(t, p, VerifyOptions{})
			if err != nil || intact.Records != 8 || intact.Head.Seq != 8 {
				t.Fatalf("intact log: %+v, %v", intact, err)
			}
			if err := os.WriteFile(p, tc.tamper(lines(t, p)), 0o600); err != nil {
				t.Fatal(err)
			}
			var o VerifyOptions
			if tc.opts != nil {
				o = tc.opts(intact)
			}
			_, err = verifyFile(t, p, o)
			if tc.problem == "" {
				if err != nil {
					t.Fatalf("verify: %v", err)
				}
				return
			}
			var ce *ChainError
			if !errors.As(err, &ce) {
				t.Fatalf("verify: %v, want a *ChainError", err)
			}
			if ce.Line != tc.line || ce.Problem != tc.problem {
				t.Fatalf("verify: %v, want line %d: %s", ce, tc.line, tc.problem)
			}
		})
	}
}

// TestTornTailRepaired: after a crash cut the last line, the next append
// neither chains onto the torn bytes nor hides them: a torn_line entry
// binds them by hash, and the log verifies again; editing the torn bytes
// afterwards is caught.
func TestTornTailRepaired(t *testing.T) {
	cases := []struct {
		name string
		cut  func(b []byte) []byte
	}{
		{"cut mid-line", func(b []byte) []byte { return b[:len(b)-40] }},
		{"newline lost", func(b []byte) []byte { return b[:len(b)-1] }},
		{"cut twice", func(b []byte) []byte { return append(b[:len(b)-40:len(b)-40], []byte("\n{\"seq\":9,\"pr")...) }},
		{"first line cut", func(b []byte) []byte { return b[:30] }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeLog(t, 3)
			b, _ := os.ReadFile(p)
			if err := os.WriteFile(p, tc.cut(b), 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.name != "newline lost" {
				if _, err := verifyFile(t, p, VerifyOptions{}); err == nil {
					t.Fatal("a torn log verified")
				}
			}
			l, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Append(context.Background(), Event{Kind: DangerousRun, Macro: "after"}); err != nil {
				t.Fatal(err)
			}
			l.Close()
			rep, err := verifyFile(t, p, VerifyOptions{})
			if err != nil {
				t.Fatalf("after the repair: %v\n%s", err, readAll(t, p))
			}
			wantRepairs := 1
			if tc.name == "newline lost" {
				wantRepairs = 0
			}
			if len(rep.Repairs) != wantRepairs {
				t.Fatalf("repairs %v, want %d\n%s", rep.Repairs, wantRepairs, readAll(t, p))
			}
			if wantRepairs == 0 {
				return
			}
			// The torn bytes are bound: changing them breaks verification.
			b, _ = os.ReadFile(p)
			ls := bytes.SplitAfter(b, []byte("\n"))
			torn := rep.Repairs[0] - 2
			ls[torn] = append([]byte("X"), ls[torn]...)
			_ = os.WriteFile(p, bytes.Join(ls, nil), 0o600)
			var ce *ChainError
			if _, err := verifyFile(t, p, VerifyOptions{}); !errors.As(err, &ce) || ce.Problem != ProblemMalformed {
				t.Fatalf("edited torn bytes: %v", err)
			}
		})
	}
}

func readAll(t *testing.T, p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

func TestOpenRefusesAForeignFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	_ = os.WriteFile(p, bytes.Repeat([]byte("not an audit log\n"), 30000), 0o600)
	if _, err := Open(p); !errors.Is(err, ErrDamaged) {
		t.Fatalf("Open: %v, want ErrDamaged", err)
	}
}

// TestConcurrentAppends: goroutines on one Log and on a second Log of the
// same file (another descriptor, as another process has) never fork the
// chain.
func TestConcurrentAppends(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		l := a
		if g%2 == 1 {
			l = b
		}
		wg.Go(func() {
			for range 25 {
				if err := l.Append(context.Background(), Event{Kind: SecretRead, Secret: "TOKEN"}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	a.Close()
	b.Close()
	rep, err := verifyFile(t, p, VerifyOptions{})
	if err != nil || rep.Records != 200 {
		t.Fatalf("verify: %+v, %v", rep, err)
	}
}

// TestConcurrentProcesses appends from several processes (this test
// binary re-run as a helper) to one log.
func TestConcurrentProcesses(t *testing.T) {
	if p := os.Getenv("AUDIT_HELPER_LOG"); p != "" {
		l, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(os.Getenv("AUDIT_HELPER_N"))
		for range n {
			if err := l.Append(context.Background(), Event{Kind: DangerousRun, Macro: "proc"}); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	const procs, each = 4, 40
	var wg sync.WaitGroup
	for range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentProcesses$")
			cmd.Env = append(os.Environ(), "AUDIT_HELPER_LOG="+p, "AUDIT_HELPER_N="+strconv.Itoa(each))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("helper: %v\n%s", err, out)
			}
		})
	}
	wg.Wait()
	rep, err := verifyFile(t, p, VerifyOptions{})
	if err != nil || rep.Records != procs*each {
		t.Fatalf("verify: %+v, %v", rep, err)
	}
}

func TestAppendClipsAndReads(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	evs := []Event{
		{Time: t0, Kind: ApprovalAsked, Macro: "wipe", Identity: "ada", Channel: ChannelTerminal},
		{Time: t0.Add(time.Hour), Kind: ApprovalGranted, Macro: "wipe", Identity: "ada", Channel: ChannelTerminal, Who: "alice"},
		{Time: t0.Add(2 * time.Hour), Kind: SiteBlocked, Macro: "fetch", Target: strings.Repeat("\x01", 3*MaxLine)},
	}
	for _, e := range evs {
		if err := l.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	if _, err := verifyFile(t, p, VerifyOptions{}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		f    Filter
		want []int64
	}{
		{"all", Filter{}, []int64{1, 2, 3}},
		{"since", Filter{Since: t0.Add(30 * time.Minute)}, []int64{2, 3}},
		{"until", Filter{Until: t0.Add(time.Hour)}, []int64{1, 2}},
		{"identity", Filter{Identity: "ada"}, []int64{1, 2}},
		{"macro", Filter{Macro: "fetch"}, []int64{3}},
		{"kinds", Filter{Kinds: []Kind{ApprovalGranted, SiteBlocked}}, []int64{2, 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := os.Open(p)
			defer f.Close()
			var got []int64
			if _, err := Read(context.Background(), f, tc.f, func(e Entry) error { got = append(got, e.Seq); return nil }); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("seqs %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{in: "2h", want: now.Add(-2 * time.Hour)},
		{in: "2026-01-01T08:00:00Z", want: time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)},
		{in: "2026-01-01", want: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		{in: "yesterday", bad: true},
		{in: "-2h", bad: true},
	}
	for _, tc := range cases {
		got, err := ParseTime(tc.in, now)
		if (err != nil) != tc.bad || (!tc.bad && !got.Equal(tc.want)) {
			t.Errorf("ParseTime(%q) = %v, %v", tc.in, got, err)
		}
	}
}

// TestKilledWriter: a process killed (SIGKILL) while appending leaves a
// log that verifies, or fails only with a torn last line; the next append
// makes it verify, with every record the killed process completed.
func TestKilledWriter(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentProcesses$")
		cmd.Env = append(os.Environ(), "AUDIT_HELPER_LOG="+p, "AUDIT_HELPER_N=1000000")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for some records, then kill.
		want := int64((round + 1) * 100 << 10)
		for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
			st, err := os.Stat(p)
			if err == nil && st.Size() > want {
				break
			}
			if time.Since(start) > 60*time.Second {
				_ = cmd.Process.Kill()
				t.Fatalf("round %d: the writer wrote no %d bytes in a minute", round, want)
			}
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		before, err := verifyFile(t, p, VerifyOptions{})
		var ce *ChainError
		if err != nil && (!errors.As(err, &ce) || ce.Problem != ProblemTorn) {
			t.Fatalf("round %d: after kill -9: %v", round, err)
		}
		l, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Append(context.Background(), Event{Kind: DangerousRun, Macro: "after"}); err != nil {
			t.Fatal(err)
		}
		l.Close()
		rep, err := verifyFile(t, p, VerifyOptions{})
		if err != nil || rep.Records < before.Records+1 {
			t.Fatalf("round %d: after the next append: %+v, %v (before: %+v)", round, rep, err, before)
		}
	}
}

// BenchmarkAppend: one fsync'd, flock'd append (go test -bench Append ./runtime/audit).
func BenchmarkAppend(b *testing.B) {
	l, err := Open(filepath.Join(b.TempDir(), "audit.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for b.Loop() {
		if err := l.Append(context.Background(), Event{Kind: ApprovalGranted, Macro: "wipe", Channel: ChannelYes, Who: "alice"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify: verifying a 10,000-line log.
func BenchmarkVerify(b *testing.B) {
	p := filepath.Join(b.TempDir(), "audit.jsonl")
	l, err := Open(p)
	if err != nil {
		b.Fatal(err)
	}
	for range 10000 {
		if err := l.Append(context.Background(), Event{Kind: SecretRead, Secret: "API_TOKEN", Macro: "call_api"}); err != nil {
			b.Fatal(err)
		}
	}
	l.Close()
	data, _ := os.ReadFile(p)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Verify(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/fixture"
)

// testPages is the network of a test's pages (docs/fixtures.md "Page
// fixtures"): replayed from <fixture>.page.jsonl through request
// interception when the test replays and that file exists, recorded under
// --live and --update, else left alone.
type testPages struct {
	path     string
	recorded []fixture.Exchange
	have     bool
	rec      *fixture.PageRecorder
	replay   *fixture.PageReplay
}

// newTestPages reads the page fixture beside the test's http fixture.
func newTestPages(httpFixture string, replay bool, opts TestOptions, scrub *fixture.Scrubber) (*testPages, error) {
	tp := &testPages{path: fixture.PagePath(httpFixture)}
	var err error
	tp.recorded, tp.have, err = readFixture(tp.path)
	if err != nil {
		return nil, err
	}
	switch {
	case replay && tp.have:
		tp.replay = fixture.NewPageReplay(tp.path, tp.recorded, scrub)
		tp.replay.Passthrough = opts.PagePassthrough
	case opts.Live || opts.Update:
		tp.rec = fixture.NewPageRecorder(scrub)
	}
	return tp, nil
}

// pages wraps the test's page source with the replay or the recorder.
func (tp *testPages) pages(src runtime.PageSource) runtime.PageSource {
	switch {
	case src == nil:
		return nil
	case tp.replay != nil:
		return fixture.HookedPages(src, tp.replay.Hook())
	case tp.rec != nil:
		return tp.rec.Pages(src)
	}
	return src
}

// finish judges the pages' network once the call is over: a replayed
// request the fixture lacks fails the test; a recorded run is compared with
// the fixture (drift) and, under --update, written when the test passed.
func (tp *testPages) finish(r *TestResult, opts TestOptions) {
	if tp.have {
		r.PageFixture = tp.path
	}
	if tp.replay != nil {
		r.PageExchanges, _ = tp.replay.Served()
		misses := tp.replay.Misses()
		for _, m := range misses {
			r.PageMisses = append(r.PageMisses, m.Method+" "+m.URL)
		}
		if len(misses) > 0 {
			msg := "page " + misses[0].Error()
			if len(misses) > 1 {
				msg += fmt.Sprintf(" (and %d more: %s)", len(misses)-1, strings.Join(clipList(r.PageMisses[1:], 5), ", "))
			}
			r.Status, r.Problem = TestFailed, joinProblem(r.Problem, msg)
		}
		return
	}
	if tp.rec == nil {
		return
	}
	live := tp.rec.Exchanges()
	r.PageExchanges = len(live)
	if tp.have {
		drift := fixture.Compare(tp.recorded, live)
		for i := range drift {
			drift[i].Page = true
		}
		r.Drift = append(r.Drift, drift...)
		if len(drift) > 0 && opts.FailOnDrift && !opts.Update {
			r.Status, r.Problem = TestFailed, joinProblem(r.Problem, "the pages' responses drifted from the page fixture (--fail-on-drift)")
		}
	}
	if !opts.Update || r.Status == TestFailed {
		return
	}
	switch {
	case len(live) > 0:
		changed, err := fixture.WritePageFile(tp.path, live)
		if err != nil {
			r.Status, r.Problem = TestFailed, joinProblem(r.Problem, "write page fixture: "+err.Error())
			return
		}
		r.PageFixture, r.PageFixtureUpdated = tp.path, changed
	case tp.have:
		if err := os.Remove(tp.path); err != nil {
			r.Status, r.Problem = TestFailed, joinProblem(r.Problem, "remove page fixture: "+err.Error())
			return
		}
		r.PageFixture, r.PageFixtureUpdated = "", true
	}
}

func clipList(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	return append(append([]string(nil), xs[:n]...), "...")
}

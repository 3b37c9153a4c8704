package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/macrokit/macrokit-go/engine"
	"github.com/macrokit/macrokit-go/internal/atomicfile"
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/macrokit/macrokit-go/runtime/sessionlog"
	"github.com/urfave/cli/v2"
)

// DefaultFingerprintsDir is where the remembered fingerprints of the
// steps' elements live, committed beside the specs (docs/heal.md).
const DefaultFingerprintsDir = "macros.d/.fingerprints"

// fingerprintsFlag is --fingerprints on the commands that run macros.
func fingerprintsFlag() cli.Flag {
	return &cli.StringFlag{Name: "fingerprints", Value: DefaultFingerprintsDir,
		Usage: "the remembered fingerprints (`DIR`) a drifted step is healed from, with proof (docs/heal.md); empty: no healing"}
}

// fingerprintDir is the store of --fingerprints: nil when it is empty or
// when the directory it sits in (the specs', macros.d) does not exist, as
// for a deployment binary run away from its project, which then neither
// heals nor records.
func fingerprintDir(dir string) *runtime.FingerprintDir {
	if dir == "" {
		return nil
	}
	if st, err := os.Stat(filepath.Dir(filepath.Clean(dir))); err != nil || !st.IsDir() {
		return nil
	}
	return &runtime.FingerprintDir{Dir: dir}
}

// dispatcherFingerprints is the store as a Dispatcher takes it (a nil
// *FingerprintDir must be a nil interface).
func dispatcherFingerprints(d *runtime.FingerprintDir) runtime.Fingerprints {
	if d == nil {
		return nil
	}
	return d
}

// printHeals writes one line per heal: the old and the new target, how
// sure, and what proved it (or that nothing did).
func printHeals(w io.Writer, indent string, heals []sessionlog.Heal) {
	for _, h := range heals {
		var old, nw engine.Target
		_ = json.Unmarshal(h.Old, &old)
		to := "no unique target (" + h.Note + ")"
		if len(h.New) > 0 && json.Unmarshal(h.New, &nw) == nil {
			to = flowTarget(nw)
		}
		proof := "not proven"
		if h.Proven {
			proof = "proved by " + strings.Join(h.ProvedBy, ", ")
		}
		fmt.Fprintf(w, "%shealed %s %s (%s): %s -> %s (%s; confidence %.2f, runner-up %.2f; %s)\n",
			indent, h.Macro, h.Step, h.Kind, flowTarget(old), to, h.Cause, h.Confidence, h.RunnerUp, proof)
	}
}

// writeTestHeals leaves the heals of the tests that passed with heal for
// `heal --from-tests` (an empty list after a run without any).
func writeTestHeals(path string, rep *TestReport) error {
	rec := liveTestHeals{Time: time.Now().UTC(), Heals: []sessionlog.Heal{}}
	for _, t := range rep.Tests {
		if t.Status == TestHealed {
			rec.Heals = append(rec.Heals, t.Healed...)
		}
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, 0o644, append(data, '\n'))
}

package cli

import (
	"github.com/macrokit/macrokit-go/runtime"
	"github.com/urfave/cli/v2"
)

// screenshotsFlag is --screenshots on run, batch and serve: when page
// steps take (masked) screenshots, written beside the session log.
func screenshotsFlag() cli.Flag {
	return &cli.GenericFlag{Name: "screenshots", Value: &enumValue{name: "screenshots", allowed: runtime.ShotModeNames, value: runtime.ShotModeNames[0]},
		Usage: "page steps' screenshots, secrets masked, in <session>.shots/ beside the session log: " + orList(runtime.ShotModeNames) +
			" (on-failure: an after image of each failed step; always: before and after images of every page step)"}
}

// shotMode reads --screenshots; a mode other than never needs a session
// log to put the images beside.
func shotMode(c *cli.Context) (runtime.ShotMode, error) {
	m, err := runtime.ParseShotMode(c.String("screenshots"))
	if err != nil {
		return runtime.ShotsNever, Usagef("--screenshots: %v", err)
	}
	if m != runtime.ShotsNever && c.String("session-dir") == "" {
		return runtime.ShotsNever, Usagef("--screenshots %s writes beside the session log: it needs --session-dir", m)
	}
	return m, nil
}

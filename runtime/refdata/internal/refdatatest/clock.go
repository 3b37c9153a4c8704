package refdatatest

import "time"

// Now is the fixed time of the tests: bundles are sealed and checked at it.
var Now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Clock returns [Now]; it fits [refdata.Options.Now] and [refdata.SealOptions.Now].
func Clock() time.Time { return Now }

package ghprim

import (
	"context"
	"fmt"
	"time"
)

// DaysAgoArgs are days_ago's arguments.
type DaysAgoArgs struct {
	// Days is how many days back (>= 0).
	Days int64 `json:"days"`
}

// DaysAgo is the instant that many days before now, as RFC 3339 in UTC
// (2024-01-31T08:00:00Z).
//
//macrokit:primitive
func DaysAgo(ctx context.Context, a DaysAgoArgs) (string, error) {
	return daysAgo(optionsFrom(ctx).now(), a.Days)
}

func daysAgo(now time.Time, days int64) (string, error) {
	if days < 0 || days > 100*366 {
		return "", fmt.Errorf("days must be between 0 and %d, got %d", 100*366, days)
	}
	return now.UTC().Add(-time.Duration(days) * 24 * time.Hour).Truncate(time.Second).Format(time.RFC3339), nil
}

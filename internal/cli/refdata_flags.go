package cli

import (
	"context"
	"time"

	"github.com/urfave/cli/v2"
)

// RefdataFlags are the arguments and flags of the refdata subcommands
// (each reads its own).
type RefdataFlags struct {
	Args        []string
	Format      string
	Trust       []string // nil: not given
	Cache       string
	MaxBytes    int64
	Timeout     time.Duration
	Comment     string // keygen
	Force       bool   // keygen
	Key         string // sign: the private key file; show: the row's key
	KeySet      bool   // show: --key was given
	PublishedAt string // sign
	ExpiresAt   string // sign
	ExpiresIn   time.Duration
	Archive     string // sign
	From        string // sync
	Pin         string // sync
	Clear       bool   // pin
	File        string // show
	Keep        int    // prune
}

// refdataFlags decodes the refdata flags of c's subcommand.
func refdataFlags(c *cli.Context) RefdataFlags {
	f := RefdataFlags{Args: c.Args().Slice(), Format: c.String("format"), Cache: c.String("cache"), MaxBytes: c.Int64("max-bytes"),
		Timeout: c.Duration("timeout"), Comment: c.String("comment"), Force: c.Bool("force"), Key: c.String("key"), KeySet: c.IsSet("key"),
		PublishedAt: c.String("published-at"), ExpiresAt: c.String("expires-at"), ExpiresIn: c.Duration("expires-in"),
		Archive: c.String("archive"), From: c.String("from"), Pin: c.String("pin"), Clear: c.Bool("clear"), File: c.String("file"), Keep: c.Int("keep")}
	if c.IsSet("trust") {
		f.Trust = c.StringSlice("trust")
	}
	return f
}

// arg is the i-th argument, or "".
func (f RefdataFlags) arg(i int) string {
	if i < len(f.Args) {
		return f.Args[i]
	}
	return ""
}

// refdataAction is the Action of a refdata subcommand: decode, then run.
func refdataAction(cfg *Config, run func(context.Context, *Env, RefdataFlags) error) cli.ActionFunc {
	return func(c *cli.Context) error { return run(c.Context, newEnv(c, cfg), refdataFlags(c)) }
}

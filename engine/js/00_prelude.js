// Package-level namespace is created by the loader in agent.go as `mk`.

// Package-level namespace is created by the loader in page.go as `mk`.

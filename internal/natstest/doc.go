// Package natstest runs real NATS servers for tests: an embedded
// nats-server with JetStream file storage (not a mock), and client
// connections that reconnect quickly, each closed when its test ends.
package natstest

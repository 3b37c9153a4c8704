package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Start runs an embedded nats-server with JetStream file storage in dir
// (a temporary directory when ""), on 127.0.0.1:port (-1: a free port),
// and shuts it down when the test ends. Starting another on the same dir
// and port after a Shutdown is a server restart.
func Start(t testing.TB, dir string, port int) *server.Server {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	s, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	t.Cleanup(func() { Shutdown(s) })
	return s
}

// Shutdown stops s and waits until it has (again is a no-op).
func Shutdown(s *server.Server) {
	s.Shutdown()
	s.WaitForShutdown()
}

// Connect opens a client connection to url that reconnects every 50ms for
// as long as it lives (a restarted server is waited for), closed when the
// test ends. Each call is a connection of its own, as another machine's
// would be.
func Connect(t testing.TB, url string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(url, nats.ReconnectWait(50*time.Millisecond), nats.MaxReconnects(-1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}
